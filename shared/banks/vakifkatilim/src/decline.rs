//! Vakıf Katılım (BOA): the bank's codes → stable decline codes ([`DeclineCode`]), read by the kit's
//! adapter through `Protocol::DECLINE_CODES`. A code not named here falls back to the kit's
//! shared tables (`paygate_bankkit::decline`: ISO 8583 two-digit host codes, the kit's own
//! codes); none at all is `unclassified`. An unknown outcome is `outcome_unknown` whatever its
//! code, and a cancel refused for the end-of-day cut is `after_end_of_day`, so neither needs a
//! line here.
//!
//! Sources: this crate's README "Code → outcome" (MEWS fixtures and codes) and the simulator's
//! code table (`src/sim`); `refund_before_end_of_day` / `cancel_after_end_of_day` and the
//! other snake_case codes are this crate's refusals made before sending.

use paygate_domain::decline::DeclineCode;

use DeclineCode as D;

/// Bank code → stable code.
pub const TABLE: &[(&str, DeclineCode)] = &[
    ("OrderDataNotFound", D::NotFound), // islem bilgisi bulunamadi
    ("NonResult", D::NotFound),         // Kriterlere uygun sonuc bulunmamaktadir
    ("CardNotEnrolled", D::CardRestricted),
    ("MPIAuthenticationStatusN", D::DoNotHonor),
    ("MerchantNotDefined", D::InvalidCredentials), // Uye isyeri kullanici tanimi bulunamadi
    ("HashDataError", D::InvalidCredentials),
    ("EndOfDayCompleted", D::AfterEndOfDay), // reversal past the cut
    ("EndOfDayNotCompleted", D::RefundBeforeEndOfDay), // refund on the sale's day
    ("InvalidTransaction", D::NotFound),     // nothing to close/reverse/refund
    ("InvalidAmount", D::InvalidAmount),
    ("InvalidRequest", D::InvalidRequest),
    ("refund_before_end_of_day", D::RefundBeforeEndOfDay), // this crate
    ("cancel_after_end_of_day", D::AfterEndOfDay),         // this crate
    ("no_open_preauthorization", D::NotFound),             // this crate
    ("amount_above_preauthorization", D::AmountExceedsOriginal), // this crate
    ("amount_above_remaining", D::AmountExceedsOriginal),  // this crate
    ("not_cancellable", D::OperationNotPermitted),         // this crate
    ("not_refundable", D::OperationNotPermitted),          // this crate
];
