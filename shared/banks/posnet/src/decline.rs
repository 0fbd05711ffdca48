//! Yapı Kredi Posnet: the bank's codes → stable decline codes ([`DeclineCode`]), read by the kit's
//! adapter through `Protocol::DECLINE_CODES`. A code not named here falls back to the kit's
//! shared tables (`paygate_bankkit::decline`: ISO 8583 two-digit host codes, the kit's own
//! codes); none at all is `unclassified`. An unknown outcome is `outcome_unknown` whatever its
//! code, and a cancel refused for the end-of-day cut is `after_end_of_day`, so neither needs a
//! line here.
//!
//! Sources: this crate's README "Code → outcome" (the bank's "POSNET ThreeD Secure XML Servis
//! Entegrasyonu" v2.0.1.5 §5 and its PHP module; MEWS `PosNetResponseDataMapper`) and the
//! simulator's code table; `00NN` host codes are ISO 8583 zero-padded (named here, since the
//! kit's table has the two-digit form).

use paygate_domain::decline::DeclineCode;

use DeclineCode as D;

/// Bank code → stable code.
pub const TABLE: &[(&str, DeclineCode)] = &[
    ("0002", D::InvalidRequest),     // XNIException
    ("0150", D::InvalidRequest),     // PAKET HATALI
    ("0146", D::InvalidCredentials), // credentials
    ("0147", D::InvalidCredentials), // credentials
    ("0148", D::IpNotAllowed),       // INVALID MID TID IP
    ("0100", D::InvalidRequest),
    ("0124", D::InvalidRequest),
    ("0125", D::InvalidRequest),
    ("0126", D::InvalidRequest),
    ("0122", D::NotFound),
    ("0123", D::NotFound),              // ORJINAL ISLEM BULUNAMADI
    ("0127", D::DuplicateOrder),        // ORDERID DAHA ONCE KULLANILMIS
    ("0015", D::NotFound),              // PROVIZYON BULUNAMADI
    ("0200", D::InvalidRequest),        // GECERSIZ ISLEM
    ("0205", D::AmountExceedsOriginal), // GECERSIZ TUTAR (above the authorization / remaining)
    ("0220", D::AlreadyReversed),       // IPTAL ISLEMI YAPILMIS
    ("0411", D::RefundBeforeEndOfDay),  // ISLEM HENUZ FINANSALLASMAMIS
    ("0788", D::OperationNotPermitted), // FINANSAL ISLEM YAPILMIS (reverse the capture first)
    ("0005", D::DoNotHonor),            // ISO 05
    ("0012", D::InvalidRequest),        // ISO 12
    ("0013", D::InvalidAmount),         // ISO 13
    ("0014", D::InvalidCard),           // ISO 14
    ("0041", D::LostOrStolen),          // ISO 41
    ("0043", D::LostOrStolen),          // ISO 43
    ("0051", D::InsufficientFunds),     // ISO 51
    ("0054", D::CardExpired),           // ISO 54
    ("0057", D::CardRestricted),        // ISO 57
    ("0058", D::CardRestricted),        // ISO 58
    ("0062", D::CardRestricted),        // ISO 62
    ("0065", D::LimitExceeded),         // ISO 65
];
