//! The in-process gate in front of the shared counters: what one Lambda instance remembers
//! about each API key and scope, so that a flood from one key is refused in memory and never
//! reaches the counters (their table, and the one item per key and minute every request
//! writes).
//!
//! Per key and scope, a [`Bucket`] holds two token buckets sized from the scope's
//! [`RateLimit`]:
//! - the **burst** bucket holds `burst` tokens and gains `burst` a second;
//! - the **sustained** bucket holds `per_minute` tokens and gains `per_minute` a minute;
//!
//! and the **hold**: the end of the window in which the shared counters last refused the key
//! (every request of that window would be refused there too: its counts only grow).
//!
//! A request takes a token from both buckets; if either is empty, or the key is held, it is
//! refused here with the wait until it would not be. Otherwise it goes on to the counters,
//! which decide. So the gate can only refuse, never allow what the counters refuse: it is
//! never more permissive than the configured limits. And it refuses no request the limits
//! allow over any *sliding* second and minute (a client that keeps `burst` in any second and
//! `per_minute` in any minute always finds a token); it is stricter than the fixed windows
//! only for a client that bunches more than a limit's worth around a window's boundary.
//!
//! What reaches the counters from one instance, for one key and scope: allowed requests
//! (at most `burst` a clock second and `per_minute` a clock minute across every instance,
//! since the counters see them all), and at most one refused request per window (the one that
//! starts the hold). Over `n` instances the key's item takes at most `burst + n` writes a
//! second and `per_minute + n` a minute, whatever the request rate.
//!
//! The state lives in the instance (`paygate_http::throttle` keeps one gate per function
//! instance behind a mutex) and is bounded: at most [`MAX_TRACKED`] keys and scopes; a bucket
//! that is full and not held is the same as no bucket and is dropped first.

use std::collections::HashMap;

use super::{secs_until, RateLimit, Scope, Verdict};
use crate::Timestamp;

/// One token, in the buckets' units: with 3,600,000 units a token, a bucket gains
/// `burst × 3,600` units a millisecond (`burst` a second) and `per_minute × 60` units a
/// millisecond (`per_minute` a minute), so every figure is a whole number; and for a scope
/// counted by the hour ([`Scope::window_secs`]) `burst × 60` (a minute) and `per_minute`
/// (an hour).
const TOKEN: u64 = 3_600_000;

/// Most keys and scopes one gate remembers.
pub const MAX_TRACKED: usize = 10_000;

/// What the gate remembers of one key and scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bucket {
    limit: RateLimit,
    /// The scope's window in milliseconds (its slot is a sixtieth).
    window_ms: u64,
    /// The burst bucket's level, in units.
    burst: u64,
    /// The sustained bucket's level, in units.
    sustained: u64,
    /// When the levels were last brought up to date.
    at: Timestamp,
    /// The counters refused the key until then.
    held_until: Option<Timestamp>,
}

impl Bucket {
    /// Both buckets full, nothing held: as a key the instance has not seen (a scope counted
    /// by the minute).
    pub fn full(limit: RateLimit, now: Timestamp) -> Self {
        Self::full_in(Scope::Api, limit, now)
    }

    /// Both buckets full for `scope`'s windows, nothing held.
    pub fn full_in(scope: Scope, limit: RateLimit, now: Timestamp) -> Self {
        Self {
            limit,
            window_ms: u64::try_from(scope.window_secs()).unwrap_or(60) * 1000,
            burst: burst_cap(limit),
            sustained: sustained_cap(limit),
            at: now,
            held_until: None,
        }
    }

    /// The levels at `now` (a clock that goes back adds nothing).
    fn refill(&mut self, now: Timestamp) {
        let elapsed =
            u64::try_from(now.unix_millis().saturating_sub(self.at.unix_millis())).unwrap_or(0);
        if elapsed == 0 {
            return;
        }
        let (burst_rate, sustained_rate) = self.rates();
        self.burst = self
            .burst
            .saturating_add(elapsed.saturating_mul(burst_rate))
            .min(burst_cap(self.limit));
        self.sustained = self
            .sustained
            .saturating_add(elapsed.saturating_mul(sustained_rate))
            .min(sustained_cap(self.limit));
        self.at = now;
    }

    /// One request at `now`: a token from each bucket, or refused with the wait until both
    /// have one (and the hold is over).
    pub fn take(&mut self, now: Timestamp) -> Verdict {
        if let Some(until) = self.held_until {
            if now < until {
                return Verdict::Limited {
                    retry_after_secs: secs_until(now, until),
                };
            }
            self.held_until = None;
        }
        self.refill(now);
        if self.burst >= TOKEN && self.sustained >= TOKEN {
            self.burst -= TOKEN;
            self.sustained -= TOKEN;
            return Verdict::Allow;
        }
        // Milliseconds until a bucket holds a whole token again.
        let wait = |level: u64, per_ms: u64| TOKEN.saturating_sub(level).div_ceil(per_ms);
        let (burst_rate, sustained_rate) = self.rates();
        let ms = wait(self.burst, burst_rate).max(wait(self.sustained, sustained_rate));
        let until = now.plus_millis(i64::try_from(ms).unwrap_or(i64::MAX / 2));
        Verdict::Limited {
            retry_after_secs: secs_until(now, until),
        }
    }

    /// Units a millisecond the burst and the sustained bucket gain: `burst` a slot and
    /// `per_minute` a window.
    fn rates(&self) -> (u64, u64) {
        let window = self.window_ms.max(60);
        (
            u64::from(self.limit.burst) * (TOKEN / (window / 60)),
            u64::from(self.limit.per_minute) * (TOKEN / window),
        )
    }

    /// The counters refused the key until `until`: refuse it here until then too.
    pub fn hold(&mut self, until: Timestamp) {
        self.held_until = Some(self.held_until.map_or(until, |h| h.max(until)));
    }

    /// Whether the bucket is as good as new at `now` (full, not held): forgetting it changes
    /// nothing.
    pub fn idle(&self, now: Timestamp) -> bool {
        let mut b = *self;
        b.refill(now);
        self.held_until.is_none_or(|h| h <= now)
            && b.burst == burst_cap(self.limit)
            && b.sustained == sustained_cap(self.limit)
    }
}

fn burst_cap(limit: RateLimit) -> u64 {
    u64::from(limit.burst) * TOKEN
}

fn sustained_cap(limit: RateLimit) -> u64 {
    u64::from(limit.per_minute) * TOKEN
}

/// The buckets of one instance, by key id and scope (pure: the caller keeps it behind a
/// lock and passes the time).
#[derive(Debug, Clone)]
pub struct LocalGate {
    buckets: HashMap<(String, Scope), Bucket>,
    max_tracked: usize,
}

impl Default for LocalGate {
    fn default() -> Self {
        Self::with_max(MAX_TRACKED)
    }
}

impl LocalGate {
    /// A gate that remembers at most `max_tracked` keys and scopes (at least 1).
    pub fn with_max(max_tracked: usize) -> Self {
        Self {
            buckets: HashMap::new(),
            max_tracked: max_tracked.max(1),
        }
    }

    /// One request of `key_id` in `scope` at `now`, under `limit`: allowed on to the
    /// counters, or refused here.
    pub fn take(
        &mut self,
        key_id: &str,
        scope: Scope,
        limit: RateLimit,
        now: Timestamp,
    ) -> Verdict {
        let id = (key_id.to_owned(), scope);
        if !self.buckets.contains_key(&id) {
            self.make_room(now);
        }
        let bucket = self
            .buckets
            .entry(id)
            .or_insert_with(|| Bucket::full_in(scope, limit, now));
        if bucket.limit != limit {
            // New limits: start from them (only ever set once per instance in practice).
            *bucket = Bucket::full_in(scope, limit, now);
        }
        bucket.take(now)
    }

    /// The counters refused `key_id` in `scope` until `until` (see
    /// [`super::refused_until`]): refuse it here until then.
    pub fn hold(&mut self, key_id: &str, scope: Scope, until: Timestamp) {
        if let Some(b) = self.buckets.get_mut(&(key_id.to_owned(), scope)) {
            b.hold(until);
        }
    }

    /// How many keys and scopes are remembered.
    pub fn tracked(&self) -> usize {
        self.buckets.len()
    }

    /// Room for one more bucket: drop those as good as new, then, if still full, the one
    /// brought up to date longest ago (forgetting a bucket only makes its key's next request
    /// go to the counters, which still decide).
    fn make_room(&mut self, now: Timestamp) {
        if self.buckets.len() < self.max_tracked {
            return;
        }
        self.buckets.retain(|_, b| !b.idle(now));
        while self.buckets.len() >= self.max_tracked {
            let oldest = self
                .buckets
                .iter()
                .min_by_key(|(_, b)| b.at)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => {
                    self.buckets.remove(&k);
                }
                None => break,
            }
        }
    }
}

#[cfg(test)]
mod tests;
