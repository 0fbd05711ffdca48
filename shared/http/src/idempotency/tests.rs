//! The wrapper over an in-memory store, a manual clock and a handler that counts its runs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::atomic::{AtomicUsize, Ordering};

use lambda_http::{
    aws_lambda_events::apigw::{ApiGatewayRequestAuthorizer, ApiGatewayV2httpRequestContext},
    request::RequestContext,
    RequestExt,
};
use paygate_domain::testkit::{IdemFault, IdemOp, ManualClock, MemoryIdempotency, SeqIds, T0};
use paygate_domain::{
    idempotency::{RecordState, LEASE_MS, RETENTION_MS},
    ids::ApiKeyId,
    MerchantId, Mode,
};
use paygate_payments::Principal;

use super::*;
use crate::context::principal_fields;

struct World {
    idem: Idempotency,
    store: Arc<MemoryIdempotency>,
    clock: Arc<ManualClock>,
    runs: AtomicUsize,
}

fn world() -> World {
    let store = Arc::new(MemoryIdempotency::default());
    let clock = Arc::new(ManualClock::at(T0));
    World {
        idem: Idempotency {
            store: store.clone(),
            clock: clock.clone(),
            ids: Arc::new(SeqIds::default()),
        },
        store,
        clock,
        runs: AtomicUsize::new(0),
    }
}

fn principal_of(mode: Mode) -> Principal {
    Principal {
        merchant_id: MerchantId::parse("mch_a").unwrap(),
        mode,
        key_id: ApiKeyId::parse("key_a").unwrap(),
    }
}

fn request(mode: Option<Mode>, path: &str, body: &str, key: Option<&str>) -> Request {
    let mut b = lambda_http::http::Request::builder()
        .method("POST")
        .uri(path)
        .header("content-type", "application/json");
    if let Some(k) = key {
        b = b.header(IDEMPOTENCY_KEY_HEADER, k);
    }
    let req = b.body(Body::Text(body.to_owned())).unwrap();
    let mut auth = ApiGatewayRequestAuthorizer::default();
    if let Some(mode) = mode {
        auth.fields = principal_fields(&Ok(principal_of(mode)));
    }
    let mut ctx = ApiGatewayV2httpRequestContext::default();
    ctx.authorizer = Some(auth);
    req.with_request_context(RequestContext::ApiGatewayV2(ctx))
}

fn post(path: &str, body: &str, key: &str) -> Request {
    request(Some(Mode::Test), path, body, Some(key))
}

const REFUND: &str = "/v1/payments/pay_1/refund";

impl World {
    /// Runs the wrapper around a handler answering `status` with a body naming the run.
    async fn call(&self, req: &Request, status: u16, code: Option<&str>) -> Response<Body> {
        let handler = async {
            let n = self.runs.fetch_add(1, Ordering::SeqCst) + 1;
            let body = match code {
                Some(c) => json!({"error": {"code": c, "message": "m"}, "run": n}),
                None => json!({ "run": n }),
            };
            crate::respond::json(StatusCode::from_u16(status).unwrap(), &body)
        };
        idempotent(&self.idem, req, handler).await
    }

    fn runs(&self) -> usize {
        self.runs.load(Ordering::SeqCst)
    }

    fn scoped(&self, key: &str) -> ScopedKey {
        ScopedKey {
            merchant_id: MerchantId::parse("mch_a").unwrap(),
            mode: Mode::Test,
            key: IdempotencyKey::parse(key.as_bytes()).unwrap(),
        }
    }
}

fn text(resp: &Response<Body>) -> String {
    match resp.body() {
        Body::Text(t) => t.clone(),
        other => panic!("not a text body: {other:?}"),
    }
}

fn code(resp: &Response<Body>) -> String {
    error_code(&text(resp)).unwrap_or_default()
}

fn replayed(resp: &Response<Body>) -> bool {
    resp.headers()
        .get(IDEMPOTENT_REPLAYED_HEADER)
        .is_some_and(|v| v == "true")
}

#[test]
fn the_fingerprint_ignores_json_layout_but_not_method_path_or_values() {
    let a = fingerprint(
        "POST",
        REFUND,
        br#"{"amount": 100, "x": {"b": 1, "a": [1, 2]}}"#,
    );
    let same = fingerprint(
        "post",
        REFUND,
        b"{\"x\":{\"a\":[1,2],\"b\":1},\n \"amount\":100}",
    );
    assert_eq!(a, same);
    assert_ne!(
        a,
        fingerprint(
            "POST",
            REFUND,
            br#"{"amount": 101, "x": {"b": 1, "a": [1, 2]}}"#
        )
    );
    assert_ne!(
        a,
        fingerprint(
            "POST",
            REFUND,
            br#"{"amount": 100, "x": {"b": 1, "a": [2, 1]}}"#
        )
    );
    assert_ne!(
        a,
        fingerprint(
            "POST",
            "/v1/payments/pay_2/refund",
            br#"{"amount": 100, "x": {"b": 1, "a": [1, 2]}}"#
        )
    );
    // an empty body is the empty object, as the handlers read it
    assert_eq!(
        fingerprint("POST", REFUND, b""),
        fingerprint("POST", REFUND, b" {} ")
    );
    // a body that is not JSON counts byte for byte, and never equals a JSON one
    assert_ne!(
        fingerprint("POST", REFUND, b"amount=1"),
        fingerprint("POST", REFUND, b"amount=2")
    );
    assert_ne!(
        fingerprint("POST", REFUND, b"\"x\""),
        fingerprint("POST", REFUND, b"x")
    );
    // the parts are delimited: moving a character from path to body is another request
    assert_ne!(
        fingerprint("POST", "/a1", b"2"),
        fingerprint("POST", "/a", b"12")
    );
}

#[tokio::test]
async fn without_the_header_every_request_runs_and_nothing_is_stored() {
    let w = world();
    let req = request(Some(Mode::Test), REFUND, "{}", None);
    w.call(&req, 200, None).await;
    let resp = w.call(&req, 200, None).await;
    assert_eq!(w.runs(), 2);
    assert!(!replayed(&resp));
    assert!(w.store.records().is_empty());
    assert_eq!(w.store.calls(IdemOp::Begin), 0);
}

#[tokio::test]
async fn the_same_request_gets_the_first_answer_replayed_and_runs_once() {
    let w = world();
    let first = w
        .call(&post(REFUND, r#"{"amount": 100}"#, "k1"), 200, None)
        .await;
    assert_eq!(first.status(), 200);
    assert!(!replayed(&first));
    // the same request, its JSON laid out differently
    let again = w
        .call(&post(REFUND, "{\n  \"amount\" : 100\n}", "k1"), 201, None)
        .await;
    assert_eq!(again.status(), 200);
    assert_eq!(text(&again), text(&first));
    assert!(replayed(&again));
    assert_eq!(
        again.headers().get("content-type").unwrap(),
        "application/json"
    );
    assert_eq!(w.runs(), 1);
}

#[tokio::test]
async fn declines_are_replayed_like_successes() {
    let w = world();
    let first = w
        .call(&post(REFUND, "{}", "k1"), 422, Some("provider_declined"))
        .await;
    let again = w.call(&post(REFUND, "{}", "k1"), 200, None).await;
    assert_eq!(
        (again.status().as_u16(), code(&again)),
        (422, "provider_declined".into())
    );
    assert_eq!(text(&again), text(&first));
    assert!(replayed(&again));
    assert_eq!(w.runs(), 1);
}

#[tokio::test]
async fn the_key_with_another_path_or_body_is_refused_with_a_stable_code() {
    let w = world();
    w.call(&post(REFUND, r#"{"amount": 100}"#, "k1"), 200, None)
        .await;
    let other_body = w
        .call(&post(REFUND, r#"{"amount": 200}"#, "k1"), 200, None)
        .await;
    assert_eq!(other_body.status(), 422);
    assert_eq!(code(&other_body), "idempotency_key_reused");
    assert!(!replayed(&other_body));
    let other_path = w
        .call(
            &post("/v1/payments/pay_1/capture", r#"{"amount": 100}"#, "k1"),
            200,
            None,
        )
        .await;
    assert_eq!(code(&other_path), "idempotency_key_reused");
    assert_eq!(w.runs(), 1);
}

#[tokio::test]
async fn keys_are_scoped_to_merchant_and_mode() {
    let w = world();
    w.call(&post(REFUND, "{}", "k1"), 200, None).await;
    let live = request(Some(Mode::Live), REFUND, r#"{"other": 1}"#, Some("k1"));
    let resp = w.call(&live, 200, None).await;
    assert_eq!(resp.status(), 200);
    assert!(!replayed(&resp));
    assert_eq!(w.runs(), 2);
}

#[tokio::test]
async fn malformed_keys_are_refused_before_anything_runs() {
    let w = world();
    for bad in [String::new(), "k".repeat(256)] {
        let resp = w.call(&post(REFUND, "{}", &bad), 200, None).await;
        assert_eq!(
            (resp.status().as_u16(), code(&resp)),
            (400, "invalid_idempotency_key".into())
        );
    }
    let mut twice = post(REFUND, "{}", "k1");
    twice
        .headers_mut()
        .append(IDEMPOTENCY_KEY_HEADER, HeaderValue::from_static("k2"));
    assert_eq!(
        code(&w.call(&twice, 200, None).await),
        "invalid_idempotency_key"
    );
    let mut binary = post(REFUND, "{}", "k1");
    binary.headers_mut().insert(
        IDEMPOTENCY_KEY_HEADER,
        HeaderValue::from_bytes(b"k\xc3\xbc").unwrap(),
    );
    assert_eq!(
        code(&w.call(&binary, 200, None).await),
        "invalid_idempotency_key"
    );
    assert_eq!(w.runs(), 0);
    assert_eq!(w.store.calls(IdemOp::Begin), 0);
}

#[tokio::test]
async fn without_a_merchant_the_handler_answers_and_no_key_is_touched() {
    let w = world();
    let req = request(None, REFUND, "{}", Some("k1"));
    w.call(&req, 401, Some("unauthorized")).await;
    assert_eq!(w.store.calls(IdemOp::Begin), 0);
    assert_eq!(w.runs(), 1);
}

#[tokio::test]
async fn a_key_whose_request_is_running_is_in_use_until_its_lease_is_over() {
    let w = world();
    // GIVEN a request holding the key (its Lambda then dies: it never completes)
    let lock = IdempotencyRecord::lock(
        w.scoped("k1"),
        request_fingerprint(&post(REFUND, "{}", "k1")),
        "someone-else".into(),
        T0,
    );
    w.store.insert(lock);
    // WHEN the same request comes while the lease runs THEN 409, and it does not run
    w.clock.advance_millis(LEASE_MS - 1);
    let resp = w.call(&post(REFUND, "{}", "k1"), 200, None).await;
    assert_eq!(
        (resp.status().as_u16(), code(&resp)),
        (409, "idempotency_key_in_use".into())
    );
    assert_eq!(w.runs(), 0);
    // AND another request with the key is a mismatch, not "in use"
    let other = w
        .call(&post(REFUND, r#"{"amount": 1}"#, "k1"), 200, None)
        .await;
    assert_eq!(code(&other), "idempotency_key_reused");
    // WHEN the lease is over THEN the same request takes the key over, runs and is stored
    w.clock.advance_millis(1);
    let resp = w.call(&post(REFUND, "{}", "k1"), 200, None).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(w.runs(), 1);
    let record = w.store.record(&w.scoped("k1")).unwrap();
    assert!(matches!(record.state, RecordState::Completed { .. }));
    let again = w.call(&post(REFUND, "{}", "k1"), 200, None).await;
    assert!(replayed(&again));
    assert_eq!(w.runs(), 1);
}

#[tokio::test]
async fn concurrent_requests_with_one_key_run_once() {
    let w = world();
    let req = post(REFUND, "{}", "k1");
    // The first request is inside its handler when the second arrives.
    let (gate_tx, gate_rx) = tokio::sync::oneshot::channel::<()>();
    let (entered_tx, entered_rx) = tokio::sync::oneshot::channel::<()>();
    let first = idempotent(&w.idem, &req, async {
        w.runs.fetch_add(1, Ordering::SeqCst);
        entered_tx.send(()).unwrap();
        gate_rx.await.unwrap();
        crate::respond::json(StatusCode::OK, &json!({"run": 1}))
    });
    let second = async {
        entered_rx.await.unwrap();
        let resp = w.call(&req, 200, None).await;
        gate_tx.send(()).unwrap();
        resp
    };
    let (first, second) = tokio::join!(first, second);
    assert_eq!(first.status(), 200);
    assert_eq!(
        (second.status().as_u16(), code(&second)),
        (409, "idempotency_key_in_use".into())
    );
    assert_eq!(w.runs(), 1);
}

#[tokio::test]
async fn answers_that_say_retry_release_the_key_so_the_retry_runs() {
    for (status, code_) in [
        (500, "internal_error"),
        (409, "concurrent_modification"),
        (409, "operation_in_progress"),
        (400, "invalid_request"),
    ] {
        let w = world();
        let first = w.call(&post(REFUND, "{}", "k1"), status, Some(code_)).await;
        assert_eq!(first.status().as_u16(), status);
        assert!(w.store.records().is_empty(), "{code_}: the key is released");
        let retry = w.call(&post(REFUND, "{}", "k1"), 200, None).await;
        assert_eq!(retry.status(), 200, "{code_}");
        assert!(!replayed(&retry));
        assert_eq!(w.runs(), 2, "{code_}");
    }
}

#[tokio::test]
async fn an_expired_record_not_yet_deleted_does_not_count() {
    let w = world();
    w.call(&post(REFUND, "{}", "k1"), 200, None).await;
    // DynamoDB's TTL has not deleted it yet
    w.clock.advance_millis(RETENTION_MS + 1_000);
    assert!(w.store.record(&w.scoped("k1")).is_some());
    let resp = w
        .call(&post(REFUND, r#"{"amount": 5}"#, "k1"), 200, None)
        .await;
    assert_eq!(resp.status(), 200);
    assert!(!replayed(&resp));
    assert_eq!(w.runs(), 2);
    let again = w
        .call(&post(REFUND, r#"{"amount": 5}"#, "k1"), 200, None)
        .await;
    assert!(replayed(&again));
    assert_eq!(w.runs(), 2);
}

#[tokio::test]
async fn when_the_key_cannot_be_taken_nothing_runs() {
    let w = world();
    // the store is down: begin fails and the read-back fails too
    w.store.inject(IdemOp::Begin, IdemFault::Unavailable);
    w.store.inject(IdemOp::Get, IdemFault::Unavailable);
    let resp = w.call(&post(REFUND, "{}", "k1"), 200, None).await;
    assert_eq!(
        (resp.status().as_u16(), code(&resp)),
        (500, "internal_error".into())
    );
    assert_eq!(w.runs(), 0);
    // a failed write that applied nothing is simply tried again
    w.store.inject(IdemOp::Begin, IdemFault::Unavailable);
    let resp = w.call(&post(REFUND, "{}", "k1"), 200, None).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(w.runs(), 1);
}

#[tokio::test]
async fn a_lock_whose_answer_was_lost_is_recognised_as_ours() {
    let w = world();
    w.store.inject(IdemOp::Begin, IdemFault::LostAnswer);
    let resp = w.call(&post(REFUND, "{}", "k1"), 200, None).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(w.runs(), 1);
    let again = w.call(&post(REFUND, "{}", "k1"), 200, None).await;
    assert!(replayed(&again));
    assert_eq!(w.runs(), 1);
}

#[tokio::test]
async fn an_answer_that_cannot_be_stored_is_still_returned_and_the_key_waits_for_its_lease() {
    let w = world();
    w.store.inject(IdemOp::Complete, IdemFault::Unavailable);
    let resp = w.call(&post(REFUND, "{}", "k1"), 200, None).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(text(&resp), r#"{"run":1}"#);
    // the key stays locked: a retry is told the request is in use, and does not run
    let retry = w.call(&post(REFUND, "{}", "k1"), 200, None).await;
    assert_eq!(code(&retry), "idempotency_key_in_use");
    // after the lease the retry runs again (the payment's own state guards the money)
    w.clock.advance_millis(LEASE_MS);
    let retry = w.call(&post(REFUND, "{}", "k1"), 200, None).await;
    assert_eq!(retry.status(), 200);
    assert!(!replayed(&retry));
    assert_eq!(w.runs(), 2);
}

#[tokio::test]
async fn a_lock_taken_over_meanwhile_is_left_to_its_new_owner() {
    let w = world();
    // complete finds the lock no longer ours (condition fails): the answer is returned
    w.store.inject(IdemOp::Complete, IdemFault::ConditionFailed);
    let resp = w.call(&post(REFUND, "{}", "k1"), 200, None).await;
    assert_eq!(resp.status(), 200);
    // a release that fails leaves the key locked (no second run inside the lease)
    w.store.inject(IdemOp::Release, IdemFault::Unavailable);
    let resp = w
        .call(&post(REFUND, "{}", "k2"), 500, Some("internal_error"))
        .await;
    assert_eq!(resp.status(), 500);
    let retry = w.call(&post(REFUND, "{}", "k2"), 200, None).await;
    assert_eq!(code(&retry), "idempotency_key_in_use");
    assert_eq!(w.runs(), 2);
}
