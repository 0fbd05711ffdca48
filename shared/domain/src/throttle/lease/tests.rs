#![allow(clippy::unwrap_used)]

use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::{
    throttle::{decide, Verdict},
    Timestamp,
};

/// Runs a future that never waits (the counters here are in memory).
fn run<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

const T: Timestamp = Timestamp::from_unix_millis(1_795_251_600_000); // a whole minute

/// A window's minute total and its seconds' counts.
type WindowCounts = (u64, HashMap<u32, u64>);

/// The shared counters in memory, counting their writes.
#[derive(Default)]
struct Shared {
    windows: Mutex<HashMap<String, WindowCounts>>,
    writes: AtomicUsize,
    failing: std::sync::atomic::AtomicBool,
}

impl Shared {
    fn add(&self, window: &Window, minute_n: u64) -> Result<Counts, StoreError> {
        self.writes.fetch_add(1, Ordering::SeqCst);
        if self.failing.load(Ordering::SeqCst) {
            return Err(StoreError::Unavailable("injected".into()));
        }
        let mut w = self.windows.lock().unwrap();
        let (minute, seconds) = w.entry(window.id.clone()).or_default();
        *minute += minute_n;
        let s = seconds.entry(window.second).or_default();
        *s += 1;
        Ok(Counts {
            second: *s,
            minute: *minute,
        })
    }
    fn writes(&self) -> usize {
        self.writes.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl RateCounter for Shared {
    async fn hit(&self, window: &Window) -> Result<Counts, StoreError> {
        self.add(window, 1)
    }
}

#[async_trait]
impl LeaseCounter for Shared {
    async fn lease(&self, window: &Window, tokens: u32) -> Result<Counts, StoreError> {
        self.add(window, u64::from(tokens))
    }
}

#[test]
fn api_requests_write_once_per_batch_and_spend_distinct_ordinals() {
    run(async {
        let shared = Arc::new(Shared::default());
        let a = Leased::new(shared.clone(), 4);
        let b = Leased::new(shared.clone(), 4);
        let mut ordinals = Vec::new();
        for i in 0..8 {
            let now = T.plus_millis(i * 1_000);
            let inst = if i % 2 == 0 { &a } else { &b };
            ordinals.push(
                inst.hit(&Window::at("key_1", Scope::Api, now))
                    .await
                    .unwrap()
                    .minute,
            );
        }
        // Two instances, 8 requests: one lease each (8 ordinals), not 8 writes.
        assert_eq!(shared.writes(), 2);
        ordinals.sort_unstable();
        assert_eq!(ordinals, (1..=8).collect::<Vec<u64>>());
        // The next minute is a new window: a new lease.
        a.hit(&Window::at("key_1", Scope::Api, T.plus_millis(60_000)))
            .await
            .unwrap();
        assert_eq!(shared.writes(), 3);
    });
}

#[test]
fn points_and_unknown_scopes_are_counted_request_by_request() {
    run(async {
        let shared = Arc::new(Shared::default());
        let leased = Leased::new(shared.clone(), 10);
        for i in 0..3 {
            let c = leased
                .hit(&Window::at("key_1", Scope::Points, T.plus_millis(i)))
                .await
                .unwrap();
            assert_eq!(c.minute, u64::try_from(i).unwrap() + 1);
        }
        assert_eq!(shared.writes(), 3, "points inquiry stays strict");
        let other = Window {
            id: format!("key_1#points_card#{}", T.unix_seconds() / 60),
            second: 0,
            expires_at: 0,
        };
        leased.hit(&other).await.unwrap();
        assert_eq!(
            shared.writes(),
            4,
            "a scope it does not know is never leased"
        );
        // A failing store fails the points request (its scope fails closed at the edge).
        shared.failing.store(true, Ordering::SeqCst);
        assert!(leased
            .hit(&Window::at("key_1", Scope::Points, T))
            .await
            .is_err());
    });
}

#[test]
fn a_failed_lease_is_an_error_and_nothing_is_spent_from_it() {
    run(async {
        let shared = Arc::new(Shared::default());
        shared.failing.store(true, Ordering::SeqCst);
        let leased = Leased::new(shared.clone(), 5);
        let w = Window::at("key_1", Scope::Api, T);
        assert!(leased.hit(&w).await.is_err());
        assert!(leased.hit(&w).await.is_err(), "no batch after a failure");
        assert_eq!(shared.writes(), 2);
    });
}

#[test]
fn the_minute_limit_is_never_exceeded_across_instances() {
    run(async {
        let limit = RateLimit::new(50, 30).unwrap();
        let size = 7;
        let shared = Arc::new(Shared::default());
        let instances: Vec<Leased> = (0..3).map(|_| Leased::new(shared.clone(), size)).collect();
        let mut allowed = 0;
        for i in 0..200i64 {
            let now = T.plus_millis(i * 250);
            if now.unix_seconds() / 60 != T.unix_seconds() / 60 {
                break;
            }
            let inst = &instances[usize::try_from(i % 3).unwrap()];
            let counts = inst
                .hit(&Window::at("key_1", Scope::Api, now))
                .await
                .unwrap();
            if decide(limit, counts, now) == Verdict::Allow {
                allowed += 1;
            }
        }
        assert!(allowed <= 30, "allowed {allowed}");
        // Ordinals are spent in order, so all but the lost tail of each instance's last batch
        // went through.
        assert!(allowed >= 30 - 2 * (size - 1), "allowed {allowed}");
    });
}

#[test]
fn the_batch_is_a_hundredth_of_the_minute_within_the_burst() {
    assert_eq!(lease_size(super::super::DEFAULT_API_LIMIT), 12);
    assert_eq!(lease_size(RateLimit::new(2, 20).unwrap()), 1);
    assert_eq!(lease_size(RateLimit::new(5, 100_000).unwrap()), 5);
    assert_eq!(lease_size(RateLimit::new(500, 100_000).unwrap()), MAX_LEASE);
}
