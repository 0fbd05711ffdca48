//! Per-API-key throttling: the pure decisions, over shared counters and an in-process gate.
//!
//! Algorithm: two fixed windows counted on one item per key, scope and clock minute. Each
//! request that reaches the counters adds one to the minute's total and to its second's
//! count (one DynamoDB `UpdateItem` with `ADD`, shared by every Lambda instance) and gets
//! both counts back; it is allowed while the second's count is within the **burst** and the
//! minute's within the **sustained rate** (per minute). Refused requests that reached the
//! counters count too (a client that ignores `Retry-After` gains nothing), and a window's
//! counts start again at zero when it ends, so `Retry-After` is the whole seconds until the
//! window that refused ends: 1 for the burst, up to 60 for the minute. A fixed window lets
//! up to twice its limit through across a boundary (the end of one window and the start of
//! the next); that is the price of one write per request.
//!
//! In front of the counters, each Lambda instance keeps an in-process gate per key and scope
//! ([`local::LocalGate`]): token buckets sized from the same limits, and the memory of the
//! counters' last refusal (until its window ends). A request the gate refuses is answered
//! `429` without reaching the counters, so a flood from one key is refused in memory. The
//! gate only ever refuses: a request goes through only if the gate *and* the counters allow
//! it, so it can never be more permissive than the configured limits.
//!
//! Points inquiry has its own, stricter limit under its own counter ([`Scope::Points`]): it
//! answers whether a card is valid, so it must not be an unthrottled oracle. When its counter
//! cannot be read it is refused ([`Scope::fails_closed`]); the other routes are let through.
//! Two more counters bound it beyond one key, both failing closed too: every key of a
//! merchant together ([`Scope::PointsMerchant`]: a merchant with many keys gets no more), and
//! one card across every merchant ([`Scope::PointsCard`], counted per clock minute and clock
//! hour under a keyed HMAC of the card number, never the number: [`card`]).

use async_trait::async_trait;

use crate::{error::StoreError, Timestamp};

pub mod card;
pub mod lease;
pub mod local;

/// One limit: at most `burst` requests in any clock second and `per_minute` in any clock
/// minute. Both are at least 1. (In a scope counted by the hour, [`Scope::window_secs`], the
/// two figures are per clock minute and per clock hour: see [`CardLimit`].)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub burst: u32,
    pub per_minute: u32,
}

impl RateLimit {
    /// A limit, if both figures are positive.
    pub fn new(burst: u32, per_minute: u32) -> Option<Self> {
        (burst > 0 && per_minute > 0).then_some(Self { burst, per_minute })
    }
}

/// Default limit of the merchant routes: 50 requests in a second, 1,200 a minute (20/s
/// sustained).
pub const DEFAULT_API_LIMIT: RateLimit = RateLimit {
    burst: 50,
    per_minute: 1200,
};

/// Default limit of points inquiry: 2 in a second, 20 a minute.
pub const DEFAULT_POINTS_LIMIT: RateLimit = RateLimit {
    burst: 2,
    per_minute: 20,
};

/// Default limit of points inquiry over all of one merchant's keys (in one mode): 20 in a
/// second, 600 a minute (so 100 keys get no more than 30 would).
pub const DEFAULT_POINTS_MERCHANT_LIMIT: RateLimit = RateLimit {
    burst: 20,
    per_minute: 600,
};

/// The limit of one card's points inquiries across every merchant: at most `per_minute` in
/// a clock minute and `per_hour` in a clock hour. Both are at least 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardLimit {
    pub per_minute: u32,
    pub per_hour: u32,
}

impl CardLimit {
    /// A limit, if both figures are positive.
    pub fn new(per_minute: u32, per_hour: u32) -> Option<Self> {
        (per_minute > 0 && per_hour > 0).then_some(Self {
            per_minute,
            per_hour,
        })
    }
}

/// Default limit of one card: 5 inquiries a minute, 20 an hour, whichever merchants send
/// them. A cardholder's balance asked at a few shops an hour stays far below; trying a
/// card's CVVs or expiry dates through many merchants stays at 20 guesses an hour.
pub const DEFAULT_POINTS_CARD_LIMIT: CardLimit = CardLimit {
    per_minute: 5,
    per_hour: 20,
};

/// The limits of every scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub api: RateLimit,
    pub points: RateLimit,
    pub points_merchant: RateLimit,
    pub points_card: CardLimit,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            api: DEFAULT_API_LIMIT,
            points: DEFAULT_POINTS_LIMIT,
            points_merchant: DEFAULT_POINTS_MERCHANT_LIMIT,
            points_card: DEFAULT_POINTS_CARD_LIMIT,
        }
    }
}

impl Limits {
    /// The limit of `scope` in its windows' units ([`Scope::window_secs`]): per second and
    /// minute, or for the card per minute and hour.
    pub fn of(&self, scope: Scope) -> RateLimit {
        match scope {
            Scope::Api => self.api,
            Scope::Points => self.points,
            Scope::PointsMerchant => self.points_merchant,
            Scope::PointsCard => RateLimit {
                burst: self.points_card.per_minute,
                per_minute: self.points_card.per_hour,
            },
        }
    }
}

/// Which counter a request counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Every merchant route but points inquiry.
    Api,
    /// `POST /v1/payments/points/inquiry`, per API key.
    Points,
    /// Points inquiry, over every key of one merchant in one mode.
    PointsMerchant,
    /// Points inquiry, per card across every merchant (in one mode), counted under a keyed
    /// HMAC of the card number ([`card::card_subject`]) by the clock minute and hour.
    PointsCard,
}

impl Scope {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Api => "api",
            Self::Points => "points",
            Self::PointsMerchant => "points_merchant",
            Self::PointsCard => "points_card",
        }
    }

    /// The length of this scope's window in seconds: a clock minute, counted by the second;
    /// for the card a clock hour, counted by the minute (a window is always 60 slots).
    pub const fn window_secs(self) -> i64 {
        match self {
            Self::PointsCard => 3600,
            _ => 60,
        }
    }

    /// Whether a request of this scope is refused when its limit cannot be checked (the
    /// counters unreachable). Points inquiry fails **closed**: it sends a card number and
    /// CVV to the bank and answers whether they are valid, so an attacker who can make the
    /// counters fail (a counter-store outage, or a flood past the per-item write ceiling)
    /// must not get an unthrottled oracle; a points balance is never urgent. Every other
    /// route fails **open**: they move or read the merchant's own payments, the in-process
    /// gate still bounds each instance, and refusing every capture or refund while the
    /// counters are down would turn a counter outage into a payment outage.
    pub const fn fails_closed(self) -> bool {
        matches!(self, Self::Points | Self::PointsMerchant | Self::PointsCard)
    }
}

/// `Retry-After` (whole seconds) of a request refused because its limit could not be
/// checked ([`Scope::fails_closed`]).
pub const UNCHECKED_RETRY_AFTER_SECS: u32 = 5;

/// Why a request was not let through, and when to retry (whole seconds, at least 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Over a limit (`429 rate_limited`).
    Limited { retry_after_secs: u32 },
    /// The limit could not be checked and the scope fails closed
    /// (`503 rate_limit_unavailable`).
    Unchecked { retry_after_secs: u32 },
}

/// How long a window's item is kept after its window starts, beyond the window's length
/// (DynamoDB TTL deletes it some time after; it is never read again once its window is
/// over): a minute's item two minutes after its minute started, an hour's item an hour and a
/// minute after.
pub const WINDOW_KEEP_SECS: i64 = 120;

/// The counter one request adds to: the subject's item for the current window and the slot
/// within it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// `"<subject>#<scope>#<window number>"`: the subject is the key id, the merchant and
    /// mode, or the card's HMAC and mode; the number is the unix minute (the unix hour for
    /// [`Scope::PointsCard`]).
    pub id: String,
    /// The slot within the window, 0 to 59: the second within the minute (the minute within
    /// the hour).
    pub second: u32,
    /// When the item may be deleted (epoch seconds).
    pub expires_at: i64,
}

impl Window {
    /// The window `now` falls in for `subject` and `scope`.
    pub fn at(subject: &str, scope: Scope, now: Timestamp) -> Self {
        let secs = now.unix_seconds();
        let len = scope.window_secs();
        let number = secs.div_euclid(len);
        Self {
            id: format!("{subject}#{}#{number}", scope.as_str()),
            second: u32::try_from(secs.rem_euclid(len) / (len / 60)).unwrap_or(0),
            expires_at: number * len + len + WINDOW_KEEP_SECS - 60,
        }
    }
}

/// The counts after this request was added (for [`Scope::PointsCard`]: in its minute and
/// its hour).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Requests in this clock second, this one included.
    pub second: u64,
    /// Requests in this clock minute, this one included.
    pub minute: u64,
}

/// What happens to the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    /// Refused: retry after this many whole seconds (at least 1), when the window that
    /// refused it has ended.
    Limited {
        retry_after_secs: u32,
    },
}

/// The decision for one request of a scope counted by the minute ([`decide_in`]).
pub fn decide(limit: RateLimit, counts: Counts, now: Timestamp) -> Verdict {
    decide_in(Scope::Api, limit, counts, now)
}

/// The decision for one request of `scope`, from the counts its own increment returned.
pub fn decide_in(scope: Scope, limit: RateLimit, counts: Counts, now: Timestamp) -> Verdict {
    match refused_until_in(scope, limit, counts, now) {
        None => Verdict::Allow,
        Some(until) => Verdict::Limited {
            retry_after_secs: secs_until(now, until),
        },
    }
}

/// [`refused_until_in`] for a scope counted by the minute.
pub fn refused_until(limit: RateLimit, counts: Counts, now: Timestamp) -> Option<Timestamp> {
    refused_until_in(Scope::Api, limit, counts, now)
}

/// When the window that refuses this request ends, if one does: the minute's end when the
/// minute is over its limit, else the second's end when the second is (for
/// [`Scope::PointsCard`]: the hour's, else the minute's). Until then every request of the
/// subject and scope is refused too (a window's counts only grow), which is what the
/// in-process gate remembers ([`local::LocalGate::hold`]).
pub fn refused_until_in(
    scope: Scope,
    limit: RateLimit,
    counts: Counts,
    now: Timestamp,
) -> Option<Timestamp> {
    let ms = now.unix_millis();
    let window_ms = scope.window_secs() * 1000;
    let end = |len: i64| Timestamp::from_unix_millis(ms - ms.rem_euclid(len) + len);
    if counts.minute > u64::from(limit.per_minute) {
        Some(end(window_ms))
    } else if counts.second > u64::from(limit.burst) {
        Some(end(window_ms / 60))
    } else {
        None
    }
}

/// Whole seconds from `now` until `until`, rounded up (a client that waits that long is past
/// it), at least 1.
pub fn secs_until(now: Timestamp, until: Timestamp) -> u32 {
    let left = until.unix_millis().saturating_sub(now.unix_millis());
    u32::try_from(left.saturating_add(999) / 1000)
        .unwrap_or(u32::MAX)
        .max(1)
}

/// The shared counters: adds one request to `window` (its minute and its second) and
/// returns the counts after. Shared by every instance (DynamoDB), never per process.
#[async_trait]
pub trait RateCounter: Send + Sync {
    async fn hit(&self, window: &Window) -> Result<Counts, StoreError>;
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const T: Timestamp = Timestamp::from_unix_millis(1_795_251_600_000); // a whole minute

    fn limit() -> RateLimit {
        RateLimit::new(3, 10).unwrap()
    }

    /// The verdict on a request that is the `second`-th of its clock second and the
    /// `minute`-th of its clock minute, `ms` into the minute.
    fn verdict(second: u64, minute: u64, ms: i64) -> Verdict {
        decide(limit(), Counts { second, minute }, T.plus_millis(ms))
    }

    fn wait(retry_after_secs: u32) -> Verdict {
        Verdict::Limited { retry_after_secs }
    }

    #[test]
    fn within_both_windows_is_allowed() {
        assert_eq!(verdict(3, 10, 0), Verdict::Allow);
    }

    #[test]
    fn over_the_burst_waits_for_the_next_second() {
        assert_eq!(verdict(4, 4, 250), wait(1));
    }

    #[test]
    fn over_the_minute_waits_for_the_next_minute_in_whole_seconds() {
        // 17.4 s into the minute: 42.6 s left, rounded up.
        assert_eq!(verdict(1, 11, 17_400), wait(43));
        // Both exceeded: the minute's wait is the one that counts.
        assert_eq!(verdict(9, 11, 59_999), wait(1));
    }

    #[test]
    fn windows_are_per_key_scope_and_minute() {
        let w = Window::at("key_a", Scope::Points, T.plus_millis(61_500));
        let minute = T.unix_seconds() / 60 + 1;
        assert_eq!(w.id, format!("key_a#points#{minute}"));
        assert_eq!(w.second, 1);
        assert_eq!(w.expires_at, minute * 60 + WINDOW_KEEP_SECS);
        assert_ne!(
            Window::at("key_a", Scope::Api, T).id,
            Window::at("key_b", Scope::Api, T).id
        );
        assert_eq!(RateLimit::new(0, 1), None);
        assert_eq!(RateLimit::new(1, 0), None);
    }

    #[test]
    fn a_card_is_counted_by_the_hour_in_minute_slots() {
        // 1 h 2 min 5 s after a whole hour.
        let now = T.plus_millis(3_725_000);
        let hour = T.unix_seconds() / 3600 + 1;
        let w = Window::at("test:c0ffee", Scope::PointsCard, now);
        assert_eq!(w.id, format!("test:c0ffee#points_card#{hour}"));
        assert_eq!(w.second, 2, "the minute within the hour");
        assert_eq!(w.expires_at, hour * 3600 + 3600 + 60);
        let limit = Limits::default().of(Scope::PointsCard);
        assert_eq!((limit.burst, limit.per_minute), (5, 20));
        let refused =
            |second, minute| decide_in(Scope::PointsCard, limit, Counts { second, minute }, now);
        assert_eq!(refused(5, 20), Verdict::Allow);
        // The sixth in a minute waits for the next minute (55 s); the 21st in an hour for
        // the next hour (57 min 55 s).
        assert_eq!(
            refused(6, 6),
            Verdict::Limited {
                retry_after_secs: 55
            }
        );
        assert_eq!(
            refused(1, 21),
            Verdict::Limited {
                retry_after_secs: 3_475
            }
        );
        // Every points scope fails closed; the merchant's is counted by the minute.
        for scope in [Scope::Points, Scope::PointsMerchant, Scope::PointsCard] {
            assert!(scope.fails_closed(), "{scope:?}");
        }
        assert!(!Scope::Api.fails_closed());
        assert_eq!(Scope::PointsMerchant.window_secs(), 60);
    }

    proptest! {
        /// Counting each request of a run in its window, exactly the first `burst` of any
        /// second and the first `per_minute` of any minute go through, and a refused
        /// request's Retry-After lands in a later window than the one that refused it.
        #[test]
        fn a_counted_run_lets_through_what_the_limits_allow(
            burst in 1u32..6,
            per_minute in 1u32..30,
            gaps in proptest::collection::vec(0i64..700, 1..120),
        ) {
            let limit = RateLimit::new(burst, per_minute).unwrap();
            let mut seconds = std::collections::HashMap::<i64, u64>::new();
            let mut minutes = std::collections::HashMap::<i64, u64>::new();
            let mut allowed_s = std::collections::HashMap::<i64, u64>::new();
            let mut allowed_m = std::collections::HashMap::<i64, u64>::new();
            let mut now = T;
            for gap in gaps {
                now = now.plus_millis(gap);
                let (s, m) = (now.unix_seconds(), now.unix_seconds().div_euclid(60));
                let second = { let e = seconds.entry(s).or_default(); *e += 1; *e };
                let minute = { let e = minutes.entry(m).or_default(); *e += 1; *e };
                match decide(limit, Counts { second, minute }, now) {
                    Verdict::Allow => {
                        *allowed_s.entry(s).or_default() += 1;
                        *allowed_m.entry(m).or_default() += 1;
                    }
                    Verdict::Limited { retry_after_secs } => {
                        prop_assert!((1..=60).contains(&retry_after_secs));
                        let later = now.plus_millis(i64::from(retry_after_secs) * 1000);
                        if minute > u64::from(per_minute) {
                            prop_assert!(later.unix_seconds().div_euclid(60) > m);
                        } else {
                            prop_assert!(later.unix_seconds() > s);
                        }
                    }
                }
            }
            for (s, n) in &allowed_s {
                prop_assert!(*n <= u64::from(burst));
                // Everything within both limits went through.
                let asked = seconds[s];
                let m = s.div_euclid(60);
                if minutes[&m] <= u64::from(per_minute) {
                    prop_assert_eq!(*n, asked.min(u64::from(burst)));
                }
            }
            for n in allowed_m.values() {
                prop_assert!(*n <= u64::from(per_minute));
            }
        }
    }
}
