//! Albaraka Türk PosNet V1: the bank's codes → stable decline codes ([`DeclineCode`]), read by the kit's
//! adapter through `Protocol::DECLINE_CODES`. A code not named here falls back to the kit's
//! shared tables (`paygate_bankkit::decline`: ISO 8583 two-digit host codes, the kit's own
//! codes); none at all is `unclassified`. An unknown outcome is `outcome_unknown` whatever its
//! code, and a cancel refused for the end-of-day cut is `after_end_of_day`, so neither needs a
//! line here.
//!
//! Sources: this crate's README "Code → outcome" (MEWS `$codes` and fixtures; PosNet's codes,
//! marked there as inferred for V1) and the simulator's code table; `00NN` host codes are ISO
//! 8583 zero-padded.

use paygate_domain::decline::DeclineCode;

use DeclineCode as D;

/// Bank code → stable code.
pub const TABLE: &[(&str, DeclineCode)] = &[
    ("0002", D::InvalidRequest),
    ("0150", D::InvalidRequest), // PAKET HATALI
    ("0100", D::InvalidRequest),
    ("0124", D::InvalidRequest),
    ("0125", D::InvalidRequest),
    ("0126", D::InvalidRequest),
    ("0146", D::InvalidCredentials),
    ("0147", D::InvalidCredentials),
    ("0148", D::IpNotAllowed),           // INVALID MID TID IP
    ("0123", D::NotFound),               // ORJINAL ISLEM BULUNAMADI
    ("E219", D::NotFound),               // Kayıt Bulunamadı
    ("0127", D::DuplicateOrder),         // order id used
    ("0015", D::NotFound),               // PROVIZYON BULUNAMADI
    ("0200", D::InvalidRequest),         // GECERSIZ ISLEM
    ("0205", D::AmountExceedsOriginal),  // GECERSIZ TUTAR
    ("0220", D::AlreadyReversed),        // IPTAL ISLEMI YAPILMIS
    ("0411", D::RefundBeforeEndOfDay),   // ISLEM HENUZ FINANSALLASMAMIS
    ("0788", D::OperationNotPermitted),  // FINANSAL ISLEM YAPILMIS
    ("0001", D::DoNotHonor),             // ISO 01
    ("0005", D::DoNotHonor),             // ISO 05
    ("0007", D::LostOrStolen),           // ISO 07
    ("0012", D::InvalidRequest),         // ISO 12
    ("0014", D::InvalidCard),            // ISO 14
    ("0030", D::InvalidRequest),         // ISO 30
    ("0041", D::LostOrStolen),           // ISO 41
    ("0043", D::LostOrStolen),           // ISO 43
    ("0051", D::InsufficientFunds),      // ISO 51
    ("0053", D::InsufficientFunds),      // ISO 53 no savings account
    ("0054", D::CardExpired),            // ISO 54
    ("0057", D::CardRestricted),         // ISO 57
    ("0058", D::CardRestricted),         // ISO 58
    ("0062", D::CardRestricted),         // ISO 62
    ("0065", D::LimitExceeded),          // ISO 65
    ("no_open_preauth", D::NotFound),    // this crate: nothing sent
    ("nothing_to_refund", D::NotFound),  // this crate: nothing sent
    ("nothing_to_reverse", D::NotFound), // this crate: nothing sent
];
