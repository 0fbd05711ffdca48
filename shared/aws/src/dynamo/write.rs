//! Conditional writes and transactions: sending them, and telling a failed condition from
//! any other failure.

use aws_sdk_dynamodb::{
    config::http::HttpResponse,
    error::{ProvideErrorMetadata, SdkError},
    operation::{
        put_item::{PutItemError, PutItemOutput},
        transact_write_items::TransactWriteItemsError,
        update_item::UpdateItemError,
    },
    types::{CancellationReason, Put, TransactWriteItem},
    Client,
};
use paygate_domain::StoreError;

use crate::dynamo::{error::unavailable, item::Item};

/// DynamoDB reason code of a failed condition inside a transaction.
pub(crate) const CONDITIONAL_CHECK_FAILED: &str = "ConditionalCheckFailed";
/// DynamoDB reason code of a transaction that collided with another one on the same item.
pub(crate) const TRANSACTION_CONFLICT: &str = "TransactionConflict";

/// The service error of a write that may carry a condition.
pub(crate) trait ConditionalWriteError:
    ProvideErrorMetadata + std::error::Error + 'static
{
    /// The write's condition expression was false.
    fn is_condition_failed(&self) -> bool;
}

impl ConditionalWriteError for PutItemError {
    fn is_condition_failed(&self) -> bool {
        self.is_conditional_check_failed_exception()
    }
}

impl ConditionalWriteError for UpdateItemError {
    fn is_condition_failed(&self) -> bool {
        self.is_conditional_check_failed_exception()
    }
}

/// The answer to a conditional `op` (`"PutItem"`, `"UpdateItem"`): its output, `None` when
/// the condition failed (nothing was written); any other failure is `StoreError::Unavailable`.
pub(crate) fn conditional<O, E: ConditionalWriteError>(
    op: &str,
    res: Result<O, SdkError<E, HttpResponse>>,
) -> Result<Option<O>, StoreError> {
    match res {
        Ok(out) => Ok(Some(out)),
        Err(e) if e.as_service_error().is_some_and(E::is_condition_failed) => Ok(None),
        Err(e) => Err(unavailable(op, &e)),
    }
}

/// Like [`conditional`], for a write whose failed condition is the error `failed`
/// (`StoreError::AlreadyExists`, a conflict, …).
pub(crate) fn conditional_or<O, E: ConditionalWriteError>(
    op: &str,
    res: Result<O, SdkError<E, HttpResponse>>,
    failed: StoreError,
) -> Result<(), StoreError> {
    conditional(op, res)?.map(drop).ok_or(failed)
}

/// Sends a transaction's `Put` on its own, as a `PutItem` (same item, condition and
/// return values).
pub(crate) async fn put_alone(
    client: &Client,
    put: Put,
) -> Result<PutItemOutput, SdkError<PutItemError, HttpResponse>> {
    client
        .put_item()
        .table_name(put.table_name)
        .set_item(Some(put.item))
        .set_condition_expression(put.condition_expression)
        .set_expression_attribute_names(put.expression_attribute_names)
        .set_expression_attribute_values(put.expression_attribute_values)
        .set_return_values_on_condition_check_failure(put.return_values_on_condition_check_failure)
        .send()
        .await
}

/// Why DynamoDB cancelled a transaction (nothing was written): one reason per item, in the
/// order the items were given.
#[derive(Debug)]
pub(crate) struct Cancelled {
    reasons: Vec<CancellationReason>,
}

impl Cancelled {
    /// The reason code of item `i`, if it has one (`None` for items that were fine).
    pub(crate) fn code(&self, i: usize) -> Option<&str> {
        self.reasons.get(i).and_then(|r| r.code())
    }

    /// Whether any item was cancelled for one of `codes`.
    pub(crate) fn any(&self, codes: &[&str]) -> bool {
        self.reasons
            .iter()
            .any(|r| r.code().is_some_and(|c| codes.contains(&c)))
    }

    /// The item `i` as it was, when its put asked for it on a failed condition.
    pub(crate) fn item(&self, i: usize) -> Option<&Item> {
        self.reasons.get(i).and_then(|r| r.item())
    }

    /// `StoreError::Unavailable` naming the reason codes: the transaction was cancelled, but
    /// not for anything the caller asks about (a throttle, say).
    pub(crate) fn unavailable(&self) -> StoreError {
        let codes: Vec<&str> = self.reasons.iter().filter_map(|r| r.code()).collect();
        StoreError::Unavailable(format!(
            "TransactWriteItems: cancelled ({})",
            codes.join(", ")
        ))
    }
}

/// A `ClientRequestToken` (≤ 36 characters) for one logical write: the same `parts` give the
/// same token, so a retry of that write — by the SDK or by us — is applied at most once by
/// DynamoDB (within its 10-minute idempotency window), while any other write gets another.
pub(crate) fn request_token(parts: &[&str]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0u8]);
    }
    hex::encode(&h.finalize()[..16])
}

/// Writes `puts` in one `TransactWriteItems` carrying `token` as its `ClientRequestToken`.
/// `Ok(Err(_))` when DynamoDB cancelled it, with the reasons; any other failure is
/// `StoreError::Unavailable`.
pub(crate) async fn transact_puts(
    client: &Client,
    token: String,
    puts: impl IntoIterator<Item = Put>,
) -> Result<Result<(), Cancelled>, StoreError> {
    let items = puts
        .into_iter()
        .map(|p| TransactWriteItem::builder().put(p).build());
    transact_items(client, token, items).await
}

/// [`transact_puts`] for items of any kind (puts and updates).
pub(crate) async fn transact_items(
    client: &Client,
    token: String,
    items: impl IntoIterator<Item = TransactWriteItem>,
) -> Result<Result<(), Cancelled>, StoreError> {
    let items = items.into_iter().collect();
    let err = match client
        .transact_write_items()
        .client_request_token(token)
        .set_transact_items(Some(items))
        .send()
        .await
    {
        Ok(_) => return Ok(Ok(())),
        Err(e) => e,
    };
    if let Some(TransactWriteItemsError::TransactionCanceledException(tc)) = err.as_service_error()
    {
        return Ok(Err(Cancelled {
            reasons: tc.cancellation_reasons().to_vec(),
        }));
    }
    Err(unavailable("TransactWriteItems", &err))
}

#[cfg(test)]
mod tests {
    use super::request_token;

    #[test]
    fn tokens_are_deterministic_distinct_and_short() {
        let a = request_token(&["pay_1", "3", "txn_1"]);
        assert_eq!(a, request_token(&["pay_1", "3", "txn_1"]));
        assert_ne!(a, request_token(&["pay_1", "4", "txn_1"]));
        assert_ne!(a, request_token(&["pay_1", "3txn_1"]));
        assert!(a.len() <= 36 && a.chars().all(|c| c.is_ascii_hexdigit()));
    }
}
