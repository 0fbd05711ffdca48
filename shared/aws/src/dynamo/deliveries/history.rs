//! The dashboard's side of the deliveries table: an endpoint's delivery history (paged by
//! cursor), an event's deliveries, and the resend.

use async_trait::async_trait;
use aws_sdk_dynamodb::types::ReturnValue;
use paygate_domain::{
    ports::{DeliveryAdmin, DeliveryQuery, DeliveryStore, Page},
    webhook::{Delivery, DeliveryId, DeliveryStatus, WebhookEndpointId},
    EventId, StoreError, TimeRange, Timestamp,
};

use super::{
    cursor::{decode_cursor, encode_cursor, encode_key_cursor},
    delivery_key, DynamoDeliveries,
};
use crate::dynamo::{
    item::{attrs, s, t},
    read::{count_all, index_query, query_all, query_page},
    schema::{BY_ENDPOINT_INDEX, BY_EVENT_INDEX, DUE_SHARD, PENDING_INDEX},
    webhook_item::{attr, decode_delivery},
    write::conditional,
};

/// How many DynamoDB pages one `list_by_endpoint` call reads at most when a status filter
/// skips items; past that it returns what it found with a cursor to go on from.
const MAX_FILTERED_PAGES: usize = 10;

/// The dashboard's port: an endpoint's history (paged by cursor), an event's deliveries,
/// the resend, the recover's failed deliveries and the backlog count.
#[async_trait]
impl DeliveryAdmin for DynamoDeliveries {
    /// One page of an endpoint's deliveries, newest first (by `createdAt`), optionally only
    /// those with `query.status`. `query.cursor` is the `next_cursor` of the previous page
    /// (opaque; `None` for the first page). The page holds at most `query.limit`
    /// deliveries; its cursor is `None` when there is nothing after it. A page may be
    /// shorter than the limit and still have a next cursor when a status filter skipped
    /// many deliveries.
    ///
    /// Reads the `byEndpoint` index (eventually consistent). The caller checks that the
    /// endpoint belongs to the merchant asking. A cursor that is not one this method handed
    /// out for this endpoint is `StoreError::Corrupt` ("invalid cursor").
    async fn list_by_endpoint(
        &self,
        endpoint: &WebhookEndpointId,
        query: DeliveryQuery,
    ) -> Result<Page<Delivery>, StoreError> {
        let DeliveryQuery {
            status,
            limit,
            cursor,
        } = query;
        let page = |items, next_cursor| Ok(Page { items, next_cursor });
        let mut start = match &cursor {
            Some(c) => Some(decode_cursor(c, endpoint)?),
            None => None,
        };
        if limit == 0 {
            return page(Vec::new(), cursor);
        }
        let mut query = index_query(
            &self.client,
            &self.table,
            &BY_ENDPOINT_INDEX,
            endpoint.as_str(),
        )
        .scan_index_forward(false);
        if let Some(st) = status {
            query = query
                .filter_expression("#status = :status")
                .expression_attribute_names("#status", attr::STATUS)
                .expression_attribute_values(":status", s(st.as_str()));
        }
        let mut out: Vec<Delivery> = Vec::new();
        let mut pages = 0;
        loop {
            let read = query_page(&query, start.take(), Some(limit - out.len())).await?;
            pages += 1;
            let mut cut = false;
            for item in &read.items {
                if out.len() == limit {
                    cut = true;
                    break;
                }
                out.push(decode_delivery(item)?);
            }
            let more = read.next;
            if out.len() == limit {
                // The next page starts after the last delivery returned.
                let next = if cut || more.is_some() {
                    out.last().map(encode_cursor)
                } else {
                    None
                };
                return page(out, next);
            }
            match more {
                Some(k) if pages < MAX_FILTERED_PAGES => start = Some(k),
                Some(k) => return page(out, Some(encode_key_cursor(&k)?)),
                None => return page(out, None),
            }
        }
    }

    /// Every delivery of an event (one per endpoint it was fanned out to), oldest first.
    /// Reads the `byEvent` index (eventually consistent).
    async fn list_by_event(&self, event: &EventId) -> Result<Vec<Delivery>, StoreError> {
        let query = index_query(&self.client, &self.table, &BY_EVENT_INDEX, event.as_str());
        let mut out = query_all(query, decode_delivery).await?;
        out.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(out)
    }

    /// Puts a final (succeeded or failed) delivery back to pending so that it is sent again
    /// (the dashboard's "resend"): status `pending`, next attempt due `now`, `attemptsMade`
    /// kept so the attempt numbers go on, `retryBase = attemptsMade` so the retry schedule
    /// starts over (see `Delivery::resent`), any lease dropped. Returns the delivery as it is
    /// now; `Ok(None)` when there is no such delivery; `StoreError::Conflict { current: None }`
    /// when it is pending already. The caller enqueues attempt `attempts_made + 1`.
    async fn reset_for_resend(
        &self,
        id: &DeliveryId,
        now: Timestamp,
    ) -> Result<Option<Delivery>, StoreError> {
        let res = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(delivery_key(id)))
            .update_expression(
                "SET #status = :pending, #next = :now, #shard = :shard, #updated = :now, \
                 #base = #made, #pe = #eid REMOVE #lease",
            )
            .condition_expression("attribute_exists(#pk) AND #status <> :pending")
            .set_expression_attribute_names(Some(attrs(&[
                ("#pk", attr::PK.to_owned()),
                ("#status", attr::STATUS.to_owned()),
                ("#next", attr::NEXT_ATTEMPT_AT.to_owned()),
                ("#shard", attr::DUE_SHARD.to_owned()),
                ("#updated", attr::UPDATED_AT.to_owned()),
                ("#lease", attr::LEASE_UNTIL.to_owned()),
                ("#base", attr::RETRY_BASE.to_owned()),
                ("#made", attr::ATTEMPTS_MADE.to_owned()),
                ("#pe", attr::PENDING_ENDPOINT.to_owned()),
                ("#eid", attr::ENDPOINT_ID.to_owned()),
            ])))
            .set_expression_attribute_values(Some(attrs(&[
                (":pending", s(DeliveryStatus::Pending.as_str())),
                (":now", t(now)),
                (":shard", s(DUE_SHARD)),
            ])))
            .return_values(ReturnValue::AllNew)
            .send()
            .await;
        match conditional("UpdateItem", res)? {
            Some(out) => match out.attributes() {
                Some(item) => decode_delivery(item).map(Some),
                None => Err(StoreError::Corrupt(
                    "delivery update returned no attributes".to_owned(),
                )),
            },
            // Absent, or pending: which one decides the answer.
            None => match self.get_delivery(id).await? {
                Some(_) => Err(StoreError::Conflict { current: None }),
                None => Ok(None),
            },
        }
    }

    /// An endpoint's `failed` deliveries created in `range`, oldest first, at most `limit`,
    /// and whether more may follow. Reads the `byEndpoint` index forward from `range.since`
    /// with a status filter (eventually consistent).
    async fn list_failed(
        &self,
        endpoint: &WebhookEndpointId,
        range: TimeRange,
        limit: usize,
    ) -> Result<(Vec<Delivery>, bool), StoreError> {
        let query = self
            .client
            .query()
            .table_name(&self.table)
            .index_name(BY_ENDPOINT_INDEX.name)
            .key_condition_expression("#e = :e AND #c BETWEEN :since AND :until")
            .filter_expression("#status = :failed")
            .set_expression_attribute_names(Some(attrs(&[
                ("#e", attr::ENDPOINT_ID.to_owned()),
                ("#c", attr::CREATED_AT.to_owned()),
                ("#status", attr::STATUS.to_owned()),
            ])))
            .set_expression_attribute_values(Some(attrs(&[
                (":e", s(endpoint.as_str())),
                (":since", t(range.since)),
                (":until", t(range.until)),
                (":failed", s(DeliveryStatus::Failed.as_str())),
            ])))
            .scan_index_forward(true);
        let mut out: Vec<Delivery> = Vec::new();
        let mut start = None;
        loop {
            let page = query_page(&query, start.take(), Some(limit + 1)).await?;
            for item in &page.items {
                let d = decode_delivery(item)?;
                // BETWEEN includes `until`; the range is half-open.
                if range.contains(d.created_at) && d.status == DeliveryStatus::Failed {
                    out.push(d);
                }
            }
            if out.len() > limit {
                out.truncate(limit);
                return Ok((out, true));
            }
            match page.next {
                Some(k) => start = Some(k),
                None => return Ok((out, false)),
            }
        }
    }

    /// How many of the endpoint's deliveries are pending: a `Select COUNT` over the sparse
    /// `pendingByEndpoint` index, which holds the pending deliveries only.
    async fn count_pending(&self, endpoint: &WebhookEndpointId) -> Result<u64, StoreError> {
        count_all(index_query(
            &self.client,
            &self.table,
            &PENDING_INDEX,
            endpoint.as_str(),
        ))
        .await
    }
}
