//! What the admin tests share: a stack wired to a receiver (signing secrets read fresh at
//! every attempt unless a test asks for the deployed cache), endpoint creation over the
//! admin API, waits.

use std::{future::Future, time::Duration};

use paygate_domain::webhook::RetrySchedule;
use paygate_tests::{
    expect_ok, keys,
    receiver::{Hook, Receiver},
    Reply, Stack, StatusCode, WebhookOptions, ANATOLIA,
};
use serde_json::{json, Value};

/// How long a test waits for something the pipeline does right away.
pub const SOON: Duration = Duration::from_secs(20);

/// A stack whose sender reaches `rx`, retrying on `schedule`.
pub async fn stack_for(label: &str, rx: &Receiver, schedule: &str) -> Stack {
    stack_caching(label, rx, schedule, Duration::ZERO).await
}

/// [`stack_for`], with the sender caching signing secrets for `secret_cache_ttl` (as
/// deployed: `paygate_aws::secrets::DEFAULT_TTL`).
pub async fn stack_caching(
    label: &str,
    rx: &Receiver,
    schedule: &str,
    secret_cache_ttl: Duration,
) -> Stack {
    Stack::start_with_webhooks(
        label,
        WebhookOptions {
            sender: rx.sender_config(Duration::from_secs(2)),
            schedule: RetrySchedule::parse(schedule).expect("a retry schedule"),
            sweep_every: Duration::from_secs(1),
            sweep_grace: Duration::from_secs(10),
            idle_poll: Duration::from_millis(100),
            secret_cache_ttl,
        },
    )
    .await
}

/// `/admin/v1/merchants/{merchant}` + `rest`.
pub fn path(merchant: &str, rest: &str) -> String {
    format!("/admin/v1/merchants/{merchant}{rest}")
}

/// Asserts the status of an admin answer; returns its body.
#[track_caller]
pub fn expect(reply: Reply, status: u16) -> Value {
    assert_eq!(
        reply.status,
        StatusCode::from_u16(status).unwrap(),
        "expected {status}: {}",
        reply.text
    );
    reply.body
}

/// Creates an endpoint of `merchant` at `rx`'s `path` over the admin API; returns the
/// created answer (with `id` and `secret`).
pub async fn create_endpoint(
    stack: &Stack,
    merchant: &str,
    rx: &Receiver,
    at: &str,
    events: Value,
) -> Value {
    let body = json!({"url": rx.url(at), "events": events, "mode": "test", "description": "e2e"});
    let created = expect(
        stack
            .admin("POST", &path(merchant, "/webhook-endpoints"), Some(&body))
            .await,
        201,
    );
    assert!(created["secret"].as_str().unwrap().starts_with("whsec_"));
    created
}

/// Captures a new authorized payment of Anatolia; returns its id.
pub async fn capture(stack: &Stack) -> String {
    let key = keys().anatolia_test;
    let id = stack.payment_in(key, "authorized", 10_000).await;
    expect_ok(stack.op(key, &id, "capture", json!({})).await);
    id
}

/// Polls `probe` until it gives a value, at most `within`.
pub async fn until<T, F, Fut>(what: &str, within: Duration, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if let Some(v) = probe().await {
            return v;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not within {within:?}: {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The delivery (with attempts) over the admin API once `pred` holds for it.
pub async fn delivery_when(
    stack: &Stack,
    id: &str,
    within: Duration,
    pred: impl Fn(&Value) -> bool,
) -> Value {
    until(&format!("delivery {id}"), within, || async {
        let d = expect(
            stack
                .admin("GET", &path(ANATOLIA, &format!("/deliveries/{id}")), None)
                .await,
            200,
        );
        pred(&d).then_some(d)
    })
    .await
}

/// The `v1=` signatures of a hook.
pub fn v1_count(hook: &Hook) -> usize {
    hook.header("x-svc-signature")
        .unwrap_or_default()
        .matches("v1=")
        .count()
}

/// Whether `secret` verifies `hook`'s signature.
pub fn verifies(hook: &Hook, secret: &str) -> bool {
    let sig = hook.header("x-svc-signature").unwrap_or_default();
    paygate_webhooks::signature::verify(sig, &hook.body, &[secret], hook.unix_secs, 300).is_ok()
}
