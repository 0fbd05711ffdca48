//! The spec simulator's codes → stable decline codes ([`DeclineCode`]): the codes
//! `provider.rs` answers with (its trigger amounts and its book's refusals, Nestpay-like).

use paygate_domain::decline::DeclineCode;

use DeclineCode as D;

/// Bank code → stable code.
pub const TABLE: &[(&str, DeclineCode)] = &[
    ("51", D::InsufficientFunds), // DECLINE_AMOUNT: YETERSIZ BAKIYE
    ("91", D::BankUnavailable),   // ERROR_AMOUNT: an error answer, nothing moved
    ("96", D::BankUnavailable),   // the ledger failed before applying
    ("CORE-2008", D::NotFound),   // order not found, no sale eligible for void
    ("CORE-2012", D::NotFound),   // no open pre-auth for the order
    ("CORE-2502", D::NotFound),   // no sale eligible for refund
    ("CORE-2504", D::AmountExceedsOriginal), // refund above the remaining amount
];
