use std::collections::HashMap;

use proptest::prelude::*;

use super::*;
use crate::throttle::{decide, refused_until, Counts};

const T: Timestamp = Timestamp::from_unix_millis(1_795_251_600_000); // a whole minute

fn limit(burst: u32, per_minute: u32) -> RateLimit {
    RateLimit::new(burst, per_minute).unwrap()
}

fn wait(retry_after_secs: u32) -> Verdict {
    Verdict::Limited { retry_after_secs }
}

#[test]
fn a_new_key_has_its_burst_and_then_waits_for_the_next_token() {
    let mut g = LocalGate::default();
    let l = limit(3, 100);
    for _ in 0..3 {
        assert_eq!(g.take("key_a", Scope::Api, l, T), Verdict::Allow);
    }
    // A third of a second to the next token: one whole second.
    assert_eq!(g.take("key_a", Scope::Api, l, T), wait(1));
    // Another key and the same key's other scope have their own buckets.
    assert_eq!(g.take("key_b", Scope::Api, l, T), Verdict::Allow);
    assert_eq!(g.take("key_a", Scope::Points, l, T), Verdict::Allow);
    // 334 ms later the burst bucket holds one token again (3 a second).
    assert_eq!(g.take("key_a", Scope::Api, l, T.plus_millis(333)), wait(1));
    assert_eq!(
        g.take("key_a", Scope::Api, l, T.plus_millis(334)),
        Verdict::Allow
    );
}

#[test]
fn the_sustained_bucket_spreads_the_minute() {
    let mut g = LocalGate::default();
    let l = limit(5, 6); // one token every 10 s
    for _ in 0..5 {
        assert_eq!(g.take("k", Scope::Points, l, T), Verdict::Allow);
    }
    assert_eq!(
        g.take("k", Scope::Points, l, T.plus_millis(1_000)),
        Verdict::Allow
    );
    // The sustained bucket is down to 0.1 token: 9 s to the next.
    assert_eq!(g.take("k", Scope::Points, l, T.plus_millis(1_000)), wait(9));
    assert_eq!(g.take("k", Scope::Points, l, T.plus_millis(9_999)), wait(1));
    assert_eq!(
        g.take("k", Scope::Points, l, T.plus_millis(10_000)),
        Verdict::Allow
    );
}

#[test]
fn a_hold_refuses_until_the_counters_window_ends() {
    let mut g = LocalGate::default();
    let l = limit(10, 100);
    assert_eq!(g.take("k", Scope::Api, l, T), Verdict::Allow);
    // The counters refused it for the minute, 12.5 s in: held until the minute's end.
    let now = T.plus_millis(12_500);
    let until = refused_until(
        l,
        Counts {
            second: 1,
            minute: 101,
        },
        now,
    )
    .unwrap();
    assert_eq!(until, T.plus_millis(60_000));
    g.hold("k", Scope::Api, until);
    // An earlier end does not shorten it.
    g.hold("k", Scope::Api, T.plus_millis(13_000));
    assert_eq!(g.take("k", Scope::Api, l, now), wait(48));
    assert_eq!(g.take("k", Scope::Api, l, T.plus_millis(59_001)), wait(1));
    assert_eq!(
        g.take("k", Scope::Api, l, T.plus_millis(60_000)),
        Verdict::Allow
    );
    // The key's other scope was never held.
    assert_eq!(g.take("k", Scope::Points, l, now), Verdict::Allow);
}

#[test]
fn a_card_bucket_refills_by_the_minute_and_the_hour() {
    let mut g = LocalGate::default();
    // 5 a minute, 8 an hour.
    let l = limit(5, 8);
    let card = Scope::PointsCard;
    for _ in 0..5 {
        assert_eq!(g.take("test:c0ffee", card, l, T), Verdict::Allow);
    }
    // The minute's bucket gains one every 12 s (not every 200 ms, as per second would).
    assert_eq!(
        g.take("test:c0ffee", card, l, T.plus_millis(11_000)),
        wait(1)
    );
    for at in [12_000, 24_000, 36_000] {
        assert_eq!(
            g.take("test:c0ffee", card, l, T.plus_millis(at)),
            Verdict::Allow
        );
    }
    // The hour's 8 are spent: it gains one every 450 s, 48 s of which have passed.
    let now = T.plus_millis(48_000);
    assert_eq!(g.take("test:c0ffee", card, l, now), wait(402));
    // The same figures per second and minute would have let it through.
    assert_eq!(g.take("test:c0ffee", Scope::Points, l, now), Verdict::Allow);
}

#[test]
fn a_clock_that_goes_back_adds_no_tokens() {
    let mut b = Bucket::full(limit(1, 60), T);
    assert_eq!(b.take(T), Verdict::Allow);
    assert_eq!(b.take(T.plus_millis(-5_000)), wait(1));
    assert_eq!(b.take(T.plus_millis(1_000)), Verdict::Allow);
}

#[test]
fn the_gate_is_bounded_and_forgets_full_buckets_first() {
    let mut g = LocalGate::with_max(3);
    let l = limit(1, 60);
    for k in ["a", "b", "c"] {
        assert_eq!(g.take(k, Scope::Api, l, T), Verdict::Allow);
    }
    // 1 s later "a" and "b" are full again, "c" is held.
    g.hold("c", Scope::Api, T.plus_millis(60_000));
    let later = T.plus_millis(1_000);
    assert_eq!(g.take("d", Scope::Api, l, later), Verdict::Allow);
    assert_eq!(g.tracked(), 2, "the idle ones were dropped");
    assert_eq!(g.take("c", Scope::Api, l, later), wait(59), "still held");
    // Full of busy buckets: the one brought up to date longest ago goes.
    g.take("e", Scope::Api, l, later);
    g.take("f", Scope::Api, l, later);
    assert_eq!(g.tracked(), 3);
    // "c" (untouched since T) was forgotten: its next request goes on to the counters.
    assert_eq!(g.take("c", Scope::Api, l, later), Verdict::Allow);
}

/// Fixed-window counters shared by every instance, as the table keeps them.
#[derive(Default)]
struct SharedCounters {
    seconds: HashMap<i64, u64>,
    minutes: HashMap<i64, u64>,
}

impl SharedCounters {
    fn hit(&mut self, now: Timestamp) -> Counts {
        let s = now.unix_seconds();
        let second = self.seconds.entry(s).or_default();
        *second += 1;
        let minute = self.minutes.entry(s.div_euclid(60)).or_default();
        *minute += 1;
        Counts {
            second: *second,
            minute: *minute,
        }
    }
}

proptest! {
    /// Any run of one key's requests over `n` instances, each with its own gate in front of
    /// the shared counters: what is allowed stays within the limits, and the counters' item
    /// takes at most `burst + n` writes a clock second and `per_minute + n` a clock minute,
    /// however many requests come.
    #[test]
    fn gates_and_counters_keep_the_limits_and_bound_the_writes(
        burst in 1u32..6,
        per_minute in 1u32..40,
        instances in 1usize..4,
        run in proptest::collection::vec((0i64..400, 0usize..4), 1..400),
    ) {
        let l = limit(burst, per_minute);
        let mut gates = vec![LocalGate::default(); instances];
        let mut counters = SharedCounters::default();
        let mut allowed_s = HashMap::<i64, u64>::new();
        let mut allowed_m = HashMap::<i64, u64>::new();
        let mut writes_s = HashMap::<i64, u64>::new();
        let mut writes_m = HashMap::<i64, u64>::new();
        let mut now = T;
        for (gap, at) in run {
            now = now.plus_millis(gap);
            let gate = &mut gates[at % instances];
            let (s, m) = (now.unix_seconds(), now.unix_seconds().div_euclid(60));
            if let Verdict::Limited { retry_after_secs } = gate.take("k", Scope::Points, l, now) {
                prop_assert!((1..=60).contains(&retry_after_secs));
                continue;
            }
            *writes_s.entry(s).or_default() += 1;
            *writes_m.entry(m).or_default() += 1;
            let counts = counters.hit(now);
            match decide(l, counts, now) {
                Verdict::Allow => {
                    *allowed_s.entry(s).or_default() += 1;
                    *allowed_m.entry(m).or_default() += 1;
                }
                Verdict::Limited { .. } => {
                    gate.hold("k", Scope::Points, refused_until(l, counts, now).unwrap());
                }
            }
        }
        let n = instances as u64;
        for v in allowed_s.values() { prop_assert!(*v <= u64::from(burst)); }
        for v in allowed_m.values() { prop_assert!(*v <= u64::from(per_minute)); }
        for v in writes_s.values() { prop_assert!(*v <= u64::from(burst) + n, "{v}"); }
        for v in writes_m.values() { prop_assert!(*v <= u64::from(per_minute) + n, "{v}"); }
    }

    /// A client that keeps within the limits over every sliding second and minute (its
    /// requests at least 1/burst s and 1/per_minute min apart) is never refused by the gate.
    #[test]
    fn a_client_within_the_limits_is_never_refused_in_memory(
        burst in 1u32..20,
        per_minute in 1u32..200,
        extra in proptest::collection::vec(0i64..3_000, 1..200),
    ) {
        let l = limit(burst, per_minute);
        let spacing = (1_000 / i64::from(burst)).max(60_000 / i64::from(per_minute)) + 1;
        let mut g = LocalGate::default();
        let mut now = T;
        for e in extra {
            prop_assert_eq!(g.take("k", Scope::Api, l, now), Verdict::Allow);
            now = now.plus_millis(spacing + e);
        }
    }
}
