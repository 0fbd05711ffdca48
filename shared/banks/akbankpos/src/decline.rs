//! Akbank POS (JSON): the bank's codes → stable decline codes ([`DeclineCode`]), read by the kit's
//! adapter through `Protocol::DECLINE_CODES`. A code not named here falls back to the kit's
//! shared tables (`paygate_bankkit::decline`: ISO 8583 two-digit host codes, the kit's own
//! codes); none at all is `unclassified`. An unknown outcome is `outcome_unknown` whatever its
//! code, and a cancel refused for the end-of-day cut is `after_end_of_day`, so neither needs a
//! line here.
//!
//! Sources: this crate's README "Code → outcome" (MEWS `AkbankPosResponseDataMapperTest` fixtures;
//! reference notes `pos-protocols.md` §2.6) and the simulator's code table (`src/sim`); a
//! host decline under `VPS-1005` carries its ISO 8583 host code.

use paygate_domain::decline::DeclineCode;

use DeclineCode as D;

/// Bank code → stable code.
pub const TABLE: &[(&str, DeclineCode)] = &[
    ("VPS-1073", D::InvalidRequest),        // invalid request date
    ("VPS-1008", D::AlreadyReversed),       // Daha önce iptal edilmiş işlem
    ("VPS-1007", D::NotFound),              // Orijinal işlem bulunamadı
    ("VPS-1013", D::DuplicateOrder),        // duplicate order
    ("VPS-1123", D::NotFound),              // İşlem bulunamadı
    ("VPS-1999", D::AmountExceedsOriginal), // Geçersiz tutar (simulator: above the pre-auth or the remaining)
    ("VPS-1005", D::DoNotHonor),            // Provizyon Hatası without a host code
];
