//! The wrapper over in-memory counters, a manual clock and a handler that counts its runs;
//! with the `Idempotency-Key` wrapper inside it, as the functions compose them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::atomic::{AtomicUsize, Ordering};

use lambda_http::{
    aws_lambda_events::apigw::{ApiGatewayRequestAuthorizer, ApiGatewayV2httpRequestContext},
    http::StatusCode,
    request::RequestContext,
    RequestExt,
};
use paygate_domain::testkit::{
    ManualClock, MemoryIdempotency, MemoryRateCounter, RecordingMetrics, SeqIds, T0,
};
use paygate_domain::{ids::ApiKeyId, throttle::RateLimit, MerchantId, Mode};
use paygate_payments::Principal;
use serde_json::Value;

use super::*;
use crate::{context::principal_fields, idempotent, Idempotency};

struct World {
    throttle: Throttle,
    counter: Arc<MemoryRateCounter>,
    clock: Arc<ManualClock>,
    metrics: Arc<RecordingMetrics>,
    runs: AtomicUsize,
}

fn world() -> World {
    let counter = Arc::new(MemoryRateCounter::new());
    // 12.5 s into a minute.
    let clock = Arc::new(ManualClock::at(T0.plus_millis(12_500)));
    let metrics = Arc::new(RecordingMetrics::new());
    World {
        throttle: Throttle {
            counter: counter.clone(),
            limits: Limits {
                api: RateLimit::new(3, 5).unwrap(),
                points: RateLimit::new(1, 2).unwrap(),
                ..Limits::default()
            },
            clock: clock.clone(),
            metrics: metrics.clone(),
            gate: Arc::default(),
        },
        counter,
        clock,
        metrics,
        runs: AtomicUsize::new(0),
    }
}

fn request(key: Option<&str>, idempotency_key: Option<&str>) -> Request {
    let mut b = lambda_http::http::Request::builder()
        .method("POST")
        .uri("/v1/payments/pay_1/refund");
    if let Some(k) = idempotency_key {
        b = b.header(crate::idempotency::IDEMPOTENCY_KEY_HEADER, k);
    }
    let req = b.body(Body::Text("{}".into())).unwrap();
    let mut auth = ApiGatewayRequestAuthorizer::default();
    if let Some(key) = key {
        auth.fields = principal_fields(&Ok(Principal {
            merchant_id: MerchantId::parse("mch_a").unwrap(),
            mode: Mode::Test,
            key_id: ApiKeyId::parse(key).unwrap(),
        }));
    }
    let mut ctx = ApiGatewayV2httpRequestContext::default();
    ctx.authorizer = Some(auth);
    req.with_request_context(RequestContext::ApiGatewayV2(ctx))
}

impl World {
    async fn call(&self, scope: Scope, req: &Request) -> Response<Body> {
        let handler = async {
            self.runs.fetch_add(1, Ordering::SeqCst);
            crate::respond::json(StatusCode::OK, &serde_json::json!({"ok": true}))
        };
        throttled(&self.throttle, scope, req, handler).await
    }

    fn runs(&self) -> usize {
        self.runs.load(Ordering::SeqCst)
    }
}

fn body(resp: &Response<Body>) -> Value {
    match resp.body() {
        Body::Text(t) => serde_json::from_str(t).unwrap(),
        other => panic!("unexpected body {other:?}"),
    }
}

fn retry_after(resp: &Response<Body>) -> Option<&str> {
    resp.headers()
        .get(RETRY_AFTER_HEADER)
        .map(|v| v.to_str().unwrap())
}

#[tokio::test]
async fn a_burst_over_the_limit_is_refused_with_429_and_retry_after_without_running() {
    let w = world();
    let req = request(Some("key_a"), None);
    for _ in 0..3 {
        assert_eq!(w.call(Scope::Api, &req).await.status(), 200);
    }
    let refused = w.call(Scope::Api, &req).await;
    assert_eq!(refused.status(), 429);
    assert_eq!(retry_after(&refused), Some("1"));
    assert_eq!(body(&refused)["error"]["code"], "rate_limited");
    assert_eq!(w.runs(), 3, "the refused request did not run");
    assert_eq!(w.counter.calls(), 3, "refused in memory: never counted");
    assert_eq!(
        w.metrics.all(),
        vec![Metric::Throttled { scope: Scope::Api }]
    );
    // The next second has room again; the sustained rate (5 a minute) has one more, then
    // waits for its next token: 12 s a token, 1 s of it gone → 11.
    w.clock.advance_millis(1_000);
    assert_eq!(w.call(Scope::Api, &req).await.status(), 200);
    assert_eq!(w.call(Scope::Api, &req).await.status(), 200);
    let over = w.call(Scope::Api, &req).await;
    assert_eq!(over.status(), 429);
    assert_eq!(retry_after(&over), Some("11"));
    assert_eq!((w.runs(), w.counter.calls()), (5, 5));
}

#[tokio::test]
async fn a_refusal_by_the_counters_holds_the_key_in_memory_until_its_window_ends() {
    let w = world();
    let req = request(Some("key_a"), None);
    // Other instances used up the key's minute (5).
    let window = Window::at("key_a", Scope::Api, w.clock.now());
    for _ in 0..5 {
        w.counter.hit(&window).await.unwrap();
    }
    // The counters refuse: 12.5 s into the minute, 47.5 s left → 48.
    let refused = w.call(Scope::Api, &req).await;
    assert_eq!(refused.status(), 429);
    assert_eq!(retry_after(&refused), Some("48"));
    // A flood of the same key is refused in memory until the minute ends: one write.
    for _ in 0..200 {
        let again = w.call(Scope::Api, &req).await;
        assert_eq!(again.status(), 429);
        assert_eq!(retry_after(&again), Some("48"));
    }
    assert_eq!(w.counter.calls(), 6);
    assert_eq!(w.runs(), 0);
    w.clock.advance_millis(47_499);
    assert_eq!(retry_after(&w.call(Scope::Api, &req).await), Some("1"));
    assert_eq!(w.counter.calls(), 6);
    // The next minute: counted again, and allowed.
    w.clock.advance_millis(1);
    assert_eq!(w.call(Scope::Api, &req).await.status(), 200);
    assert_eq!((w.runs(), w.counter.calls()), (1, 7));
}

#[tokio::test]
async fn keys_and_scopes_are_counted_apart_and_points_is_stricter() {
    let w = world();
    let a = request(Some("key_a"), None);
    let b = request(Some("key_b"), None);
    assert_eq!(w.call(Scope::Points, &a).await.status(), 200);
    let second = w.call(Scope::Points, &a).await;
    assert_eq!(second.status(), 429, "points: one a second");
    assert_eq!(retry_after(&second), Some("1"));
    // Another key, and the same key's other routes, are not affected.
    assert_eq!(w.call(Scope::Points, &b).await.status(), 200);
    assert_eq!(w.call(Scope::Api, &a).await.status(), 200);
    assert_eq!(w.runs(), 3);
}

#[tokio::test]
async fn a_request_without_a_key_is_not_counted_and_gets_its_401_from_the_handler() {
    let w = world();
    let anonymous = request(None, None);
    for _ in 0..10 {
        w.call(Scope::Api, &anonymous).await;
    }
    assert_eq!(w.runs(), 10);
    assert_eq!(w.counter.calls(), 0);
}

#[tokio::test]
async fn when_the_counters_fail_requests_go_through_within_the_gate_with_a_metric() {
    let w = world();
    w.counter.fail(true);
    let req = request(Some("key_a"), None);
    let answers: Vec<u16> = {
        let mut out = Vec::new();
        for _ in 0..5 {
            out.push(w.call(Scope::Api, &req).await.status().as_u16());
        }
        out
    };
    // Fail open, bounded by the instance's gate (a burst of 3).
    assert_eq!(answers, [200, 200, 200, 429, 429]);
    assert_eq!(w.runs(), 3);
    let store_error = Metric::ThrottleStoreError { scope: Scope::Api };
    let throttled = Metric::Throttled { scope: Scope::Api };
    assert_eq!(
        w.metrics.all(),
        vec![
            store_error.clone(),
            store_error.clone(),
            store_error,
            throttled.clone(),
            throttled
        ]
    );
}

#[tokio::test]
async fn points_fails_closed_when_its_counters_fail_and_a_flood_never_reaches_them() {
    let w = world();
    w.counter.fail(true);
    let req = request(Some("key_a"), None);
    let first = w.call(Scope::Points, &req).await;
    assert_eq!(first.status(), 503);
    assert_eq!(retry_after(&first), Some("5"));
    assert_eq!(body(&first)["error"]["code"], "rate_limit_unavailable");
    // The rest of the flood is refused in memory (a burst of 1): never counted, never run.
    for _ in 0..100 {
        assert_eq!(w.call(Scope::Points, &req).await.status(), 429);
    }
    assert_eq!(w.runs(), 0, "nothing ran");
    assert_eq!(w.counter.calls(), 1);
    // Each second lets one more try the counters: still down, still refused.
    w.clock.advance_millis(1_000);
    assert_eq!(w.call(Scope::Points, &req).await.status(), 503);
    assert_eq!(w.runs(), 0);
    let metrics = w.metrics.all();
    assert_eq!(
        metrics
            .iter()
            .filter(|m| **m
                == Metric::ThrottleStoreError {
                    scope: Scope::Points
                })
            .count(),
        2
    );
    // Back: points inquiries run again, once the gate has a token (the two refused tries
    // took the sustained rate's two; one comes back every 30 s).
    w.counter.fail(false);
    w.clock.advance_millis(30_000);
    assert_eq!(w.call(Scope::Points, &req).await.status(), 200);
    assert_eq!(w.runs(), 1);
}

#[tokio::test]
async fn a_throttled_request_records_nothing_under_its_idempotency_key() {
    let w = world();
    let idem = Idempotency {
        store: Arc::new(MemoryIdempotency::default()),
        clock: w.clock.clone(),
        ids: Arc::new(SeqIds::default()),
    };
    let call = |key: &'static str| {
        let req = request(Some("key_a"), Some(key));
        let w = &w;
        let idem = &idem;
        async move {
            let handler = async {
                w.runs.fetch_add(1, Ordering::SeqCst);
                crate::respond::json(StatusCode::OK, &serde_json::json!({"ok": true}))
            };
            let inner = idempotent(idem, &req, handler);
            throttled(&w.throttle, Scope::Api, &req, inner).await
        }
    };
    for k in ["k1", "k2", "k3"] {
        assert_eq!(call(k).await.status(), 200);
    }
    let refused = call("k4").await;
    assert_eq!(refused.status(), 429);
    assert!(refused
        .headers()
        .get(crate::idempotency::IDEMPOTENT_REPLAYED_HEADER)
        .is_none());
    // Once the window has room, the same key runs: nothing was recorded for it.
    w.clock.advance_millis(1_000);
    let retried = call("k4").await;
    assert_eq!(retried.status(), 200);
    assert!(retried
        .headers()
        .get(crate::idempotency::IDEMPOTENT_REPLAYED_HEADER)
        .is_none());
    assert_eq!(w.runs(), 4);
    // A replay is a request like any other: k1's answer again (not run), counted, and then
    // the sustained rate (5 a minute) is used up.
    w.clock.advance_millis(1_000);
    let replay = call("k1").await;
    assert_eq!(replay.status(), 200);
    assert!(replay
        .headers()
        .get(crate::idempotency::IDEMPOTENT_REPLAYED_HEADER)
        .is_some());
    assert_eq!(w.counter.calls(), 5);
    assert_eq!(call("k2").await.status(), 429);
    assert_eq!(w.runs(), 4);
}
