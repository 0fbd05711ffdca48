//! The payments adapter: conditional, all-or-nothing writes of a payment with its
//! transaction and outbox event.

use std::collections::HashMap;

use async_trait::async_trait;
use aws_sdk_dynamodb::{
    types::{AttributeValue, Put, ReturnValuesOnConditionCheckFailure, TransactWriteItem},
    Client,
};
use paygate_domain::{
    ports::{Expectation, PaymentChange, PaymentReader, PaymentWriter},
    Payment, PaymentId, StoreError, Transaction, TransactionId,
};

use crate::{
    error::{build_error, unavailable},
    events::{encode_event, EVENT_ABSENT},
    item::{attrs, n, s, Item},
    payment_item::{
        attr, decode_payment, decode_transaction, encode_payment, encode_transaction, txn_sk,
        PAYMENT_SK, TXN_SK_PREFIX,
    },
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

/// DynamoDB reason code of a failed condition inside a transaction.
const CONDITIONAL_CHECK_FAILED: &str = "ConditionalCheckFailed";
/// DynamoDB reason code of a transaction that collided with another one on the same item.
const TRANSACTION_CONFLICT: &str = "TransactionConflict";

/// Payments, transactions and outbox events in DynamoDB.
#[derive(Debug, Clone)]
pub struct DynamoPayments {
    client: Client,
    payments_table: String,
    events_table: String,
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
        }
    }

    async fn put_payment(
        &self,
        item: Item,
        cond: Condition,
        expect: &Expectation,
    ) -> Result<(), StoreError> {
        let res = self
            .client
            .put_item()
            .table_name(&self.payments_table)
            .set_item(Some(item))
            .condition_expression(&cond.expr)
            .set_expression_attribute_names(Some(cond.names.clone()))
            .set_expression_attribute_values(cond.values())
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .send()
            .await;
        match res {
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
        item: Item,
        cond: Condition,
        change: &PaymentChange,
    ) -> Result<(), StoreError> {
        let mut ops = vec![TransactWriteItem::builder()
            .put(
                Put::builder()
                    .table_name(&self.payments_table)
                    .set_item(Some(item))
                    .condition_expression(&cond.expr)
                    .set_expression_attribute_names(Some(cond.names.clone()))
                    .set_expression_attribute_values(cond.values())
                    .return_values_on_condition_check_failure(
                        ReturnValuesOnConditionCheckFailure::AllOld,
                    )
                    .build()
                    .map_err(|e| build_error("payment put", e))?,
            )
            .build()];
        if let Some(x) = &change.transaction {
            ops.push(
                TransactWriteItem::builder()
                    .put(
                        Put::builder()
                            .table_name(&self.payments_table)
                            .set_item(Some(encode_transaction(x)))
                            .build()
                            .map_err(|e| build_error("transaction put", e))?,
                    )
                    .build(),
            );
        }
        if let Some(ev) = &change.event {
            ops.push(
                TransactWriteItem::builder()
                    .put(
                        Put::builder()
                            .table_name(&self.events_table)
                            .set_item(Some(encode_event(ev)?))
                            .condition_expression(EVENT_ABSENT)
                            .expression_attribute_names("#id", "id")
                            .build()
                            .map_err(|e| build_error("event put", e))?,
                    )
                    .build(),
            );
        }
        let res = self
            .client
            .transact_write_items()
            .set_transact_items(Some(ops))
            .send()
            .await;
        let err = match res {
            Ok(_) => return Ok(()),
            Err(e) => e,
        };
        let Some(aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError::TransactionCanceledException(tc)) =
            err.as_service_error()
        else {
            return Err(unavailable("TransactWriteItems", &err));
        };
        let reasons = tc.cancellation_reasons();
        let code = |i: usize| reasons.get(i).and_then(|r| r.code());
        if code(0) == Some(CONDITIONAL_CHECK_FAILED) {
            return Err(condition_failed(
                &change.expect,
                reasons.first().and_then(|r| r.item()),
            ));
        }
        if (0..reasons.len()).any(|i| {
            matches!(
                code(i),
                Some(CONDITIONAL_CHECK_FAILED | TRANSACTION_CONFLICT)
            )
        }) {
            // The event id was taken, or another transaction touched one of the items at the
            // same time: nothing was written; the caller re-reads and tries again.
            return Err(StoreError::Conflict { current: None });
        }
        let codes: Vec<&str> = reasons.iter().filter_map(|r| r.code()).collect();
        Err(StoreError::Unavailable(format!(
            "TransactWriteItems: cancelled ({})",
            codes.join(", ")
        )))
    }
}

#[async_trait]
impl PaymentReader for DynamoPayments {
    async fn get_payment(&self, id: &PaymentId) -> Result<Option<Payment>, StoreError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.payments_table)
            .key(attr::PK, s(id.as_str()))
            .key(attr::SK, s(PAYMENT_SK))
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| unavailable("GetItem", &e))?;
        out.item().map(decode_payment).transpose()
    }

    async fn list_transactions(&self, id: &PaymentId) -> Result<Vec<Transaction>, StoreError> {
        let mut out = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let page = self
                .client
                .query()
                .table_name(&self.payments_table)
                .key_condition_expression("#pk = :pk AND begins_with(#sk, :txn)")
                .set_expression_attribute_names(Some(attrs(&[
                    ("#pk", attr::PK.to_owned()),
                    ("#sk", attr::SK.to_owned()),
                ])))
                .set_expression_attribute_values(Some(attrs(&[
                    (":pk", s(id.as_str())),
                    (":txn", s(TXN_SK_PREFIX)),
                ])))
                .consistent_read(true)
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| unavailable("Query", &e))?;
            for item in page.items() {
                out.push(decode_transaction(item)?);
            }
            match page.last_evaluated_key() {
                Some(k) if !k.is_empty() => start = Some(k.clone()),
                _ => break,
            }
        }
        out.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(out)
    }

    async fn get_transaction(
        &self,
        payment: &PaymentId,
        id: &TransactionId,
    ) -> Result<Option<Transaction>, StoreError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.payments_table)
            .key(attr::PK, s(payment.as_str()))
            .key(attr::SK, s(txn_sk(id)))
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| unavailable("GetItem", &e))?;
        out.item().map(decode_transaction).transpose()
    }
}

#[async_trait]
impl PaymentWriter for DynamoPayments {
    async fn save(&self, change: PaymentChange) -> Result<(), StoreError> {
        if let Some(x) = &change.transaction {
            if x.payment_id != change.payment.id {
                return Err(StoreError::Corrupt(format!(
                    "transaction {} belongs to {}, not to {}",
                    x.id, x.payment_id, change.payment.id
                )));
            }
        }
        let item = encode_payment(&change.payment);
        let cond = condition(&change.expect);
        if change.transaction.is_none() && change.event.is_none() {
            self.put_payment(item, cond, &change.expect).await
        } else {
            self.transact(item, cond, &change).await
        }
    }
}

#[cfg(test)]
mod tests;
