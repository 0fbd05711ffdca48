//! Leased counting: one shared-counter write per batch of requests instead of one per
//! request, for the scopes that fail open (issue 20, "AWS round trips").
//!
//! [`Leased`] is a [`RateCounter`] in front of the shared counters. For a window of the
//! [`Scope::Api`] scope, the first request of a key in an instance (and the first after its
//! batch is spent) *leases* `size` requests of the window's minute in one write
//! ([`LeaseCounter::lease`]: the minute's total grows by `size`, the second's count by one,
//! for the request that leased). The counts after the lease say which requests of the
//! minute the batch holds — the `size` ordinals ending at the new total — and each request
//! of this instance spends the next one, in memory, until the batch is spent or the minute
//! (the window) ends. Each request's counts are its own ordinal in the minute and its
//! instance's count of the second, so [`super::decide`] refuses exactly as before once an
//! ordinal passes the minute's limit (and the gate then holds the key until the minute ends).
//!
//! What it changes, and bounds:
//! - **minute limit**: still shared and never more permissive: every request allowed spent
//!   an ordinal the shared total counted; leased ordinals not spent before the minute ends
//!   are lost (at most `size - 1` per instance and key a minute), which can only refuse
//!   early;
//! - **burst** (per second): the second's shared count sees one request per lease; the rest
//!   are bounded per instance (this count, and the in-process gate's bucket of `burst`),
//!   so a key served by `n` instances at once may get up to `n × burst` in one second
//!   (before: `burst`). The in-process gate still refuses a flood in each instance;
//! - **writes**: one `UpdateItem` per `size` requests of a key per instance, instead of
//!   one per request;
//! - every other scope (points inquiry, which fails closed, and any scope added later)
//!   goes to the counters request by request, exactly as without this layer.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use async_trait::async_trait;

use crate::{
    error::StoreError,
    throttle::{Counts, RateCounter, RateLimit, Scope, Window},
};

/// Largest batch one lease takes.
pub const MAX_LEASE: u32 = 20;

/// Most keys one instance keeps a batch for before it starts again empty.
const MAX_LEASES: usize = 4096;

/// Shared counters that can count a batch in one write.
#[async_trait]
pub trait LeaseCounter: RateCounter {
    /// Adds `tokens` to `window`'s minute and one to its second; the counts after.
    async fn lease(&self, window: &Window, tokens: u32) -> Result<Counts, StoreError>;
}

/// The batch a limit leases: a hundredth of the minute's limit, at least 1, at most the
/// burst and [`MAX_LEASE`] (the default API limit, 50 a second and 1,200 a minute: 12).
pub fn lease_size(limit: RateLimit) -> u32 {
    (limit.per_minute / 100).clamp(1, limit.burst.clamp(1, MAX_LEASE))
}

/// One instance's batch for a key and scope.
#[derive(Debug, Clone)]
struct Batch {
    /// The window it was leased in (its minute).
    window: String,
    /// The next ordinal to spend and the last one leased.
    next: u64,
    last: u64,
    /// The second of the last request counted, and how many this instance counted in it.
    second: u32,
    in_second: u64,
}

/// A [`RateCounter`] that leases batches for [`Scope::Api`]. See the module documentation.
pub struct Leased {
    inner: Arc<dyn LeaseCounter>,
    size: u32,
    batches: Mutex<HashMap<String, Batch>>,
}

impl Leased {
    /// Leases `size` requests at a time (1: one write per request, as without it).
    pub fn new(inner: Arc<dyn LeaseCounter>, size: u32) -> Self {
        Self {
            inner,
            size: size.max(1),
            batches: Mutex::new(HashMap::new()),
        }
    }

    /// Spends the next ordinal of the window's batch, if it has one left.
    fn spend(&self, key: &str, window: &Window) -> Option<Counts> {
        let mut batches = self.batches.lock().ok()?;
        let b = batches.get_mut(key)?;
        if b.window != window.id || b.next > b.last {
            return None;
        }
        let minute = b.next;
        b.next += 1;
        if b.second == window.second {
            b.in_second += 1;
        } else {
            b.second = window.second;
            b.in_second = 1;
        }
        Some(Counts {
            second: b.in_second,
            minute,
        })
    }
}

/// `(key and scope, scope)` of a window id (`<keyId>#<scope>#<minute>`).
fn parts(window: &Window) -> Option<(&str, &str)> {
    let (rest, _minute) = window.id.rsplit_once('#')?;
    let (_key, scope) = rest.rsplit_once('#')?;
    Some((rest, scope))
}

#[async_trait]
impl RateCounter for Leased {
    async fn hit(&self, window: &Window) -> Result<Counts, StoreError> {
        let key = match parts(window) {
            Some((key, scope)) if scope == Scope::Api.as_str() && self.size > 1 => key,
            // Any other scope: request by request.
            _ => return self.inner.hit(window).await,
        };
        if let Some(counts) = self.spend(key, window) {
            return Ok(counts);
        }
        let after = self.inner.lease(window, self.size).await?;
        let first = after
            .minute
            .saturating_sub(u64::from(self.size))
            .saturating_add(1);
        if let Ok(mut batches) = self.batches.lock() {
            if batches.len() >= MAX_LEASES {
                batches.clear();
            }
            batches.insert(
                key.to_owned(),
                Batch {
                    window: window.id.clone(),
                    next: first + 1,
                    last: after.minute,
                    second: window.second,
                    in_second: after.second,
                },
            );
        }
        Ok(Counts {
            second: after.second,
            minute: first,
        })
    }
}

#[cfg(test)]
mod tests;
