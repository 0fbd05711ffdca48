//! The outbox: event items and their reader.

use async_trait::async_trait;
use aws_sdk_dynamodb::Client;
use paygate_domain::{
    ports::{Listing, Outbox, OutboxWriter},
    EventId, EventRecord, StoreError, Timestamp,
};

use crate::dynamo::{
    item::{attrs, json_doc, n, s, t, undecodable, Fields, Item},
    read::{get_item, query_page},
    schema::UNSENT_INDEX,
    write::{conditional, conditional_or},
};

/// How many shards the sparse `unsent` index spreads unsent events over (`"0"`, `"1"`, …).
pub const UNSENT_SHARDS: u32 = 4;

/// The `unsentShard` value of an event: a stable hash (FNV-1a) of its id.
pub fn unsent_shard(id: &EventId) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in id.as_str().bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    (h % UNSENT_SHARDS).to_string()
}

/// The attribute whose presence puts an event in the `unsent` index.
pub(crate) const UNSENT_ATTR: &str = "unsentShard";
/// The event's creation in epoch seconds (a number, so `mark_sent` can add the retention).
const CREATED_AT_SECS: &str = "createdAtSecs";
/// The TTL attribute, [`crate::dynamo::schema::EVENTS`]'s `ttl_attribute`: set only once the
/// event is handed over.
const EXPIRES_AT: &str = "expiresAt";
/// Stands in for the creation of an event written before `createdAtSecs` existed: far
/// enough ahead that such an event is never deleted early (year 2100).
const UNKNOWN_CREATION_SECS: i64 = 4_102_444_800;
/// Condition of the event put: event ids are never reused.
pub(crate) const EVENT_ABSENT: &str = "attribute_not_exists(#id)";

/// The event item: routing fields as attributes, the whole record as JSON in `doc`, and the
/// `unsentShard` that keeps it in the `unsent` index until it is marked sent.
pub(crate) fn encode_event(e: &EventRecord) -> Result<Item, StoreError> {
    Ok(Item::from([
        ("id".to_owned(), s(e.id.as_str())),
        ("type".to_owned(), s(e.event_type.as_str())),
        ("mode".to_owned(), s(e.mode.as_str())),
        ("merchantId".to_owned(), s(e.merchant_id.as_str())),
        ("paymentId".to_owned(), s(e.payment_id.as_str())),
        ("createdAt".to_owned(), t(e.created_at)),
        (CREATED_AT_SECS.to_owned(), n(e.created_at.unix_seconds())),
        ("doc".to_owned(), s(json_doc(e, "event")?)),
        (UNSENT_ATTR.to_owned(), s(unsent_shard(&e.id))),
    ]))
}

pub(crate) fn decode_event(item: &Item) -> Result<EventRecord, StoreError> {
    Fields::new(item, "event").json("doc")
}

/// Reads the outbox and marks events sent ([`Outbox`]). Used by the fan-out and by the
/// sweeper that re-sends events the queue never got.
#[derive(Debug, Clone)]
pub struct DynamoEvents {
    client: Client,
    table: String,
    /// How long a handed-over event is kept after it was created (TTL).
    retention_secs: i64,
}

impl DynamoEvents {
    /// An outbox reader over the events table, keeping handed-over events for the default
    /// retention ([`crate::dynamo::schema::DELIVERY_RETENTION_DAYS`]).
    pub fn new(client: Client, events_table: impl Into<String>) -> Self {
        Self {
            client,
            table: events_table.into(),
            retention_secs: crate::dynamo::schema::DEFAULT_RETENTION_SECS,
        }
    }

    /// Keeps handed-over events for `days` days after they were created.
    pub fn with_retention_days(mut self, days: u32) -> Self {
        self.retention_secs = i64::from(days) * 86_400;
        self
    }

    /// One event by id (consistent read).
    pub async fn get_event(&self, id: &EventId) -> Result<Option<EventRecord>, StoreError> {
        let req = self
            .client
            .get_item()
            .table_name(&self.table)
            .key("id", s(id.as_str()))
            .consistent_read(true);
        get_item(req, decode_event).await
    }

    /// Up to `limit` events not yet marked sent, oldest first (by `createdAt`, then id).
    /// Reads the `unsent` index, which is eventually consistent. Undecodable items are left
    /// out (the port's `list_unsent` reports them).
    pub async fn list_unsent(&self, limit: usize) -> Result<Vec<EventRecord>, StoreError> {
        Ok(self.unsent(None, limit).await?.items)
    }

    /// Like [`DynamoEvents::list_unsent`], only events created at or before `before` when
    /// given: up to `limit` from every shard (the oldest of each), merged and capped. An
    /// item that does not decode is skipped and reported, and takes no place in `limit`.
    async fn unsent(
        &self,
        before: Option<Timestamp>,
        limit: usize,
    ) -> Result<Listing<EventRecord>, StoreError> {
        if limit == 0 {
            return Ok(Listing::of(Vec::new()));
        }
        let (key_condition, names) = match before {
            Some(_) => (
                "#shard = :shard AND #created <= :before",
                attrs(&[
                    ("#shard", UNSENT_ATTR.to_owned()),
                    ("#created", "createdAt".to_owned()),
                ]),
            ),
            None => (
                "#shard = :shard",
                attrs(&[("#shard", UNSENT_ATTR.to_owned())]),
            ),
        };
        let mut found = Vec::new();
        let mut skipped = Vec::new();
        for shard in 0..UNSENT_SHARDS {
            let mut values = attrs(&[(":shard", s(shard.to_string()))]);
            if let Some(b) = before {
                values.insert(":before".to_owned(), t(b));
            }
            let query = self
                .client
                .query()
                .table_name(&self.table)
                .index_name(UNSENT_INDEX.name)
                .key_condition_expression(key_condition)
                .set_expression_attribute_names(Some(names.clone()))
                .set_expression_attribute_values(Some(values))
                .scan_index_forward(true);
            let mut taken = 0;
            let mut start: Option<Item> = None;
            while taken < limit {
                let page = query_page(&query, start.take(), Some(limit - taken)).await?;
                for item in &page.items {
                    match decode_event(item) {
                        Ok(e) => {
                            found.push(e);
                            taken += 1;
                        }
                        Err(e) => skipped.push(undecodable(item, "id", &e)),
                    }
                }
                match page.next {
                    Some(k) => start = Some(k),
                    None => break,
                }
            }
        }
        found.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        found.truncate(limit);
        Ok(Listing {
            items: found,
            undecodable: skipped,
        })
    }

    /// Takes an event out of the `unsent` index once it is on the queue, and from then on
    /// lets TTL delete it after the retention (counted from its creation). `false` when
    /// there is no such event, or it was marked sent already.
    pub async fn mark_sent(&self, id: &EventId) -> Result<bool, StoreError> {
        let res = self
            .client
            .update_item()
            .table_name(&self.table)
            .key("id", s(id.as_str()))
            .update_expression("REMOVE #shard SET #exp = if_not_exists(#created, :unknown) + :keep")
            .condition_expression(STILL_UNSENT)
            .expression_attribute_names("#shard", UNSENT_ATTR)
            .expression_attribute_names("#exp", EXPIRES_AT)
            .expression_attribute_names("#created", CREATED_AT_SECS)
            .expression_attribute_values(":unknown", n(UNKNOWN_CREATION_SECS))
            .expression_attribute_values(":keep", n(self.retention_secs))
            .send()
            .await;
        Ok(conditional("UpdateItem", res)?.is_some())
    }
}

/// The outbox port. The inherent methods of the same names stay for existing callers; the
/// port's `list_unsent` also bounds by creation time.
#[async_trait]
impl Outbox for DynamoEvents {
    async fn get_event(&self, id: &EventId) -> Result<Option<EventRecord>, StoreError> {
        DynamoEvents::get_event(self, id).await
    }

    async fn list_unsent(
        &self,
        before: Timestamp,
        limit: usize,
    ) -> Result<Listing<EventRecord>, StoreError> {
        self.unsent(Some(before), limit).await
    }

    async fn mark_sent(&self, id: &EventId) -> Result<bool, StoreError> {
        DynamoEvents::mark_sent(self, id).await
    }
}

/// Writes an event on its own (the dashboard's test event), conditional on its id being new.
/// Stored as sent, it carries no `unsentShard` and so never enters the `unsent` index.
#[async_trait]
impl OutboxWriter for DynamoEvents {
    async fn put_event(&self, event: &EventRecord, sent: bool) -> Result<(), StoreError> {
        let mut item = encode_event(event)?;
        if sent {
            item.remove(UNSENT_ATTR);
            item.insert(
                EXPIRES_AT.to_owned(),
                n(event.created_at.unix_seconds() + self.retention_secs),
            );
        }
        let res = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
            .condition_expression(EVENT_ABSENT)
            .expression_attribute_names("#id", "id")
            .send()
            .await;
        conditional_or("PutItem", res, StoreError::AlreadyExists)
    }
}

/// Condition of marking sent: the event exists and is still in the `unsent` index.
const STILL_UNSENT: &str = "attribute_exists(#shard)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_stable_and_in_range() {
        let id = EventId::parse("evt_abc").unwrap();
        assert_eq!(unsent_shard(&id), unsent_shard(&id));
        let mut seen = std::collections::HashSet::new();
        for i in 0..200 {
            let sh = unsent_shard(&EventId::parse(&format!("evt_{i}")).unwrap());
            let v: u32 = sh.parse().unwrap();
            assert!(v < UNSENT_SHARDS);
            seen.insert(sh);
        }
        assert_eq!(seen.len(), UNSENT_SHARDS as usize, "all shards get used");
    }
}
