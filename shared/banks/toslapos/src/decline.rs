//! Tosla: the bank's codes → stable decline codes ([`DeclineCode`]), read by the kit's
//! adapter through `Protocol::DECLINE_CODES`. A code not named here falls back to the kit's
//! shared tables (`paygate_bankkit::decline`: ISO 8583 two-digit host codes, the kit's own
//! codes); none at all is `unclassified`. An unknown outcome is `outcome_unknown` whatever its
//! code, and a cancel refused for the end-of-day cut is `after_end_of_day`, so neither needs a
//! line here.
//!
//! Sources: this crate's README "Code → outcome" (MEWS `ToslaPosResponseDataMapperTest` fixtures)
//! and the simulator's code table (`src/sim`).

use paygate_domain::decline::DeclineCode;

use DeclineCode as D;

/// Bank code → stable code.
pub const TABLE: &[(&str, DeclineCode)] = &[
    ("997", D::InvalidCredentials), // Hash Hatası
    ("998", D::InvalidRequest),     // Validasyon Hatası
    ("101", D::NotFound),           // Orjinal Kayıt Bulunamadı
];
