//! The throttling counters ([`RateCounter`]): one item per API key, scope and clock minute
//! (`pk` = [`Window::id`]), counted by one `UpdateItem` per request that adds one to the
//! minute's total (`n`) and to its second's count (`s0` … `s59`) and returns both. The
//! table is shared by every Lambda instance; items carry `expiresAt` (epoch seconds, the
//! table's TTL attribute), two minutes after their minute started.
//!
//! The SDK retries a call whose answer was lost; `ADD` is not idempotent, so such a request
//! may count twice. Over-counting errs on the strict side and only within one window.
//!
//! **One item per key and minute, and its write ceiling.** DynamoDB serves one item from one
//! partition: about 1,000 write units a second (an item here is far under 1 KB: one unit a
//! write). Past that the item's writes are throttled, the SDK's retries run out and the call
//! fails — for points inquiry a `503` (it fails closed), for the other routes the request is
//! let through. What keeps a key's item under the ceiling is the in-process gate in front of
//! it (`paygate_domain::throttle::local`): a request it refuses never writes, and after the
//! counters refuse a key the instance holds it in memory until the refusing window ends. So
//! whatever the request rate, the item takes at most `burst + n` writes a second and
//! `per_minute + n` a minute, `n` the instances serving the key (a property test holds this
//! bound): with the defaults, `2 + n` for points inquiry and `50 + n` for the other routes —
//! the ceiling needs about 950 instances busy with one key in the same second. Sharding the
//! item over N items would divide the writes but each decision would then read all N
//! (their reads meeting the same per-item ceiling, 3,000 units a second), for a bound the gate
//! already gives; so the counter stays one item.

use async_trait::async_trait;
use aws_sdk_dynamodb::{types::ReturnValue, Client};
use paygate_domain::{
    throttle::{lease::LeaseCounter, Counts, RateCounter, Window},
    StoreError,
};

use crate::dynamo::{
    error::unavailable,
    item::{attrs, n, s, Fields, PK},
};

/// The minute's total.
const TOTAL: &str = "n";
/// The TTL attribute, [`crate::dynamo::schema::THROTTLE`]'s `ttl_attribute`.
const EXPIRES_AT: &str = "expiresAt";

/// The throttle table.
#[derive(Debug, Clone)]
pub struct DynamoRateCounter {
    client: Client,
    table: String,
}

impl DynamoRateCounter {
    pub fn new(client: Client, table: impl Into<String>) -> Self {
        Self {
            client,
            table: table.into(),
        }
    }
}

#[async_trait]
impl RateCounter for DynamoRateCounter {
    async fn hit(&self, window: &Window) -> Result<Counts, StoreError> {
        self.add(window, 1).await
    }
}

/// A batch of `tokens` in one write (`paygate_domain::throttle::lease`): the minute's total
/// grows by `tokens`, the second's count by one.
#[async_trait]
impl LeaseCounter for DynamoRateCounter {
    async fn lease(&self, window: &Window, tokens: u32) -> Result<Counts, StoreError> {
        self.add(window, tokens).await
    }
}

impl DynamoRateCounter {
    /// Adds `tokens` to the window's minute and one to its second; the counts after.
    async fn add(&self, window: &Window, tokens: u32) -> Result<Counts, StoreError> {
        let second = format!("s{}", window.second);
        let out = self
            .client
            .update_item()
            .table_name(&self.table)
            .key(PK, s(window.id.clone()))
            .update_expression("ADD #n :tokens, #s :one SET #exp = :exp")
            .set_expression_attribute_names(Some(attrs(&[
                ("#n", TOTAL.to_owned()),
                ("#s", second.clone()),
                ("#exp", EXPIRES_AT.to_owned()),
            ])))
            .set_expression_attribute_values(Some(attrs(&[
                (":one", n(1)),
                (":tokens", n(tokens)),
                (":exp", n(window.expires_at)),
            ])))
            .return_values(ReturnValue::UpdatedNew)
            .send()
            .await
            .map_err(|e| unavailable("UpdateItem", &e))?;
        let item = out.attributes.unwrap_or_default();
        let f = Fields::new(&item, "throttle");
        Ok(Counts {
            second: f.u64(&second)?,
            minute: f.u64(TOTAL)?,
        })
    }
}
