//! Denizbank InterVPOS: the bank's codes → stable decline codes ([`DeclineCode`]), read by the kit's
//! adapter through `Protocol::DECLINE_CODES`. A code not named here falls back to the kit's
//! shared tables (`paygate_bankkit::decline`: ISO 8583 two-digit host codes, the kit's own
//! codes); none at all is `unclassified`. An unknown outcome is `outcome_unknown` whatever its
//! code, and a cancel refused for the end-of-day cut is `after_end_of_day`, so neither needs a
//! line here.
//!
//! Sources: this crate's README "Code → outcome" (MEWS `InterPosResponseDataMapper` + tests, the
//! .NET facilitator code) and the simulator's code table (`src/sim`); the bank code is the
//! answer's `ErrorCode`.

use paygate_domain::decline::DeclineCode;

use DeclineCode as D;

/// Bank code → stable code.
pub const TABLE: &[(&str, DeclineCode)] = &[
    ("B810002", D::InvalidCredentials),    // Terminal Aktif Degil
    ("B810005", D::OperationNotPermitted), // Bonus sorgu yetkisi yok
    ("E02", D::InvalidRequest),            // Gecersiz islem tipi
    ("E31", D::NotFound),                  // Kapatilacak on provizyon yok
    ("E32", D::AmountExceedsOriginal),     // Tutar provizyon tutarini asiyor
    ("E33", D::InvalidAmount),             // Tutar gecersiz
    ("E34", D::InvalidRequest),            // Para birimi uyusmuyor
    ("E39", D::NotFound),                  // Islem bulunamadi
    ("E40", D::AlreadyReversed),           // Iptal edilecek islem yok (voided, refunded)
    ("E42", D::RefundBeforeEndOfDay),      // Gun sonu yapilmamis islem iade edilemez
    ("E43", D::AmountExceedsOriginal),     // Iade tutari kalan tutari asiyor
    ("E44", D::NotFound),                  // Iade edilecek satis yok
    ("E51", D::CardRestricted),            // Kart Bonus programina dahil degil
];
