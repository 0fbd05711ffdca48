//! Webhook deliveries and their attempts: one partition per delivery (the delivery item and
//! its attempt items), claimed and advanced with conditional writes.

use std::collections::HashMap;

use async_trait::async_trait;
use aws_sdk_dynamodb::{
    operation::transact_write_items::TransactWriteItemsError,
    types::{AttributeValue, Put, ReturnValue, TransactWriteItem},
    Client,
};
use paygate_domain::{
    ports::{DeliveryAdmin, DeliveryStore, Page},
    webhook::{Attempt, Delivery, DeliveryId, DeliveryStatus, WebhookEndpointId},
    EventId, StoreError, Timestamp,
};

use crate::{
    error::{build_error, unavailable},
    item::{attrs, n, s, t, Item},
    schema::{BY_ENDPOINT_INDEX, BY_EVENT_INDEX, DUE_INDEX, DUE_SHARD},
    webhook_item::{
        attr, decode_attempt, decode_delivery, encode_attempt, encode_delivery, ATTEMPT_SK_PREFIX,
        DELIVERY_SK,
    },
};

/// DynamoDB reason code of a failed condition inside a transaction.
const CONDITIONAL_CHECK_FAILED: &str = "ConditionalCheckFailed";

/// How many DynamoDB pages one `list_by_endpoint` call reads at most when a status filter
/// skips items; past that it returns what it found with a cursor to go on from.
const MAX_FILTERED_PAGES: usize = 10;

/// Deliveries and attempts in the deliveries table.
#[derive(Debug, Clone)]
pub struct DynamoDeliveries {
    client: Client,
    table: String,
}

impl DynamoDeliveries {
    /// The adapter over the deliveries table.
    pub fn new(client: Client, deliveries_table: impl Into<String>) -> Self {
        Self {
            client,
            table: deliveries_table.into(),
        }
    }

    /// One page of an endpoint's deliveries, newest first (by `createdAt`), optionally only
    /// those with `status`. `cursor` is the `next` of the previous page (opaque; `None` for
    /// the first page). Returns the page (at most `limit` deliveries) and the cursor of the
    /// next one, `None` when there is nothing after it. A page may be shorter than `limit`
    /// and still have a next cursor when a status filter skipped many deliveries.
    ///
    /// Reads the `byEndpoint` index (eventually consistent). The caller checks that the
    /// endpoint belongs to the merchant asking. A cursor that is not one this method handed
    /// out for this endpoint is `StoreError::Corrupt` ("invalid cursor").
    pub async fn list_by_endpoint(
        &self,
        endpoint: &WebhookEndpointId,
        status: Option<DeliveryStatus>,
        limit: usize,
        cursor: Option<String>,
    ) -> Result<(Vec<Delivery>, Option<String>), StoreError> {
        let mut start = match &cursor {
            Some(c) => Some(decode_cursor(c, endpoint)?),
            None => None,
        };
        if limit == 0 {
            return Ok((Vec::new(), cursor));
        }
        let mut names = attrs(&[("#e", attr::ENDPOINT_ID.to_owned())]);
        let mut values = attrs(&[(":e", s(endpoint.as_str()))]);
        if let Some(st) = status {
            names.insert("#status".to_owned(), attr::STATUS.to_owned());
            values.insert(":status".to_owned(), s(st.as_str()));
        }
        let mut out: Vec<Delivery> = Vec::new();
        let mut pages = 0;
        loop {
            let remaining = limit - out.len();
            let page = self
                .client
                .query()
                .table_name(&self.table)
                .index_name(BY_ENDPOINT_INDEX.name)
                .key_condition_expression("#e = :e")
                .set_filter_expression(status.map(|_| "#status = :status".to_owned()))
                .set_expression_attribute_names(Some(names.clone()))
                .set_expression_attribute_values(Some(values.clone()))
                .scan_index_forward(false)
                .limit(i32::try_from(remaining).unwrap_or(i32::MAX))
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| unavailable("Query", &e))?;
            pages += 1;
            let mut cut = false;
            for item in page.items() {
                if out.len() == limit {
                    cut = true;
                    break;
                }
                out.push(decode_delivery(item)?);
            }
            let more = page.last_evaluated_key().filter(|k| !k.is_empty());
            if out.len() == limit {
                // The next page starts after the last delivery returned.
                let next = if cut || more.is_some() {
                    out.last().map(encode_cursor)
                } else {
                    None
                };
                return Ok((out, next));
            }
            match more {
                Some(k) if pages < MAX_FILTERED_PAGES => start = Some(k.clone()),
                Some(k) => return Ok((out, Some(encode_key_cursor(k)?))),
                None => return Ok((out, None)),
            }
        }
    }

    /// Every delivery of an event (one per endpoint it was fanned out to), oldest first.
    /// Reads the `byEvent` index (eventually consistent).
    pub async fn list_by_event(&self, event: &EventId) -> Result<Vec<Delivery>, StoreError> {
        let mut out = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let page = self
                .client
                .query()
                .table_name(&self.table)
                .index_name(BY_EVENT_INDEX.name)
                .key_condition_expression("#e = :e")
                .expression_attribute_names("#e", attr::EVENT_ID)
                .expression_attribute_values(":e", s(event.as_str()))
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| unavailable("Query", &e))?;
            for item in page.items() {
                out.push(decode_delivery(item)?);
            }
            match page.last_evaluated_key() {
                Some(k) if !k.is_empty() => start = Some(k.clone()),
                _ => break,
            }
        }
        out.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(out)
    }

    /// Puts a final (succeeded or failed) delivery back to pending so that it is sent again
    /// (the dashboard's "resend"): status `pending`, next attempt due `now`, `attemptsMade`
    /// kept so the attempt numbers go on, `retryBase = attemptsMade` so the retry schedule
    /// starts over (see `Delivery::resent`), any lease dropped. Returns the delivery as it is
    /// now; `Ok(None)` when there is no such delivery; `StoreError::Conflict { current: None }`
    /// when it is pending already. The caller enqueues attempt `attempts_made + 1`.
    pub async fn reset_for_resend(
        &self,
        id: &DeliveryId,
        now: Timestamp,
    ) -> Result<Option<Delivery>, StoreError> {
        let res = self
            .client
            .update_item()
            .table_name(&self.table)
            .key(attr::PK, s(id.as_str()))
            .key(attr::SK, s(DELIVERY_SK))
            .update_expression(
                "SET #status = :pending, #next = :now, #shard = :shard, #updated = :now, \
                 #base = #made REMOVE #lease",
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
            ])))
            .set_expression_attribute_values(Some(attrs(&[
                (":pending", s(DeliveryStatus::Pending.as_str())),
                (":now", t(now)),
                (":shard", s(DUE_SHARD)),
            ])))
            .return_values(ReturnValue::AllNew)
            .send()
            .await;
        match res {
            Ok(out) => match out.attributes() {
                Some(item) => decode_delivery(item).map(Some),
                None => Err(StoreError::Corrupt(
                    "delivery update returned no attributes".to_owned(),
                )),
            },
            Err(e)
                if e.as_service_error()
                    .is_some_and(|se| se.is_conditional_check_failed_exception()) =>
            {
                // Absent, or pending: which one decides the answer.
                match self.get_delivery(id).await? {
                    Some(_) => Err(StoreError::Conflict { current: None }),
                    None => Ok(None),
                }
            }
            Err(e) => Err(unavailable("UpdateItem", &e)),
        }
    }
}

#[async_trait]
impl DeliveryStore for DynamoDeliveries {
    async fn create_delivery(&self, delivery: &Delivery) -> Result<bool, StoreError> {
        let res = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(encode_delivery(delivery)))
            .condition_expression("attribute_not_exists(#pk)")
            .expression_attribute_names("#pk", attr::PK)
            .send()
            .await;
        match res {
            Ok(_) => Ok(true),
            Err(e)
                if e.as_service_error()
                    .is_some_and(|se| se.is_conditional_check_failed_exception()) =>
            {
                Ok(false)
            }
            Err(e) => Err(unavailable("PutItem", &e)),
        }
    }

    async fn get_delivery(&self, id: &DeliveryId) -> Result<Option<Delivery>, StoreError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .key(attr::PK, s(id.as_str()))
            .key(attr::SK, s(DELIVERY_SK))
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| unavailable("GetItem", &e))?;
        out.item().map(decode_delivery).transpose()
    }

    /// Sets `leaseUntil` (epoch millis) on condition that the delivery is pending, has
    /// `number - 1` attempts, and carries no lease that is still running at `now`.
    async fn claim_attempt(
        &self,
        id: &DeliveryId,
        number: u32,
        lease_until: Timestamp,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let Some(prev) = number.checked_sub(1) else {
            return Ok(false);
        };
        let res = self
            .client
            .update_item()
            .table_name(&self.table)
            .key(attr::PK, s(id.as_str()))
            .key(attr::SK, s(DELIVERY_SK))
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
                (":lease", n(lease_until.unix_millis())),
                (":now", n(now.unix_millis())),
            ])))
            .send()
            .await;
        match res {
            Ok(_) => Ok(true),
            Err(e)
                if e.as_service_error()
                    .is_some_and(|se| se.is_conditional_check_failed_exception()) =>
            {
                Ok(false)
            }
            Err(e) => Err(unavailable("UpdateItem", &e)),
        }
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
            .set_item(Some(encode_attempt(attempt, after.created_at)?))
            .condition_expression("attribute_not_exists(#pk)")
            .expression_attribute_names("#pk", attr::PK)
            .build()
            .map_err(|e| build_error("attempt put", e))?;
        let delivery_put = Put::builder()
            .table_name(&self.table)
            .set_item(Some(encode_delivery(after)))
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
        let res = self
            .client
            .transact_write_items()
            .transact_items(TransactWriteItem::builder().put(attempt_put).build())
            .transact_items(TransactWriteItem::builder().put(delivery_put).build())
            .send()
            .await;
        let err = match res {
            Ok(_) => return Ok(true),
            Err(e) => e,
        };
        if let Some(TransactWriteItemsError::TransactionCanceledException(tc)) =
            err.as_service_error()
        {
            let codes: Vec<&str> = tc
                .cancellation_reasons()
                .iter()
                .filter_map(|r| r.code())
                .collect();
            if codes.contains(&CONDITIONAL_CHECK_FAILED) {
                return Ok(false);
            }
            // TransactionConflict (another write on the delivery at the same moment) or a
            // throttle: nothing was written, but no condition failed; the caller retries.
            return Err(StoreError::Unavailable(format!(
                "TransactWriteItems: cancelled ({})",
                codes.join(", ")
            )));
        }
        Err(unavailable("TransactWriteItems", &err))
    }

    /// Every recorded attempt of the delivery, by number (consistent read).
    async fn list_attempts(&self, id: &DeliveryId) -> Result<Vec<Attempt>, StoreError> {
        let mut out = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let page = self
                .client
                .query()
                .table_name(&self.table)
                .key_condition_expression("#pk = :pk AND begins_with(#sk, :attempt)")
                .set_expression_attribute_names(Some(attrs(&[
                    ("#pk", attr::PK.to_owned()),
                    ("#sk", attr::SK.to_owned()),
                ])))
                .set_expression_attribute_values(Some(attrs(&[
                    (":pk", s(id.as_str())),
                    (":attempt", s(ATTEMPT_SK_PREFIX)),
                ])))
                .consistent_read(true)
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| unavailable("Query", &e))?;
            for item in page.items() {
                out.push(decode_attempt(item)?);
            }
            match page.last_evaluated_key() {
                Some(k) if !k.is_empty() => start = Some(k.clone()),
                _ => break,
            }
        }
        out.sort_by_key(|a| a.number);
        Ok(out)
    }

    /// Reads the sparse `due` index, oldest due first (eventually consistent: a delivery
    /// that has just been advanced may still show; it is filtered out when the index already
    /// shows it final).
    async fn list_overdue(
        &self,
        before: Timestamp,
        limit: usize,
    ) -> Result<Vec<Delivery>, StoreError> {
        let mut out: Vec<Delivery> = Vec::new();
        let mut start: Option<Item> = None;
        while out.len() < limit {
            let remaining = limit - out.len();
            let page = self
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
                .scan_index_forward(true)
                .limit(i32::try_from(remaining).unwrap_or(i32::MAX))
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| unavailable("Query", &e))?;
            for item in page.items() {
                let d = decode_delivery(item)?;
                if d.status == DeliveryStatus::Pending && out.len() < limit {
                    out.push(d);
                }
            }
            match page.last_evaluated_key() {
                Some(k) if !k.is_empty() => start = Some(k.clone()),
                _ => break,
            }
        }
        Ok(out)
    }
}

/// The dashboard's port: the inherent queries and the resend.
#[async_trait]
impl DeliveryAdmin for DynamoDeliveries {
    async fn list_by_endpoint(
        &self,
        endpoint: &WebhookEndpointId,
        status: Option<DeliveryStatus>,
        limit: usize,
        cursor: Option<String>,
    ) -> Result<Page<Delivery>, StoreError> {
        let (items, next_cursor) =
            DynamoDeliveries::list_by_endpoint(self, endpoint, status, limit, cursor).await?;
        Ok(Page { items, next_cursor })
    }

    async fn list_by_event(&self, event: &EventId) -> Result<Vec<Delivery>, StoreError> {
        DynamoDeliveries::list_by_event(self, event).await
    }

    async fn reset_for_resend(
        &self,
        id: &DeliveryId,
        now: Timestamp,
    ) -> Result<Option<Delivery>, StoreError> {
        DynamoDeliveries::reset_for_resend(self, id, now).await
    }
}

// --- cursors -----------------------------------------------------------------------------

/// The `byEndpoint` position just after `d`: the index keys and the table keys, as the
/// lowercase hex of a JSON object of strings.
fn encode_cursor(d: &Delivery) -> String {
    let key: HashMap<&str, String> = HashMap::from([
        (attr::PK, d.id.as_str().to_owned()),
        (attr::SK, DELIVERY_SK.to_owned()),
        (attr::ENDPOINT_ID, d.endpoint_id.as_str().to_owned()),
        (attr::CREATED_AT, d.created_at.to_iso8601()),
    ]);
    to_hex(&serde_json::to_vec(&key).unwrap_or_default())
}

/// The cursor of a `LastEvaluatedKey` of the `byEndpoint` index.
fn encode_key_cursor(key: &Item) -> Result<String, StoreError> {
    let mut out: HashMap<&str, &str> = HashMap::new();
    for name in CURSOR_KEYS {
        match key.get(name) {
            Some(AttributeValue::S(v)) => {
                out.insert(name, v);
            }
            _ => {
                return Err(StoreError::Corrupt(format!(
                    "LastEvaluatedKey lacks the string `{name}`"
                )))
            }
        }
    }
    Ok(to_hex(&serde_json::to_vec(&out).unwrap_or_default()))
}

const CURSOR_KEYS: [&str; 4] = [attr::PK, attr::SK, attr::ENDPOINT_ID, attr::CREATED_AT];

fn invalid_cursor() -> StoreError {
    StoreError::Corrupt("invalid cursor".to_owned())
}

/// The `ExclusiveStartKey` of a cursor, which must be one of `endpoint`'s.
fn decode_cursor(cursor: &str, endpoint: &WebhookEndpointId) -> Result<Item, StoreError> {
    let bytes = from_hex(cursor).ok_or_else(invalid_cursor)?;
    let key: HashMap<String, String> =
        serde_json::from_slice(&bytes).map_err(|_| invalid_cursor())?;
    let valid = key.len() == CURSOR_KEYS.len()
        && CURSOR_KEYS.iter().all(|k| key.contains_key(*k))
        && key.get(attr::ENDPOINT_ID).map(String::as_str) == Some(endpoint.as_str())
        && key.get(attr::SK).map(String::as_str) == Some(DELIVERY_SK)
        && key
            .get(attr::PK)
            .is_some_and(|v| DeliveryId::parse(v).is_ok())
        && key
            .get(attr::CREATED_AT)
            .is_some_and(|v| Timestamp::parse_iso8601(v).is_some());
    if !valid {
        return Err(invalid_cursor());
    }
    Ok(key.into_iter().map(|(k, v)| (k, s(v))).collect())
}

fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

fn from_hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| {
        char::from(c)
            .to_digit(16)
            .and_then(|d| u8::try_from(d).ok())
    };
    s.as_bytes()
        .chunks(2)
        .map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use paygate_domain::{EventType, MerchantId, Mode};

    use super::*;

    fn delivery(endpoint: &str) -> Delivery {
        let t0 = Timestamp::from_unix_millis(1_795_255_200_000);
        Delivery {
            id: DeliveryId::parse("dlv_abc").unwrap(),
            merchant_id: MerchantId::parse("mch_1").unwrap(),
            endpoint_id: WebhookEndpointId::parse(endpoint).unwrap(),
            event_id: EventId::parse("evt_1").unwrap(),
            event_type: EventType::PaymentCaptured,
            mode: Mode::Test,
            status: DeliveryStatus::Pending,
            attempts_made: 0,
            next_attempt_at: None,
            created_at: t0,
            updated_at: t0,
            retry_base: 0,
        }
    }

    #[test]
    fn hex_round_trips_and_rejects_garbage() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(from_hex(&to_hex(&bytes)), Some(bytes));
        assert_eq!(to_hex(b"\x01\xab"), "01ab");
        assert_eq!(from_hex("0"), None);
        assert_eq!(from_hex("zz"), None);
        assert_eq!(from_hex("ab").unwrap(), vec![0xab]);
    }

    #[test]
    fn cursors_are_bound_to_their_endpoint() {
        let d = delivery("whe_one");
        let c = encode_cursor(&d);
        let key = decode_cursor(&c, &d.endpoint_id).unwrap();
        assert_eq!(key.get("pk"), Some(&s("dlv_abc")));
        assert_eq!(key.get("sk"), Some(&s("DELIVERY")));
        assert_eq!(key.get("createdAt"), Some(&t(d.created_at)));
        assert_eq!(key.len(), 4);
        // the same cursor on another endpoint, or a tampered one, is refused
        let other = WebhookEndpointId::parse("whe_two").unwrap();
        assert!(matches!(
            decode_cursor(&c, &other),
            Err(StoreError::Corrupt(_))
        ));
        assert!(decode_cursor("nothex", &d.endpoint_id).is_err());
        assert!(decode_cursor(&to_hex(b"{}"), &d.endpoint_id).is_err());
        // and a LastEvaluatedKey encodes to the same cursor
        assert_eq!(
            decode_cursor(&encode_key_cursor(&key).unwrap(), &d.endpoint_id).unwrap(),
            key
        );
    }
}
