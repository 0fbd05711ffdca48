//! `POST /v1/payments/{id}/reverse`: whether a reversal is a void (cancel) or a refund, and
//! when a void refused past the bank's end-of-day cut falls back to a refund. Pure: the
//! payment as read, whether its account can void, the bank's recorded answer.
//!
//! - authorized: a void of the hold (the amount absent or the full amount);
//! - captured, the full captured amount, nothing refunded, the account can void: a void,
//!   with one fall-back to a full refund if the bank declines it as past the cut;
//! - otherwise (a partial amount, a payment already partly refunded, an account that cannot
//!   void): a refund directly.
//!
//! The refund of a fall-back is tried only after a void *conclusively* declined for the cut
//! ([`falls_back`]): an unknown void, or any other refusal, ends the reversal there, so money
//! never moves twice.

use serde::{Deserialize, Serialize};

use crate::{
    decline::DeclineCode,
    error::DomainError,
    ids::TransactionId,
    payment::{Payment, PaymentStatus},
    transaction::{Transaction, TransactionStatus, TransactionType},
};

/// What a reversal became: the answer's `reversal` object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reversal {
    /// `cancel` (a void at the bank) or `refund`.
    #[serde(rename = "type")]
    pub kind: TransactionType,
    /// A refund because the bank's end-of-day cut had passed (the void was refused for it).
    pub after_settlement: bool,
}

impl Reversal {
    pub const VOID: Self = Self {
        kind: TransactionType::Cancel,
        after_settlement: false,
    };
    pub const REFUND: Self = Self {
        kind: TransactionType::Refund,
        after_settlement: false,
    };
    pub const REFUND_AFTER_CUT: Self = Self {
        kind: TransactionType::Refund,
        after_settlement: true,
    };
}

/// The first (and usually only) step of a reversal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReversalPlan {
    /// A void; `fallback`: a void refused past the cut becomes a full refund.
    Void { fallback: bool },
    /// A refund of `amount` (absent: what is left to refund).
    Refund { amount: Option<i64> },
}

/// Decides the first step of reversing `payment` by `amount` (absent: all of it), on an
/// account that can (`can_void`) or cannot void. States the permission table refuses are
/// left to the operation's own plan (a refund's `invalid_state`).
pub fn plan_reversal(
    payment: &Payment,
    amount: Option<i64>,
    can_void: bool,
) -> Result<ReversalPlan, DomainError> {
    match payment.status {
        PaymentStatus::Authorized => {
            // A hold is voided whole; there is no partial void of an authorization.
            if amount.is_some_and(|a| a != payment.amount) {
                return Err(DomainError::InvalidState {
                    status: payment.status,
                    operation: "partial reverse",
                });
            }
            Ok(ReversalPlan::Void { fallback: false })
        }
        PaymentStatus::Captured
            if can_void
                && payment.refunded_amount == 0
                && amount.is_none_or(|a| a == payment.captured_amount) =>
        {
            Ok(ReversalPlan::Void { fallback: true })
        }
        _ => Ok(ReversalPlan::Refund { amount }),
    }
}

/// Whether a void's recorded transaction lets the reversal go on to a refund: it was
/// declined (nothing moved) and the refusal was the end-of-day cut's.
pub fn falls_back(void: &Transaction) -> bool {
    void.kind == TransactionType::Cancel
        && void.status == TransactionStatus::Declined
        && void.decline_code == Some(DeclineCode::AfterEndOfDay)
}

/// The id of the refund a reversal falls back to after the void `void_id`: derived, so a
/// later request with the reversal's `Idempotency-Key` (bound to the void) finds it.
/// Generated ids are lowercase, so the uppercase suffix is never another transaction's id.
pub fn fallback_refund_id(void_id: &TransactionId) -> Option<TransactionId> {
    TransactionId::parse(&format!("{}R", void_id.as_str())).ok()
}

#[cfg(test)]
#[path = "reversal_tests.rs"]
mod tests;
