//! Domain and store errors. The HTTP edge maps each variant to one stable error code.

use crate::{ids::TransactionId, payment::Payment, PaymentStatus};

/// A business rule refused the request. Decided in pure code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DomainError {
    /// The spec's permission table does not allow this operation in this status.
    #[error("{operation} is not allowed while the payment is {status}")]
    InvalidState {
        status: PaymentStatus,
        operation: &'static str,
    },
    /// Another money-moving operation on this payment is at the bank right now.
    #[error("another operation ({transaction_id}) is in progress on this payment")]
    OperationInProgress { transaction_id: TransactionId },
    /// A previous operation got no answer from the bank; `query` settles it first.
    #[error("the outcome of {transaction_id} is unknown; query the payment to settle it")]
    OperationOutcomeUnknown { transaction_id: TransactionId },
    /// Partial capture above the pre-authorised amount.
    #[error("amount exceeds the authorized amount ({max})")]
    AmountExceedsAuthorized { max: i64 },
    /// Refund above what is left to refund.
    #[error("amount exceeds the refundable amount ({refundable})")]
    AmountExceedsRefundable { refundable: i64 },
    /// Amount not positive or above the gateway's maximum.
    #[error("amount must be a positive integer of minor units, at most the maximum")]
    InvalidAmount,
    /// Settling was asked for a payment with no operation pending (a bug in the caller).
    #[error("no operation is pending on this payment")]
    NothingPending,
}

/// A persistence port failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// A conditional write lost: the item changed since it was read. Carries the item as it
    /// is now, when the store returned it.
    #[error("conditional write failed")]
    Conflict { current: Option<Box<Payment>> },
    /// The item to create exists already.
    #[error("item already exists")]
    AlreadyExists,
    /// The store could not be reached or refused the call.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// An item could not be read back into the domain model.
    #[error("corrupt item: {0}")]
    Corrupt(String),
}
