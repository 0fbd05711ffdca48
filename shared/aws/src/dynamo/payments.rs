//! The payments adapter: conditional, all-or-nothing writes of a payment with its
//! transaction and outbox event.

use std::collections::HashMap;

use async_trait::async_trait;
use aws_sdk_dynamodb::{
    types::{AttributeValue, Put, ReturnValuesOnConditionCheckFailure, TransactWriteItem},
    Client,
};
use paygate_domain::{
    idempotency::{Binding, KeyAnswer, KeyClaim},
    ports::{Expectation, PaymentChange, PaymentReader, PaymentWriter},
    Payment, PaymentId, StaleAfter, StoreError, Transaction, TransactionId,
};

use crate::dynamo::{
    daily::with_day_keys,
    error::{build_error, unavailable},
    events::{encode_event, EVENT_ABSENT},
    idempotency::{answer_update, claim_update},
    item::{attrs, n, s, Item},
    payment_item::{
        attr, decode_payment, decode_transaction, encode_payment, encode_transaction, txn_sk,
        PAYMENT_SK, TXN_SK_PREFIX,
    },
    read::{get_item, query_all, sort_key_prefix_query},
    write::{put_alone, transact_items, CONDITIONAL_CHECK_FAILED, TRANSACTION_CONFLICT},
};

/// A condition expression with its placeholders.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Condition {
    pub(crate) expr: String,
    pub(crate) names: HashMap<String, String>,
    pub(crate) values: HashMap<String, AttributeValue>,
}

impl Condition {
    fn values(&self) -> Option<HashMap<String, AttributeValue>> {
        (!self.values.is_empty()).then(|| self.values.clone())
    }
}

/// The condition under which the payment item may be written.
pub(crate) fn condition(expect: &Expectation) -> Condition {
    match expect {
        Expectation::Absent => Condition {
            expr: "attribute_not_exists(#pk)".to_owned(),
            names: attrs(&[("#pk", attr::PK.to_owned())]),
            values: HashMap::new(),
        },
        Expectation::Version {
            version,
            status,
            no_pending,
            min_refundable,
        } => {
            let mut expr = "#version = :version AND #status = :status".to_owned();
            let mut names = attrs(&[
                ("#version", attr::VERSION.to_owned()),
                ("#status", attr::STATUS.to_owned()),
            ]);
            let mut values = attrs(&[(":version", n(version)), (":status", s(status.as_str()))]);
            if *no_pending {
                expr.push_str(" AND attribute_not_exists(#pending)");
                names.insert("#pending".to_owned(), attr::PENDING.to_owned());
            }
            if let Some(min) = min_refundable {
                expr.push_str(" AND #refundable >= :minRefundable");
                names.insert("#refundable".to_owned(), attr::REFUNDABLE.to_owned());
                values.insert(":minRefundable".to_owned(), n(min));
            }
            Condition {
                expr,
                names,
                values,
            }
        }
    }
}

/// The error for a payment whose condition failed, from the item as it is now.
fn condition_failed(expect: &Expectation, old: Option<&Item>) -> StoreError {
    if *expect == Expectation::Absent {
        return StoreError::AlreadyExists;
    }
    let current = old.and_then(|item| match decode_payment(item) {
        Ok(p) => Some(Box::new(p)),
        Err(e) => {
            tracing::warn!(error = %e, "conflicting payment item is not decodable");
            None
        }
    });
    StoreError::Conflict { current }
}

/// Payments, transactions and outbox events in DynamoDB.
#[derive(Debug, Clone)]
pub struct DynamoPayments {
    client: Client,
    payments_table: String,
    events_table: String,
    /// The stale in-flight threshold: an operation in flight is due for the reconciler
    /// (`reconcileAt`) once it goes stale.
    stale: StaleAfter,
    /// The idempotency table a keyed reservation binds its key in (`save_bound`).
    idempotency_table: Option<String>,
}

impl DynamoPayments {
    /// The adapter over the payments table and the events table (the outbox).
    pub fn new(
        client: Client,
        payments_table: impl Into<String>,
        events_table: impl Into<String>,
    ) -> Self {
        Self {
            client,
            payments_table: payments_table.into(),
            events_table: events_table.into(),
            stale: StaleAfter::DEFAULT,
            idempotency_table: None,
        }
    }

    /// With the idempotency table that keyed reservations bind their key in, in the same
    /// transaction as the reservation (`save_bound`; without it, `save_bound` fails).
    pub fn with_idempotency_table(mut self, table: impl Into<String>) -> Self {
        self.idempotency_table = Some(table.into());
        self
    }

    /// With `stale` as the stale in-flight threshold of every payment it writes (default
    /// [`StaleAfter::DEFAULT`]; the composition root sets the configured one). A payment
    /// already stored keeps the `reconcileAt` it was written with until its next write.
    pub fn with_stale_after(mut self, stale: StaleAfter) -> Self {
        self.stale = stale;
        self
    }

    pub(crate) fn client(&self) -> &Client {
        &self.client
    }

    pub(crate) fn payments_table(&self) -> &str {
        &self.payments_table
    }

    /// The payment item under its condition, written alone or as the first item of a
    /// transaction. On a failed condition the item as it was comes back.
    fn payment_put(&self, item: Item, cond: &Condition) -> Result<Put, StoreError> {
        Put::builder()
            .table_name(&self.payments_table)
            .set_item(Some(item))
            .condition_expression(&cond.expr)
            .set_expression_attribute_names(Some(cond.names.clone()))
            .set_expression_attribute_values(cond.values())
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(|e| build_error("payment put", e))
    }

    async fn put_payment(&self, payment: Put, expect: &Expectation) -> Result<(), StoreError> {
        match put_alone(&self.client, payment).await {
            Ok(_) => Ok(()),
            Err(e) => match e.as_service_error() {
                Some(se) if se.is_conditional_check_failed_exception() => {
                    let old = match se {
                        aws_sdk_dynamodb::operation::put_item::PutItemError::ConditionalCheckFailedException(c) => c.item(),
                        _ => None,
                    };
                    Err(condition_failed(expect, old))
                }
                _ => Err(unavailable("PutItem", &e)),
            },
        }
    }

    async fn transact(
        &self,
        payment: Put,
        change: &PaymentChange,
        keyed: Keyed<'_>,
    ) -> Result<(), StoreError> {
        let mut puts = vec![payment];
        if let Some(x) = &change.transaction {
            puts.push(
                Put::builder()
                    .table_name(&self.payments_table)
                    .set_item(Some(with_day_keys(
                        encode_transaction(x),
                        &change.payment,
                        x,
                    )))
                    .build()
                    .map_err(|e| build_error("transaction put", e))?,
            );
        }
        if let Some(ev) = &change.event {
            puts.push(
                Put::builder()
                    .table_name(&self.events_table)
                    .set_item(Some(encode_event(ev)?))
                    .condition_expression(EVENT_ABSENT)
                    .expression_attribute_names("#id", "id")
                    .build()
                    .map_err(|e| build_error("event put", e))?,
            );
        }
        let n_puts = puts.len();
        let mut items: Vec<TransactWriteItem> = puts
            .into_iter()
            .map(|p| TransactWriteItem::builder().put(p).build())
            .collect();
        if let Keyed::Claim(claim) = keyed {
            let (Some(table), Some(txn)) = (&self.idempotency_table, &change.transaction) else {
                return Err(StoreError::Unavailable(
                    "a keyed reservation needs the idempotency table and a transaction".into(),
                ));
            };
            let binding = Binding {
                payment_id: change.payment.id.clone(),
                transaction_id: txn.id.clone(),
            };
            items.push(
                TransactWriteItem::builder()
                    .update(claim_update(table, claim, &binding)?)
                    .build(),
            );
        }
        if let Keyed::Answer(answer) = keyed {
            let Some(table) = &self.idempotency_table else {
                return Err(StoreError::Unavailable(
                    "an answered commit needs the idempotency table".into(),
                ));
            };
            items.push(
                TransactWriteItem::builder()
                    .update(answer_update(table, answer)?)
                    .build(),
            );
        }
        // The token is the digest of what is sent (`transaction_token`): a resend of this
        // write is applied once, another writer's write never shares it.
        let Err(cancelled) = transact_items(&self.client, "payment", items).await? else {
            return Ok(());
        };
        if cancelled.code(0) == Some(CONDITIONAL_CHECK_FAILED) {
            return Err(condition_failed(&change.expect, cancelled.item(0)));
        }
        if !matches!(keyed, Keyed::None) && cancelled.code(n_puts) == Some(CONDITIONAL_CHECK_FAILED)
        {
            return Err(StoreError::KeyClaimLost);
        }
        if cancelled.any(&[CONDITIONAL_CHECK_FAILED, TRANSACTION_CONFLICT]) {
            // The event id was taken, or another transaction touched one of the items at the
            // same time: nothing was written; the caller re-reads and tries again.
            return Err(StoreError::Conflict { current: None });
        }
        Err(cancelled.unavailable())
    }
}

#[async_trait]
impl PaymentReader for DynamoPayments {
    async fn get_payment(&self, id: &PaymentId) -> Result<Option<Payment>, StoreError> {
        let req = self
            .client
            .get_item()
            .table_name(&self.payments_table)
            .key(attr::PK, s(id.as_str()))
            .key(attr::SK, s(PAYMENT_SK))
            .consistent_read(true);
        get_item(req, decode_payment).await
    }

    async fn list_transactions(&self, id: &PaymentId) -> Result<Vec<Transaction>, StoreError> {
        let query = sort_key_prefix_query(
            &self.client,
            &self.payments_table,
            id.as_str(),
            TXN_SK_PREFIX,
        );
        let mut out = query_all(query, decode_transaction).await?;
        out.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(out)
    }

    async fn get_transaction(
        &self,
        payment: &PaymentId,
        id: &TransactionId,
    ) -> Result<Option<Transaction>, StoreError> {
        let req = self
            .client
            .get_item()
            .table_name(&self.payments_table)
            .key(attr::PK, s(payment.as_str()))
            .key(attr::SK, s(txn_sk(id)))
            .consistent_read(true);
        get_item(req, decode_transaction).await
    }
}

#[async_trait]
impl PaymentWriter for DynamoPayments {
    async fn save(&self, change: PaymentChange) -> Result<(), StoreError> {
        self.write(change, Keyed::None).await
    }

    async fn save_bound(&self, change: PaymentChange, claim: &KeyClaim) -> Result<(), StoreError> {
        self.write(change, Keyed::Claim(claim)).await
    }

    /// With the idempotency table: the key's answer is an `Update` of its item in the
    /// commit's own transaction ([`answer_update`]); without it, the change alone.
    async fn save_answered(
        &self,
        change: PaymentChange,
        answer: &KeyAnswer,
    ) -> Result<bool, StoreError> {
        if self.idempotency_table.is_none() {
            return self.write(change, Keyed::None).await.map(|()| false);
        }
        self.write(change, Keyed::Answer(answer))
            .await
            .map(|()| true)
    }
}

/// What a payment write does to an `Idempotency-Key` in the same transaction.
#[derive(Clone, Copy)]
enum Keyed<'a> {
    None,
    /// A keyed reservation binds the key to its transaction.
    Claim(&'a KeyClaim),
    /// A keyed operation's commit stores the key's answer.
    Answer(&'a KeyAnswer),
}

impl DynamoPayments {
    async fn write(&self, change: PaymentChange, keyed: Keyed<'_>) -> Result<(), StoreError> {
        if let Some(x) = &change.transaction {
            if x.payment_id != change.payment.id {
                return Err(StoreError::Corrupt(format!(
                    "transaction {} belongs to {}, not to {}",
                    x.id, x.payment_id, change.payment.id
                )));
            }
        }
        let payment = self.payment_put(
            encode_payment(&change.payment, self.stale),
            &condition(&change.expect),
        )?;
        if change.transaction.is_none() && change.event.is_none() && matches!(keyed, Keyed::None) {
            self.put_payment(payment, &change.expect).await
        } else {
            self.transact(payment, &change, keyed).await
        }
    }
}

#[cfg(test)]
mod tests;
