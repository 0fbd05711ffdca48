//! Idempotency records ([`IdempotencyStore`]), one item per scoped key, written under the
//! conditions the domain decides with: `begin` puts the lock only when
//! [`paygate_domain::idempotency::takeable`] holds, `complete` and `release` only while the
//! lock is the caller's. Items carry `expiresAt` (epoch seconds), the table's TTL attribute;
//! TTL deletes lazily, so reads and the `begin` condition treat an expired item as absent.

use async_trait::async_trait;
use aws_sdk_dynamodb::{
    operation::{delete_item::DeleteItemError, put_item::PutItemError},
    types::{AttributeValue, ReturnValuesOnConditionCheckFailure},
    Client,
};
use paygate_domain::{
    idempotency::{
        BeginOutcome, Binding, Fingerprint, IdempotencyKey, IdempotencyRecord, IdempotencyStore,
        KeyAnswer, KeyClaim, RecordState, ScopedKey, StoredResponse,
    },
    MerchantId, Mode, PaymentId, StoreError, Timestamp, TransactionId,
};

use crate::dynamo::{
    error::unavailable,
    item::{attrs, n, s, t, Fields, Item, PK},
    read::get_item,
    write::{conditional, ConditionalWriteError},
};

const MERCHANT_ID: &str = "merchantId";
const MODE: &str = "mode";
const KEY: &str = "idempotencyKey";
const FINGERPRINT: &str = "fingerprint";
const CREATED_AT: &str = "createdAt";
/// The TTL attribute (epoch seconds), [`crate::dynamo::schema::IDEMPOTENCY`]'s `ttl_attribute`.
const EXPIRES_AT: &str = "expiresAt";
const STATE: &str = "state";
const OWNER: &str = "owner";
/// Epoch milliseconds; in-flight records only.
const LEASE_UNTIL: &str = "leaseUntil";
const STATUS: &str = "status";
const BODY: &str = "body";
/// The reserved transaction a key is bound to (with its payment); written by the keyed
/// reservation's transaction ([`claim_update`]), never removed.
const BOUND_PAYMENT: &str = "boundPaymentId";
const BOUND_TXN: &str = "boundTransactionId";

const IN_FLIGHT: &str = "in_flight";
const COMPLETED: &str = "completed";

/// `takeable`, as a condition: no item, an expired one, or the same request's lock whose
/// lease is over.
const TAKEABLE: &str = "attribute_not_exists(#pk) OR #expiresAt <= :nowSec \
     OR (#state = :inFlight AND #fingerprint = :fingerprint AND #leaseUntil <= :nowMs \
     AND attribute_not_exists(#boundTxn))";

/// How often `begin` retries when its condition failed on an item that was gone when read.
const BEGIN_ATTEMPTS: usize = 3;

impl ConditionalWriteError for DeleteItemError {
    fn is_condition_failed(&self) -> bool {
        self.is_conditional_check_failed_exception()
    }
}

fn encode(r: &IdempotencyRecord) -> Item {
    let mut item = Item::from([
        (PK.to_owned(), s(r.key.storage_key())),
        (MERCHANT_ID.to_owned(), s(r.key.merchant_id.as_str())),
        (MODE.to_owned(), s(r.key.mode.as_str())),
        (KEY.to_owned(), s(r.key.key.as_str())),
        (FINGERPRINT.to_owned(), s(r.fingerprint.as_str())),
        (CREATED_AT.to_owned(), t(r.created_at)),
        (EXPIRES_AT.to_owned(), n(r.expires_at.unix_seconds())),
        (OWNER.to_owned(), s(r.owner())),
    ]);
    if let Some(b) = &r.bound {
        item.insert(BOUND_PAYMENT.to_owned(), s(b.payment_id.as_str()));
        item.insert(BOUND_TXN.to_owned(), s(b.transaction_id.as_str()));
    }
    match &r.state {
        RecordState::InFlight { lease_until, .. } => {
            item.insert(STATE.to_owned(), s(IN_FLIGHT));
            item.insert(LEASE_UNTIL.to_owned(), n(lease_until.unix_millis()));
        }
        RecordState::Completed { response, .. } => {
            item.insert(STATE.to_owned(), s(COMPLETED));
            item.insert(STATUS.to_owned(), n(response.status));
            item.insert(BODY.to_owned(), s(response.body.clone()));
        }
    }
    item
}

fn decode(item: &Item) -> Result<IdempotencyRecord, StoreError> {
    let f = Fields::new(item, "idempotency");
    let key = IdempotencyKey::parse(f.str(KEY)?.as_bytes())
        .map_err(|_| f.corrupt(KEY, "is not a valid key"))?;
    let owner = f.str(OWNER)?.to_owned();
    let state = match f.str(STATE)? {
        IN_FLIGHT => RecordState::InFlight {
            owner,
            lease_until: Timestamp::from_unix_millis(f.i64(LEASE_UNTIL)?),
        },
        COMPLETED => RecordState::Completed {
            owner,
            response: StoredResponse {
                status: u16::try_from(f.u64(STATUS)?)
                    .map_err(|_| f.corrupt(STATUS, "is not an HTTP status"))?,
                body: f.text(BODY)?,
            },
        },
        _ => return Err(f.corrupt(STATE, "has an unknown value")),
    };
    let bound = match item.contains_key(BOUND_TXN) {
        false => None,
        true => Some(Binding {
            payment_id: f.id(BOUND_PAYMENT, PaymentId::parse)?,
            transaction_id: f.id(BOUND_TXN, TransactionId::parse)?,
        }),
    };
    Ok(IdempotencyRecord {
        key: ScopedKey {
            merchant_id: f.id(MERCHANT_ID, MerchantId::parse)?,
            mode: f.parsed(MODE, Mode::parse)?,
            key,
        },
        fingerprint: Fingerprint::new(f.str(FINGERPRINT)?),
        created_at: f.time(CREATED_AT)?,
        expires_at: Timestamp::from_unix_millis(f.i64(EXPIRES_AT)?.saturating_mul(1000)),
        state,
        bound,
    })
}

/// The binding of a keyed reservation, as an `Update` of the key's item inside the
/// reservation's transaction: only while the item is `claim`'s lock in flight and bound to
/// nothing ([`paygate_domain::idempotency::claimable`]).
pub(crate) fn claim_update(
    table: &str,
    claim: &KeyClaim,
    binding: &Binding,
) -> Result<aws_sdk_dynamodb::types::Update, StoreError> {
    aws_sdk_dynamodb::types::Update::builder()
        .table_name(table)
        .key(PK, s(claim.key.storage_key()))
        .update_expression("SET #boundPayment = :payment, #boundTxn = :txn")
        .condition_expression(
            "#owner = :owner AND #state = :inFlight AND attribute_not_exists(#boundTxn)",
        )
        .set_expression_attribute_names(Some(attrs(&[
            ("#boundPayment", BOUND_PAYMENT.to_owned()),
            ("#boundTxn", BOUND_TXN.to_owned()),
            ("#owner", OWNER.to_owned()),
            ("#state", STATE.to_owned()),
        ])))
        .set_expression_attribute_values(Some(attrs(&[
            (":payment", s(binding.payment_id.as_str())),
            (":txn", s(binding.transaction_id.as_str())),
            (":owner", s(&claim.owner)),
            (":inFlight", s(IN_FLIGHT)),
        ])))
        .build()
        .map_err(|e| crate::dynamo::error::build_error("idempotency claim", e))
}

/// A keyed operation's answer, as an `Update` of the key's item inside the operation's
/// commit: stored (the record completed) only while the item is in flight and bound to the
/// answer's transaction — `complete_bound`'s condition and update, in the commit's write.
pub(crate) fn answer_update(
    table: &str,
    answer: &KeyAnswer,
) -> Result<aws_sdk_dynamodb::types::Update, StoreError> {
    aws_sdk_dynamodb::types::Update::builder()
        .table_name(table)
        .key(PK, s(answer.key.storage_key()))
        .update_expression(STORE_ANSWER)
        .condition_expression(BOUND_IN_FLIGHT)
        .set_expression_attribute_names(Some(attrs(&[
            ("#state", STATE.to_owned()),
            ("#status", STATUS.to_owned()),
            ("#body", BODY.to_owned()),
            ("#leaseUntil", LEASE_UNTIL.to_owned()),
            ("#boundTxn", BOUND_TXN.to_owned()),
        ])))
        .set_expression_attribute_values(Some(attrs::<AttributeValue>(&[
            (":completed", s(COMPLETED)),
            (":status", n(answer.response.status)),
            (":body", s(answer.response.body.clone())),
            (":inFlight", s(IN_FLIGHT)),
            (":txn", s(answer.transaction_id.as_str())),
        ])))
        .build()
        .map_err(|e| crate::dynamo::error::build_error("idempotency answer", e))
}

/// The update that stores a key's answer (the record becomes completed).
const STORE_ANSWER: &str =
    "SET #state = :completed, #status = :status, #body = :body REMOVE #leaseUntil";
/// The condition of storing a bound key's answer: in flight and bound to `:txn`.
const BOUND_IN_FLIGHT: &str = "#state = :inFlight AND #boundTxn = :txn";

/// The idempotency table.
#[derive(Debug, Clone)]
pub struct DynamoIdempotency {
    client: Client,
    table: String,
}

impl DynamoIdempotency {
    /// The adapter over the idempotency table.
    pub fn new(client: Client, idempotency_table: impl Into<String>) -> Self {
        Self {
            client,
            table: idempotency_table.into(),
        }
    }

    /// One `begin` write: `Ok(None)` when the lock was put, else the item that held the
    /// key (`Some(None)` if it was gone by the time it was read).
    async fn try_begin(
        &self,
        lock: &IdempotencyRecord,
        now: Timestamp,
    ) -> Result<Option<Option<IdempotencyRecord>>, StoreError> {
        let res = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(encode(lock)))
            .condition_expression(TAKEABLE)
            .set_expression_attribute_names(Some(attrs(&[
                ("#pk", PK.to_owned()),
                ("#expiresAt", EXPIRES_AT.to_owned()),
                ("#state", STATE.to_owned()),
                ("#fingerprint", FINGERPRINT.to_owned()),
                ("#leaseUntil", LEASE_UNTIL.to_owned()),
                ("#boundTxn", BOUND_TXN.to_owned()),
            ])))
            .set_expression_attribute_values(Some(attrs(&[
                (":nowSec", n(now.unix_seconds())),
                (":nowMs", n(now.unix_millis())),
                (":inFlight", s(IN_FLIGHT)),
                (":fingerprint", s(lock.fingerprint.as_str())),
            ])))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .send()
            .await;
        let err = match res {
            Ok(_) => return Ok(None),
            Err(e) => e,
        };
        let Some(PutItemError::ConditionalCheckFailedException(failed)) = err.as_service_error()
        else {
            return Err(unavailable("PutItem", &err));
        };
        match failed.item() {
            Some(item) => decode(item).map(|r| Some(Some(r))),
            None => self.get(&lock.key).await.map(Some),
        }
    }
}

impl DynamoIdempotency {
    /// Stores `response` as the key's answer (the record becomes completed) if `condition`
    /// holds, with `names` and `values` the condition's own placeholders. `Ok(false)`: the
    /// condition failed, nothing was written.
    async fn store_answer(
        &self,
        key: &ScopedKey,
        response: &StoredResponse,
        condition: &str,
        names: &[(&str, &str)],
        values: Vec<(&str, AttributeValue)>,
    ) -> Result<bool, StoreError> {
        let mut all_names = attrs(&[
            ("#state", STATE.to_owned()),
            ("#status", STATUS.to_owned()),
            ("#body", BODY.to_owned()),
            ("#leaseUntil", LEASE_UNTIL.to_owned()),
        ]);
        all_names.extend(
            names
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        let mut all_values = attrs::<AttributeValue>(&[
            (":completed", s(COMPLETED)),
            (":status", n(response.status)),
            (":body", s(response.body.clone())),
        ]);
        all_values.extend(values.into_iter().map(|(k, v)| (k.to_owned(), v)));
        let res = self
            .client
            .update_item()
            .table_name(&self.table)
            .key(PK, s(key.storage_key()))
            .update_expression(STORE_ANSWER)
            .condition_expression(condition)
            .set_expression_attribute_names(Some(all_names))
            .set_expression_attribute_values(Some(all_values))
            .send()
            .await;
        Ok(conditional("UpdateItem", res)?.is_some())
    }
}

#[async_trait]
impl IdempotencyStore for DynamoIdempotency {
    async fn begin(
        &self,
        lock: &IdempotencyRecord,
        now: Timestamp,
    ) -> Result<BeginOutcome, StoreError> {
        for _ in 0..BEGIN_ATTEMPTS {
            match self.try_begin(lock, now).await? {
                None => return Ok(BeginOutcome::Acquired),
                Some(Some(existing)) => return Ok(BeginOutcome::Existing(existing)),
                Some(None) => {}
            }
        }
        Err(StoreError::Unavailable(
            "PutItem: the idempotency item kept changing".into(),
        ))
    }

    async fn get(&self, key: &ScopedKey) -> Result<Option<IdempotencyRecord>, StoreError> {
        let req = self
            .client
            .get_item()
            .table_name(&self.table)
            .key(PK, s(key.storage_key()))
            .consistent_read(true);
        get_item(req, decode).await
    }

    async fn complete(
        &self,
        key: &ScopedKey,
        owner: &str,
        response: &StoredResponse,
    ) -> Result<bool, StoreError> {
        self.store_answer(
            key,
            response,
            "#owner = :owner",
            &[("#owner", OWNER)],
            vec![(":owner", s(owner))],
        )
        .await
    }

    async fn release(&self, key: &ScopedKey, owner: &str) -> Result<bool, StoreError> {
        let res = self
            .client
            .delete_item()
            .table_name(&self.table)
            .key(PK, s(key.storage_key()))
            .condition_expression(
                "#owner = :owner AND #state = :inFlight AND attribute_not_exists(#boundTxn)",
            )
            .set_expression_attribute_names(Some(attrs(&[
                ("#owner", OWNER.to_owned()),
                ("#state", STATE.to_owned()),
                ("#boundTxn", BOUND_TXN.to_owned()),
            ])))
            .set_expression_attribute_values(Some(attrs(&[
                (":owner", s(owner)),
                (":inFlight", s(IN_FLIGHT)),
            ])))
            .send()
            .await;
        Ok(conditional("DeleteItem", res)?.is_some())
    }

    async fn complete_bound(
        &self,
        key: &ScopedKey,
        transaction: &TransactionId,
        response: &StoredResponse,
    ) -> Result<bool, StoreError> {
        self.store_answer(
            key,
            response,
            BOUND_IN_FLIGHT,
            &[("#boundTxn", BOUND_TXN)],
            vec![
                (":inFlight", s(IN_FLIGHT)),
                (":txn", s(transaction.as_str())),
            ],
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn records_round_trip_through_items() {
        let key = ScopedKey {
            merchant_id: MerchantId::parse("mch_a").unwrap(),
            mode: Mode::Live,
            key: IdempotencyKey::parse(b"k#1 x").unwrap(),
        };
        let now = Timestamp::from_unix_millis(1_795_251_600_123);
        let lock = IdempotencyRecord::lock(key, Fingerprint::new("ab"), "o1".into(), now);
        assert_eq!(decode(&encode(&lock)).unwrap(), lock);
        let done = IdempotencyRecord {
            state: RecordState::Completed {
                owner: "o1".into(),
                response: StoredResponse {
                    status: 422,
                    body: r#"{"error":{}}"#.into(),
                },
            },
            ..lock
        };
        let item = encode(&done);
        assert!(!item.contains_key(LEASE_UNTIL));
        assert_eq!(decode(&item).unwrap(), done);
        let bound = IdempotencyRecord {
            bound: Some(Binding {
                payment_id: PaymentId::parse("pay_1").unwrap(),
                transaction_id: TransactionId::parse("txn_1").unwrap(),
            }),
            ..done
        };
        assert_eq!(decode(&encode(&bound)).unwrap(), bound);
    }
}
