//! Kuveyt Türk (TDV2): the bank's codes → stable decline codes ([`DeclineCode`]), read by the kit's
//! adapter through `Protocol::DECLINE_CODES`. A code not named here falls back to the kit's
//! shared tables (`paygate_bankkit::decline`: ISO 8583 two-digit host codes, the kit's own
//! codes); none at all is `unclassified`. An unknown outcome is `outcome_unknown` whatever its
//! code, and a cancel refused for the end-of-day cut is `after_end_of_day`, so neither needs a
//! line here.
//!
//! Sources: this crate's README "Code → outcome" (MEWS fixtures and tests; mewebstudio/pos
//! issue #204) and the simulator's rules (`src/sim`).

use paygate_domain::decline::DeclineCode;

use DeclineCode as D;

/// Bank code → stable code.
pub const TABLE: &[(&str, DeclineCode)] = &[
    ("HashDataError", D::InvalidCredentials),     // hash refused
    ("ApiUserNotDefined", D::InvalidCredentials), // API user unknown
    ("EmptyMDException", D::InvalidRequest),
    ("21", D::AlreadyReversed), // İşlem daha önce iptal edilmiştir (not ISO 21)
    ("28", D::AlreadyReversed), // İptal Edilen İşlem İade Yapılamaz (not ISO 28)
    (
        "TransactionAmountMismatchException",
        D::AmountExceedsOriginal,
    ), // DrawBack not of the sale amount
    ("DbLayerError", D::RefundBeforeEndOfDay), // the same-day refund rules (a business result)
    ("InvalidRequestError", D::InvalidRequest), // simulator texts; past the day: after_end_of_day
];
