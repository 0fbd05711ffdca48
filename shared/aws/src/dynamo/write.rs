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
    types::{AttributeValue, CancellationReason, Put, TransactWriteItem},
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

/// The `ClientRequestToken` (32 hex characters) of a transaction: a digest of `label` and
/// of everything the transaction sends (tables, keys, items, expressions and their values,
/// in a canonical order). A resend of the same write — by the SDK, whose retries reuse the
/// built request, or by our own retry loops, which rebuild it from the same change — carries
/// the same token and is applied at most once by DynamoDB (within its 10-minute window).
/// Two writers that send different writes never share one: had the token named only the
/// operation (payment, version, transaction), a second settler of the same outcome a
/// moment later would be refused with `IdempotentParameterMismatch` for ten minutes instead
/// of meeting the first one's write through its condition. Two writers that send exactly
/// the same write are one write.
pub(crate) fn transaction_token(label: &str, items: &[TransactWriteItem]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    feed(&mut h, b'#', label.as_bytes());
    for item in items {
        if let Some(p) = item.put() {
            feed(&mut h, b'P', p.table_name().as_bytes());
            feed_map(&mut h, p.item());
            feed_expressions(
                &mut h,
                &[p.condition_expression()],
                p.expression_attribute_names(),
                p.expression_attribute_values(),
            );
            let rv = p.return_values_on_condition_check_failure();
            feed(&mut h, b'r', rv.map_or("", |r| r.as_str()).as_bytes());
        }
        if let Some(u) = item.update() {
            feed(&mut h, b'U', u.table_name().as_bytes());
            feed_map(&mut h, u.key());
            feed_expressions(
                &mut h,
                &[Some(u.update_expression()), u.condition_expression()],
                u.expression_attribute_names(),
                u.expression_attribute_values(),
            );
            let rv = u.return_values_on_condition_check_failure();
            feed(&mut h, b'r', rv.map_or("", |r| r.as_str()).as_bytes());
        }
        if let Some(d) = item.delete() {
            feed(&mut h, b'D', d.table_name().as_bytes());
            feed_map(&mut h, d.key());
            feed_expressions(
                &mut h,
                &[d.condition_expression()],
                d.expression_attribute_names(),
                d.expression_attribute_values(),
            );
        }
        if let Some(c) = item.condition_check() {
            feed(&mut h, b'C', c.table_name().as_bytes());
            feed_map(&mut h, c.key());
            feed_expressions(
                &mut h,
                &[Some(c.condition_expression())],
                c.expression_attribute_names(),
                c.expression_attribute_values(),
            );
        }
    }
    hex::encode(&h.finalize()[..16])
}

/// One tagged, length-prefixed field of the digest (no two encodings run together).
fn feed(h: &mut sha2::Sha256, tag: u8, bytes: &[u8]) {
    use sha2::Digest;
    h.update([tag]);
    h.update(u64::try_from(bytes.len()).unwrap_or(u64::MAX).to_be_bytes());
    h.update(bytes);
}

fn feed_len(h: &mut sha2::Sha256, tag: u8, len: usize) {
    feed(
        h,
        tag,
        &u64::try_from(len).unwrap_or(u64::MAX).to_be_bytes(),
    );
}

fn feed_expressions(
    h: &mut sha2::Sha256,
    expressions: &[Option<&str>],
    names: Option<&std::collections::HashMap<String, String>>,
    values: Option<&Item>,
) {
    for e in expressions {
        feed(h, b'e', e.unwrap_or("").as_bytes());
    }
    let mut names: Vec<(&String, &String)> = names.into_iter().flatten().collect();
    names.sort();
    feed_len(h, b'n', names.len());
    for (k, v) in names {
        feed(h, b'k', k.as_bytes());
        feed(h, b'v', v.as_bytes());
    }
    match values {
        Some(v) => feed_map(h, v),
        None => feed_len(h, b'M', 0),
    }
}

/// A map of attribute values, keys in order.
fn feed_map(h: &mut sha2::Sha256, map: &Item) {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    feed_len(h, b'M', keys.len());
    for k in keys {
        feed(h, b'k', k.as_bytes());
        if let Some(v) = map.get(k) {
            feed_value(h, v);
        }
    }
}

fn feed_value(h: &mut sha2::Sha256, v: &AttributeValue) {
    let sorted = |mut v: Vec<Vec<u8>>| {
        v.sort();
        v
    };
    let set = |h: &mut sha2::Sha256, tag: u8, members: Vec<Vec<u8>>| {
        feed_len(h, tag, members.len());
        for m in sorted(members) {
            feed(h, b'.', &m);
        }
    };
    match v {
        AttributeValue::S(s) => feed(h, b'S', s.as_bytes()),
        AttributeValue::N(n) => feed(h, b'N', n.as_bytes()),
        AttributeValue::B(b) => feed(h, b'B', b.as_ref()),
        AttributeValue::Bool(b) => feed(h, b'?', &[u8::from(*b)]),
        AttributeValue::Null(_) => feed(h, b'0', &[]),
        AttributeValue::M(m) => feed_map(h, m),
        AttributeValue::L(l) => {
            feed_len(h, b'L', l.len());
            for x in l {
                feed_value(h, x);
            }
        }
        AttributeValue::Ss(v) => set(h, b's', v.iter().map(|x| x.as_bytes().to_vec()).collect()),
        AttributeValue::Ns(v) => set(h, b'n', v.iter().map(|x| x.as_bytes().to_vec()).collect()),
        AttributeValue::Bs(v) => set(h, b'b', v.iter().map(|x| x.as_ref().to_vec()).collect()),
        // A kind this SDK adds later: its debug form still tells values apart.
        other => feed(h, b'x', format!("{other:?}").as_bytes()),
    }
}

/// The error of a `TransactWriteItems` whose `ClientRequestToken` DynamoDB had seen within
/// its window with other parameters.
const TOKEN_MISMATCH: &str = "IdempotentParameterMismatch";

/// Writes `puts` in one `TransactWriteItems` whose `ClientRequestToken` is their
/// [`transaction_token`] under `label`. `Ok(Err(_))` when DynamoDB cancelled it, with the
/// reasons; any other failure is `StoreError::Unavailable`.
pub(crate) async fn transact_puts(
    client: &Client,
    label: &str,
    puts: impl IntoIterator<Item = Put>,
) -> Result<Result<(), Cancelled>, StoreError> {
    let items = puts
        .into_iter()
        .map(|p| TransactWriteItem::builder().put(p).build());
    transact_items(client, label, items).await
}

/// [`transact_puts`] for items of any kind (puts and updates).
///
/// An `IdempotentParameterMismatch` (the token came before with other parameters: never
/// from our own resends, whose token follows their content) refused this request, but
/// whether the write it stands for is in the store is not known here: it is
/// `StoreError::Unavailable`, like a lost answer — never a success, never a failed
/// condition — and the caller reads back.
pub(crate) async fn transact_items(
    client: &Client,
    label: &str,
    items: impl IntoIterator<Item = TransactWriteItem>,
) -> Result<Result<(), Cancelled>, StoreError> {
    let items: Vec<TransactWriteItem> = items.into_iter().collect();
    let token = transaction_token(label, &items);
    let err = match client
        .transact_write_items()
        .client_request_token(&token)
        .set_transact_items(Some(items))
        .send()
        .await
    {
        Ok(_) => return Ok(Ok(())),
        Err(e) => e,
    };
    match err.as_service_error() {
        Some(TransactWriteItemsError::TransactionCanceledException(tc)) => Ok(Err(Cancelled {
            reasons: tc.cancellation_reasons().to_vec(),
        })),
        Some(TransactWriteItemsError::IdempotentParameterMismatchException(_)) => {
            tracing::warn!(
                token,
                "TransactWriteItems refused for a token seen with other parameters"
            );
            Err(StoreError::Unavailable(format!(
                "TransactWriteItems: {TOKEN_MISMATCH} (whether the write applied is unknown: \
                 read back)"
            )))
        }
        _ => Err(unavailable("TransactWriteItems", &err)),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::dynamo::item::{attrs, n, s};

    fn put(item: Item, cond: Option<&str>) -> TransactWriteItem {
        let p = Put::builder()
            .table_name("t")
            .set_item(Some(item))
            .set_condition_expression(cond.map(str::to_owned))
            .build()
            .unwrap();
        TransactWriteItem::builder().put(p).build()
    }

    #[test]
    fn tokens_follow_everything_sent_in_any_map_order_and_are_short() {
        let item = |at: &str| {
            attrs(&[
                ("pk", s("pay_1")),
                ("version", n(3)),
                ("updatedAt", s(at)),
                (
                    "pending",
                    AttributeValue::M(attrs(&[("a", n(1)), ("b", s("x"))])),
                ),
            ])
        };
        let a = transaction_token("payment", &[put(item("t1"), Some("#v = :v"))]);
        // The same write, its maps rebuilt (another iteration order): the same token.
        assert_eq!(
            a,
            transaction_token("payment", &[put(item("t1"), Some("#v = :v"))])
        );
        assert!(a.len() <= 36 && a.chars().all(|c| c.is_ascii_hexdigit()));
        // Anything else sent — a value, the condition, the label, one more item — another.
        for other in [
            transaction_token("payment", &[put(item("t2"), Some("#v = :v"))]),
            transaction_token("payment", &[put(item("t1"), None)]),
            transaction_token("attempt", &[put(item("t1"), Some("#v = :v"))]),
            transaction_token(
                "payment",
                &[
                    put(item("t1"), Some("#v = :v")),
                    put(item("t1"), Some("#v = :v")),
                ],
            ),
        ] {
            assert_ne!(a, other);
        }
        // Length prefixes keep neighbouring strings apart.
        let ab = attrs(&[("k", AttributeValue::L(vec![s("ab"), s("")]))]);
        let a_b = attrs(&[("k", AttributeValue::L(vec![s("a"), s("b")]))]);
        assert_ne!(
            transaction_token("x", &[put(ab, None)]),
            transaction_token("x", &[put(a_b, None)])
        );
    }
}
