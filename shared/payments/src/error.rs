//! Everything an operation can answer besides success. The HTTP edge maps each variant to
//! one status and one stable code; nothing here carries internal error text to clients.

use paygate_domain::{DomainError, Operation, Payment, StoreError, Transaction};

#[derive(Debug, thiserror::Error)]
pub enum OpError {
    /// No such payment for this merchant and mode (or no such account).
    #[error("{0} not found")]
    NotFound(&'static str),
    /// A business rule refused it (state, amount, operation in flight or unknown).
    #[error(transparent)]
    Domain(#[from] DomainError),
    /// The payment's POS account does not support the operation; nothing was sent.
    #[error("the POS account does not support {}", operation.as_str())]
    Unsupported {
        operation: Operation,
        account_id: String,
    },
    /// The bank declined: payment unchanged, transaction recorded.
    #[error("the bank declined the operation")]
    Declined {
        payment: Box<Payment>,
        transaction: Box<Transaction>,
        after_cutoff: bool,
    },
    /// Technical error at the bank, or no answer (transaction `unknown`).
    #[error("the bank or provider failed")]
    Provider {
        payment: Box<Payment>,
        transaction: Box<Transaction>,
    },
    /// The account cannot be queried at its bank, so an operation the bank left unanswered
    /// could never be settled: money operations are refused on it up front.
    #[error("the POS account cannot be queried; {} refused", operation.as_str())]
    NotSettleable {
        operation: Operation,
        account_id: String,
    },
    /// The bank answered but its answer could not be recorded (the store kept failing).
    /// The reservation stays; the reconciler settles it from the bank's records. The
    /// operation must not be repeated.
    #[error("the bank's answer to {transaction_id} could not be recorded yet")]
    NotRecorded {
        transaction_id: paygate_domain::TransactionId,
    },
    /// The request's time left could not cover a bank call and the write of its answer:
    /// nothing was reserved or sent; the caller may retry.
    #[error("not enough time left for the bank call")]
    NoTimeLeft,
    /// The payment kept changing under us; the caller may retry.
    #[error("concurrent modification")]
    Contended,
    /// The request's `Idempotency-Key` was taken over by another request with the same key
    /// before anything was reserved: nothing was written or sent; that request answers.
    #[error("the idempotency key was taken over")]
    KeyTakenOver,
    /// A limit refused the request before anything was sent (the per-card limit of points
    /// inquiry), or could not be checked and fails closed.
    #[error("throttled: {0:?}")]
    Throttled(paygate_domain::throttle::Refused),
    /// No POS account of the merchant can serve this card.
    #[error("no POS account for the card's issuing bank")]
    NoAccountForCard,
    /// Request content the domain cannot accept (field, reason).
    #[error("invalid {field}: {reason}")]
    Invalid { field: &'static str, reason: String },
    /// A store or configuration failure; logged, answered as a generic 500.
    #[error("internal: {0}")]
    Internal(String),
}

impl OpError {
    /// Whether the operation reached the bank and is not settled yet: its outcome is unknown
    /// (no usable answer), or the bank's answer is not recorded yet. Such an answer is not
    /// the operation's final one.
    pub fn leaves_unsettled(&self) -> bool {
        match self {
            Self::NotRecorded { .. } => true,
            Self::Provider { transaction, .. } => !transaction.status.is_final(),
            _ => false,
        }
    }
}

impl From<StoreError> for OpError {
    fn from(e: StoreError) -> Self {
        Self::Internal(e.to_string())
    }
}
