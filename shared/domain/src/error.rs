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
    /// A keyed reservation could not bind its `Idempotency-Key`: the key is no longer the
    /// request's lock (another request took it over). Nothing was written.
    #[error("the idempotency key is no longer this request's")]
    KeyClaimLost,
}

/// Every error code the API answers with (the `error.code` of the envelope), merchant and
/// admin routes alike: the one set, used by the edge that answers them and by the
/// idempotency rule that decides which answers are stored.
pub mod code {
    pub const INVALID_REQUEST: &str = "invalid_request";
    pub const NOT_FOUND: &str = "not_found";
    pub const INTERNAL_ERROR: &str = "internal_error";
    pub const UNAUTHORIZED: &str = "unauthorized";
    pub const INVALID_STATE: &str = "invalid_state";
    pub const OPERATION_IN_PROGRESS: &str = "operation_in_progress";
    pub const OPERATION_OUTCOME_UNKNOWN: &str = "operation_outcome_unknown";
    pub const AMOUNT_EXCEEDS_AUTHORIZED: &str = "amount_exceeds_authorized";
    pub const AMOUNT_EXCEEDS_REFUNDABLE: &str = "amount_exceeds_refundable";
    pub const INVALID_AMOUNT: &str = "invalid_amount";
    pub const OPERATION_NOT_SUPPORTED: &str = "operation_not_supported";
    pub const PROVIDER_DECLINED: &str = "provider_declined";
    pub const PROVIDER_ERROR: &str = "provider_error";
    pub const OPERATION_NOT_RECORDED: &str = "operation_not_recorded";
    pub const CONCURRENT_MODIFICATION: &str = "concurrent_modification";
    pub const NO_ACCOUNT_FOR_CARD: &str = "no_account_for_card";
    pub const UNSUPPORTED_MEDIA_TYPE: &str = "unsupported_media_type";
    pub const REQUEST_TOO_LARGE: &str = "request_too_large";
    pub const INVALID_IDEMPOTENCY_KEY: &str = "invalid_idempotency_key";
    pub const IDEMPOTENCY_KEY_REUSED: &str = "idempotency_key_reused";
    pub const IDEMPOTENCY_KEY_IN_USE: &str = "idempotency_key_in_use";
    pub const ENDPOINT_LIMIT_REACHED: &str = "endpoint_limit_reached";
    pub const ENDPOINT_DISABLED: &str = "endpoint_disabled";
    pub const DELIVERY_PENDING: &str = "delivery_pending";
    pub const API_KEY_INACTIVE: &str = "api_key_inactive";
    pub const API_KEY_LIMIT_REACHED: &str = "api_key_limit_reached";
    /// 409: a roll of a key that was rolled already (it is expiring); issue a new key instead.
    pub const API_KEY_ALREADY_ROLLED: &str = "api_key_already_rolled";
    pub const RATE_LIMITED: &str = "rate_limited";
    /// 503: the request's rate limit could not be checked and its scope fails closed
    /// (points inquiry, `paygate_domain::throttle::Scope::fails_closed`); nothing was run.
    pub const RATE_LIMIT_UNAVAILABLE: &str = "rate_limit_unavailable";
    pub const SERVICE_UNAVAILABLE: &str = "service_unavailable";
    /// 503 (admin writes): the audit record could not be written first, so nothing was done.
    pub const AUDIT_UNAVAILABLE: &str = "audit_unavailable";
}
