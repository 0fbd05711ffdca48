//! The error envelope: `{"error": {"code", "message", "details"?}}`. Every error a client can
//! see is built here, with a stable code; internal error text is logged, never returned.

use lambda_http::{http::StatusCode, Body, Response};
use paygate_domain::error::code;
use paygate_domain::{throttle::Refused, DeclineCode, DomainError, Lang, Payment, Transaction};
use paygate_payments::{AuthError, OpError};
use serde_json::{json, Value};

#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub details: Option<Value>,
    /// `Retry-After` (whole seconds), for the answers that say when to retry.
    pub retry_after_secs: Option<u32>,
    /// The message in Turkish, for an answer that has one (`Accept-Language: tr`).
    pub turkish: Option<&'static str>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            details: None,
            retry_after_secs: None,
            turkish: None,
        }
    }

    /// With `message` as the answer's Turkish text.
    pub fn with_turkish(mut self, message: &'static str) -> Self {
        self.turkish = Some(message);
        self
    }

    /// With a `Retry-After` header of `secs` (at least 1).
    pub fn with_retry_after(mut self, secs: u32) -> Self {
        self.retry_after_secs = Some(secs.max(1));
        self
    }

    /// 429 `rate_limited` or 503 `rate_limit_unavailable`, with `Retry-After`. The text
    /// names no limit: a refusal by the per-card limit must read like any other, so that it
    /// tells a merchant nothing of the card's use elsewhere.
    pub fn refused(refused: Refused) -> Self {
        match refused {
            Refused::Limited { retry_after_secs } => Self::new(
                StatusCode::TOO_MANY_REQUESTS,
                code::RATE_LIMITED,
                format!(
                    "Too many requests. Retry after {retry_after_secs} second(s) (see the Retry-After header)."
                ),
            )
            .with_retry_after(retry_after_secs),
            Refused::Unchecked { retry_after_secs } => Self::new(
                StatusCode::SERVICE_UNAVAILABLE,
                code::RATE_LIMIT_UNAVAILABLE,
                format!(
                    "This request's rate limit cannot be checked right now, so it was not run (nothing was sent to the bank). Retry after {retry_after_secs} second(s) (see the Retry-After header)."
                ),
            )
            .with_retry_after(retry_after_secs),
        }
    }

    /// The answer in `lang`: a bank outcome's error (its details carry a `declineCode`)
    /// gets that code's message in Turkish when asked, an error with its own Turkish text
    /// ([`ApiError::with_turkish`]) that text; every other error stays as it is.
    pub fn localized(mut self, lang: Lang) -> Self {
        let code = self
            .details
            .as_ref()
            .and_then(|d| d.get("declineCode"))
            .and_then(Value::as_str)
            .and_then(DeclineCode::parse);
        match (lang, code, self.turkish) {
            (Lang::Tr, Some(code), _) => self.message = code.message(Lang::Tr).to_owned(),
            (Lang::Tr, None, Some(tr)) => self.message = tr.to_owned(),
            _ => {}
        }
        self
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// 400 `invalid_request`, naming the offending field.
    pub fn invalid(field: &str, reason: &str) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            code::INVALID_REQUEST,
            format!("Invalid request: `{field}` {reason}."),
        )
        .with_details(json!({ "field": field }))
    }

    pub fn not_found(what: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            code::NOT_FOUND,
            format!("No such {what}."),
        )
    }

    pub fn internal() -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            code::INTERNAL_ERROR,
            "An internal error occurred. The request may be retried; if it moved money, query the payment first.",
        )
    }

    pub fn unauthorized(message: &str) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, code::UNAUTHORIZED, message)
    }

    pub fn body(&self) -> Value {
        let mut err = json!({ "code": self.code, "message": self.message });
        if let (Some(d), Some(obj)) = (&self.details, err.as_object_mut()) {
            obj.insert("details".into(), d.clone());
        }
        json!({ "error": err })
    }

    pub fn into_response(self) -> Response<Body> {
        let mut resp = crate::respond::json(self.status, &self.body());
        if let Some(secs) = self.retry_after_secs {
            resp.headers_mut().insert(
                crate::throttle::RETRY_AFTER_HEADER,
                lambda_http::http::HeaderValue::from(secs.max(1)),
            );
        }
        resp
    }
}

impl From<AuthError> for ApiError {
    fn from(e: AuthError) -> Self {
        match e {
            AuthError::Missing => Self::unauthorized(
                "No API key provided. Send `Authorization: Bearer sk_test_…` or `sk_live_…`.",
            ),
            AuthError::Invalid => Self::unauthorized("Invalid API key."),
            AuthError::Unavailable => Self::internal(),
        }
    }
}

fn provider_details(payment: &Payment, transaction: &Transaction) -> Value {
    json!({ "payment": payment.view(), "transaction": transaction })
}

/// A bank outcome's details: the payment and transaction, and beside them the stable
/// `declineCode` (the transaction's, else `fallback`), whether the same operation may be
/// sent again (`retryable`), and the bank's own code (`bankCode`).
fn bank_outcome_details(
    payment: &Payment,
    transaction: &Transaction,
    fallback: DeclineCode,
) -> Value {
    let code = transaction.decline_code.unwrap_or(fallback);
    let mut details = provider_details(payment, transaction);
    if let Some(o) = details.as_object_mut() {
        o.insert("declineCode".into(), json!(code));
        o.insert("retryable".into(), json!(code.retryable()));
        o.insert("bankCode".into(), json!(transaction.bank_code));
    }
    details
}

impl From<DomainError> for ApiError {
    fn from(e: DomainError) -> Self {
        use StatusCode as S;
        match e {
            DomainError::InvalidState { status, operation } => Self::new(
                S::CONFLICT,
                code::INVALID_STATE,
                format!("Cannot {operation} a payment whose status is {status}."),
            )
            .with_details(json!({ "status": status, "operation": operation })),
            DomainError::OperationInProgress { transaction_id } => Self::new(
                S::CONFLICT,
                code::OPERATION_IN_PROGRESS,
                "Another operation on this payment is at the bank right now. Retry shortly.",
            )
            .with_details(json!({ "transactionId": transaction_id })),
            DomainError::OperationOutcomeUnknown { transaction_id } => Self::new(
                S::CONFLICT,
                code::OPERATION_OUTCOME_UNKNOWN,
                "A previous operation on this payment got no answer from the bank. Call POST /v1/payments/{id}/query to settle it before trying again.",
            )
            .with_details(json!({ "transactionId": transaction_id })),
            DomainError::AmountExceedsAuthorized { max } => Self::new(
                S::BAD_REQUEST,
                code::AMOUNT_EXCEEDS_AUTHORIZED,
                format!("Amount exceeds the authorized amount ({max})."),
            )
            .with_details(json!({ "field": "amount", "maxAmount": max })),
            DomainError::AmountExceedsRefundable { refundable } => Self::new(
                S::BAD_REQUEST,
                code::AMOUNT_EXCEEDS_REFUNDABLE,
                format!("Amount exceeds the refundable amount ({refundable})."),
            )
            .with_details(json!({ "field": "amount", "refundableAmount": refundable })),
            DomainError::InvalidAmount => invalid_amount(),
            DomainError::NothingPending => Self::internal(),
        }
    }
}

impl ApiError {
    /// 409 for a request whose `Idempotency-Key` is bound to a transaction that is not
    /// settled yet: `operation_outcome_unknown` (`unknown`) or `operation_in_progress`.
    pub fn bound_unsettled(transaction_id: &paygate_domain::TransactionId, unknown: bool) -> Self {
        let (code, message) = if unknown {
            (
                code::OPERATION_OUTCOME_UNKNOWN,
                "This Idempotency-Key's operation reached the bank, and its outcome is not known yet. It will not be sent again: it is settled from the bank's records (POST /v1/payments/{id}/query settles it now). Retry with the same key to get its final answer.",
            )
        } else {
            (
                code::OPERATION_IN_PROGRESS,
                "This Idempotency-Key's operation is at the bank right now. It will not be sent again: retry with the same key shortly to get its answer.",
            )
        };
        Self::new(StatusCode::CONFLICT, code, message).with_details(json!({
            "transactionId": transaction_id,
            "idempotencyKey": "bound",
        }))
    }
}

/// 400 `invalid_amount`.
pub fn invalid_amount() -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        code::INVALID_AMOUNT,
        format!(
            "Amount must be a positive integer in minor units, at most {}.",
            paygate_domain::MAX_AMOUNT
        ),
    )
    .with_details(json!({ "field": "amount" }))
}

/// 400 `operation_not_supported`.
fn not_supported(message: String, details: Value) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        code::OPERATION_NOT_SUPPORTED,
        message,
    )
    .with_details(details)
}

impl From<OpError> for ApiError {
    fn from(e: OpError) -> Self {
        use StatusCode as S;
        match e {
            OpError::NotFound(what) => Self::not_found(what),
            OpError::Domain(d) => d.into(),
            OpError::Unsupported {
                operation,
                account_id,
            } => {
                let message = format!(
                    "The POS account {account_id} does not support {}.",
                    operation.as_str()
                );
                not_supported(message, json!({ "operation": operation, "accountId": account_id }))
            }
            OpError::Declined {
                payment,
                transaction,
                after_cutoff,
            } => {
                let fallback = if after_cutoff {
                    DeclineCode::AfterEndOfDay
                } else {
                    DeclineCode::Unclassified
                };
                let mut details = bank_outcome_details(&payment, &transaction, fallback);
                let message = if after_cutoff {
                    if let Some(o) = details.as_object_mut() {
                        o.insert("suggestedOperation".into(), json!("refund"));
                    }
                    "The bank declined the cancel: its end-of-day cut has passed. Refund the payment instead.".to_owned()
                } else {
                    format!(
                        "The bank declined the operation (code {}).",
                        transaction.bank_code
                    )
                };
                Self::new(S::UNPROCESSABLE_ENTITY, code::PROVIDER_DECLINED, message)
                    .with_details(details)
            }
            OpError::Provider {
                payment,
                transaction,
            } => {
                let (message, fallback) = if payment.pending.is_some() {
                    ("The bank's answer did not settle the outcome (none came in time, or it does not say whether the operation was applied); it is unknown. Query the payment to settle it.", DeclineCode::OutcomeUnknown)
                } else {
                    ("The bank or provider reported a technical error; nothing was changed.", DeclineCode::Unclassified)
                };
                Self::new(S::UNPROCESSABLE_ENTITY, code::PROVIDER_ERROR, message)
                    .with_details(bank_outcome_details(&payment, &transaction, fallback))
            }
            OpError::NotSettleable {
                operation,
                account_id,
            } => {
                let message = format!(
                    "The POS account {account_id} does not support status queries, which the gateway needs to settle an operation the bank leaves unanswered; {} is refused on it.",
                    operation.as_str()
                );
                let details = json!({
                    "operation": operation,
                    "accountId": account_id,
                    "reason": "query_not_supported",
                });
                not_supported(message, details)
            }
            OpError::NotRecorded { transaction_id } => Self::new(
                S::SERVICE_UNAVAILABLE,
                code::OPERATION_NOT_RECORDED,
                "The bank answered, but the answer could not be recorded yet. Do not repeat the operation: it will be settled from the bank's records automatically; read the payment (GET /v1/payments/{id}) to see the result.",
            )
            .with_details(json!({ "transactionId": transaction_id })),
            OpError::Contended => Self::new(
                S::CONFLICT,
                code::CONCURRENT_MODIFICATION,
                "The payment was changed by another request. Retry.",
            ),
            OpError::KeyTakenOver => crate::idempotency::key_in_use(),
            OpError::NoTimeLeft => Self::new(
                S::SERVICE_UNAVAILABLE,
                code::SERVICE_UNAVAILABLE,
                "Not enough time was left in this request to reach the bank and record its answer. Nothing was sent to the bank; retry.",
            ),
            OpError::NoAccountForCard => Self::new(
                S::BAD_REQUEST,
                code::NO_ACCOUNT_FOR_CARD,
                "No POS account of yours is at the card's issuing bank. Pass accountId.",
            ),
            OpError::Invalid { field, reason } => Self::invalid(field, &reason),
            OpError::Throttled(refused) => Self::refused(refused),
            OpError::Internal(msg) => {
                tracing::error!(error = %msg, "internal error");
                Self::internal()
            }
        }
    }
}
