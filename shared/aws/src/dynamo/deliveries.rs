//! Webhook deliveries and their attempts: one partition per delivery (the delivery item and
//! its attempt items), claimed and advanced with conditional writes.
//!
//! This file holds the adapter and the pipeline's port ([`DeliveryStore`]: create, claim,
//! record, and the sweeper's overdue list); `history` the dashboard's queries and resend
//! ([`paygate_domain::ports::DeliveryAdmin`]), `cursor` the cursors of its paged history.

mod cursor;
mod history;

use async_trait::async_trait;
use aws_sdk_dynamodb::{types::Put, Client};
use paygate_domain::{
    ports::{DeliveryStore, Listing},
    webhook::{Attempt, Delivery, DeliveryId, DeliveryStatus},
    StoreError, TimeRange, Timestamp,
};

use crate::dynamo::{
    error::build_error,
    item::{attrs, n, s, t, undecodable, Item},
    read::{get_item, query_all, query_page, sort_key_prefix_query},
    schema::{DUE_INDEX, DUE_SHARD},
    webhook_item::{
        attr, decode_attempt, decode_delivery, encode_attempt, encode_delivery, ATTEMPT_SK_PREFIX,
        DELIVERY_SK,
    },
    write::{conditional, transact_puts, CONDITIONAL_CHECK_FAILED},
};

/// The key of a delivery's own item (its attempts share the partition).
fn delivery_key(id: &DeliveryId) -> Item {
    attrs(&[(attr::PK, s(id.as_str())), (attr::SK, s(DELIVERY_SK))])
}

/// Deliveries and attempts in the deliveries table.
#[derive(Debug, Clone)]
pub struct DynamoDeliveries {
    client: Client,
    table: String,
    /// How long a delivery and its attempts are kept after it was created (TTL).
    retention_secs: i64,
}

impl DynamoDeliveries {
    /// The adapter over the deliveries table, keeping history for the default retention
    /// ([`crate::dynamo::schema::DELIVERY_RETENTION_DAYS`]).
    pub fn new(client: Client, deliveries_table: impl Into<String>) -> Self {
        Self {
            client,
            table: deliveries_table.into(),
            retention_secs: crate::dynamo::schema::DEFAULT_RETENTION_SECS,
        }
    }

    /// Keeps history for `days` days after a delivery was created.
    pub fn with_retention_days(mut self, days: u32) -> Self {
        self.retention_secs = i64::from(days) * 86_400;
        self
    }
}

#[async_trait]
impl DeliveryStore for DynamoDeliveries {
    async fn create_delivery(&self, delivery: &Delivery) -> Result<bool, StoreError> {
        let res = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(encode_delivery(delivery, self.retention_secs)))
            .condition_expression("attribute_not_exists(#pk)")
            .expression_attribute_names("#pk", attr::PK)
            .send()
            .await;
        Ok(conditional("PutItem", res)?.is_some())
    }

    async fn get_delivery(&self, id: &DeliveryId) -> Result<Option<Delivery>, StoreError> {
        let req = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(delivery_key(id)))
            .consistent_read(true);
        get_item(req, decode_delivery).await
    }

    /// Sets `leaseUntil` (epoch millis) to `lease.until` on condition that the delivery is
    /// pending, has `number - 1` attempts, and carries no lease that is still running at
    /// `lease.since`.
    async fn claim_attempt(
        &self,
        id: &DeliveryId,
        number: u32,
        lease: TimeRange,
    ) -> Result<bool, StoreError> {
        let Some(prev) = number.checked_sub(1) else {
            return Ok(false);
        };
        let res = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(delivery_key(id)))
            .update_expression("SET #lease = :lease")
            .condition_expression(
                "#status = :pending AND #made = :prev \
                 AND (attribute_not_exists(#lease) OR #lease < :now)",
            )
            .set_expression_attribute_names(Some(attrs(&[
                ("#status", attr::STATUS.to_owned()),
                ("#made", attr::ATTEMPTS_MADE.to_owned()),
                ("#lease", attr::LEASE_UNTIL.to_owned()),
            ])))
            .set_expression_attribute_values(Some(attrs(&[
                (":pending", s(DeliveryStatus::Pending.as_str())),
                (":prev", n(prev)),
                (":lease", n(lease.until.unix_millis())),
                (":now", n(lease.since.unix_millis())),
            ])))
            .send()
            .await;
        Ok(conditional("UpdateItem", res)?.is_some())
    }

    /// One transaction: the attempt item (only if that attempt is not recorded yet) and the
    /// whole delivery item as `after` (only if it is pending with `number - 1` attempts).
    /// Writing the whole item drops the lease and sets or removes the `due` index keys.
    async fn record_attempt(
        &self,
        attempt: &Attempt,
        after: &Delivery,
    ) -> Result<bool, StoreError> {
        let Some(prev) = attempt.number.checked_sub(1) else {
            return Err(StoreError::Corrupt(format!(
                "attempt numbers start at 1 (delivery {})",
                attempt.delivery_id
            )));
        };
        if after.id != attempt.delivery_id || after.attempts_made != attempt.number {
            return Err(StoreError::Corrupt(format!(
                "delivery {} with {} attempts does not follow attempt {} of {}",
                after.id, after.attempts_made, attempt.number, attempt.delivery_id
            )));
        }
        let attempt_put = Put::builder()
            .table_name(&self.table)
            .set_item(Some(encode_attempt(
                attempt,
                after.created_at,
                self.retention_secs,
            )?))
            .condition_expression("attribute_not_exists(#pk)")
            .expression_attribute_names("#pk", attr::PK)
            .build()
            .map_err(|e| build_error("attempt put", e))?;
        let delivery_put = Put::builder()
            .table_name(&self.table)
            .set_item(Some(encode_delivery(after, self.retention_secs)))
            .condition_expression("#status = :pending AND #made = :prev")
            .set_expression_attribute_names(Some(attrs(&[
                ("#status", attr::STATUS.to_owned()),
                ("#made", attr::ATTEMPTS_MADE.to_owned()),
            ])))
            .set_expression_attribute_values(Some(attrs(&[
                (":pending", s(DeliveryStatus::Pending.as_str())),
                (":prev", n(prev)),
            ])))
            .build()
            .map_err(|e| build_error("delivery put", e))?;
        // The token follows the content: a second worker's other outcome for this attempt
        // meets the conditions (`false`), never a token mismatch.
        match transact_puts(&self.client, "attempt", [attempt_put, delivery_put]).await? {
            Ok(()) => Ok(true),
            Err(cancelled) if cancelled.any(&[CONDITIONAL_CHECK_FAILED]) => Ok(false),
            // TransactionConflict (another write on the delivery at the same moment) or a
            // throttle: nothing was written, but no condition failed; the caller retries.
            Err(cancelled) => Err(cancelled.unavailable()),
        }
    }

    /// Every recorded attempt of the delivery, by number (consistent read).
    async fn list_attempts(&self, id: &DeliveryId) -> Result<Vec<Attempt>, StoreError> {
        let query =
            sort_key_prefix_query(&self.client, &self.table, id.as_str(), ATTEMPT_SK_PREFIX);
        let mut out = query_all(query, decode_attempt).await?;
        out.sort_by_key(|a| a.number);
        Ok(out)
    }

    /// Reads the sparse `due` index, oldest due first (eventually consistent: a delivery
    /// that has just been advanced may still show; it is filtered out when the index already
    /// shows it final). An item that does not decode is skipped and reported, and takes no
    /// place in `limit`.
    async fn list_overdue(
        &self,
        before: Timestamp,
        limit: usize,
    ) -> Result<Listing<Delivery>, StoreError> {
        let query = self
            .client
            .query()
            .table_name(&self.table)
            .index_name(DUE_INDEX.name)
            .key_condition_expression("#shard = :shard AND #next <= :before")
            .set_expression_attribute_names(Some(attrs(&[
                ("#shard", attr::DUE_SHARD.to_owned()),
                ("#next", attr::NEXT_ATTEMPT_AT.to_owned()),
            ])))
            .set_expression_attribute_values(Some(attrs(&[
                (":shard", s(DUE_SHARD)),
                (":before", t(before)),
            ])))
            .scan_index_forward(true);
        let mut out: Vec<Delivery> = Vec::new();
        let mut skipped = Vec::new();
        let mut start: Option<Item> = None;
        while out.len() < limit {
            let page = query_page(&query, start.take(), Some(limit - out.len())).await?;
            for item in &page.items {
                match decode_delivery(item) {
                    Ok(d) if d.status == DeliveryStatus::Pending && out.len() < limit => {
                        out.push(d);
                    }
                    Ok(_) => {}
                    Err(e) => skipped.push(undecodable(item, attr::PK, &e)),
                }
            }
            match page.next {
                Some(k) => start = Some(k),
                None => break,
            }
        }
        Ok(Listing {
            items: out,
            undecodable: skipped,
        })
    }
}
