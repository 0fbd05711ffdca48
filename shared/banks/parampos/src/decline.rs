//! Param TurkPOS: the bank's codes → stable decline codes ([`DeclineCode`]), read by the kit's
//! adapter through `Protocol::DECLINE_CODES`. A code not named here falls back to the kit's
//! shared tables (`paygate_bankkit::decline`: ISO 8583 two-digit host codes, the kit's own
//! codes); none at all is `unclassified`. An unknown outcome is `outcome_unknown` whatever its
//! code, and a cancel refused for the end-of-day cut is `after_end_of_day`, so neither needs a
//! line here.
//!
//! Sources: this crate's README "Param's codes → outcome" (dev.param.com.tr "Hata Kodları",
//! `/en/hata-kodlari`; MEWS `ParamPosResponseDataMapper`). `-1` is the acquirer's decline;
//! its ISO 8583 code is in `Banka_Sonuc_Kod`.

use paygate_domain::decline::DeclineCode;

use DeclineCode as D;

/// Bank code → stable code.
pub const TABLE: &[(&str, DeclineCode)] = &[
    ("-1", D::DoNotHonor),             // Unsuccessful (the bank's decline)
    ("-100", D::InvalidCredentials),   // account not found
    ("-112", D::InvalidAmount),        // amount with a dot
    ("-113", D::InvalidAmount),        // amount ≤ 0
    ("-208", D::InvalidCard),          // POS type or card not found
    ("-209", D::NotFound),             // transaction information not found
    ("-210", D::NotFound),             // no transaction for the cancellation/refund
    ("-211", D::AlreadyReversed),      // status: cancelled
    ("-212", D::AlreadyReversed),      // status: refunded
    ("-213", D::RefundBeforeEndOfDay), // cancel it instead (same day)
    ("-214", D::AfterEndOfDay),        // refund it instead (after the day)
];
