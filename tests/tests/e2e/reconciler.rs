//! The reconciler under the dev server, as `make dev` runs it (here every 200 ms instead of
//! 10 s): what the bank left unanswered, and pending payments, are settled with no merchant
//! call, and the usual events are written.

use std::time::{Duration, Instant};

use paygate_tests::{expect_error, keys, Stack};
use serde_json::{json, Value};

fn key() -> &'static str {
    keys().anatolia_test
}

async fn wait_for(stack: &Stack, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let p = stack.payment(key(), id).await;
        if done(&p) {
            return p;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "not settled: {p}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_refund_the_bank_timed_out_on_is_settled_with_no_merchant_call() {
    let stack = Stack::start_with_reconciler(
        "reconciler",
        Duration::from_millis(200),
        paygate_devserver::DEFAULT_BANK_TIMEOUT,
    )
    .await;
    let id = stack.payment_in(key(), "captured", 20_000).await;
    // The simulator applies a 9900 refund and never answers.
    let r = stack
        .op(key(), &id, "refund", json!({ "amount": 9900 }))
        .await;
    let err = expect_error(&r, 422, "provider_error");
    assert_eq!(err["details"]["transaction"]["status"], "unknown", "{err}");
    // No query: the reconciler settles it from the bank's records.
    let p = wait_for(&stack, &id, |p| p["pendingOperation"].is_null()).await;
    assert_eq!(p["status"], "partially_refunded", "{p}");
    assert_eq!(p["refundedAmount"], 9900, "{p}");
    let txns = p["transactions"].as_array().unwrap();
    assert_eq!(txns.len(), 1, "{p}");
    assert_eq!(txns[0]["status"], "approved", "{p}");
    // The payment is free again.
    let r = stack
        .op(key(), &id, "refund", json!({ "amount": 100 }))
        .await;
    assert_eq!(r.0, 200, "{r:?}");
}

#[tokio::test]
async fn pending_payments_are_finalized_with_no_merchant_call() {
    let stack = Stack::start_with_reconciler(
        "reconcilerpending",
        Duration::from_millis(200),
        paygate_devserver::DEFAULT_BANK_TIMEOUT,
    )
    .await;
    let mut ids = Vec::new();
    for (held, expected) in [
        ("approved", "captured"),
        ("preauth", "authorized"),
        ("declined", "declined"),
    ] {
        let id = stack
            .create_payment(
                key(),
                json!({ "amount": 12_000, "currency": "TRY", "status": "pending", "bankState": held }),
            )
            .await;
        ids.push((id, expected));
    }
    let none = stack
        .create_payment(
            key(),
            json!({ "amount": 12_000, "currency": "TRY", "status": "pending", "bankState": "none" }),
        )
        .await;
    for (id, expected) in &ids {
        let p = wait_for(&stack, id, |p| p["status"] != "pending").await;
        assert_eq!(p["status"], *expected, "{p}");
    }
    // "No record" counts only after the grace period: it is still pending.
    assert_eq!(stack.payment(key(), &none).await["status"], "pending");
}
