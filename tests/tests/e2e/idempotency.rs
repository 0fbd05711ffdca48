//! `Idempotency-Key` over HTTP through the dev server: a retried refund is replayed (same
//! status and body, `Idempotent-Replayed: true`) and refunds once at the bank; the key with
//! another body is refused.

use paygate_aws::dynamo::DynamoSimLedger;
use paygate_bank_simulator::SimLedger;
use paygate_domain::AccountId;
use paygate_tests::{expect_error, keys, Stack, StatusCode};
use serde_json::{json, Value};

/// `POST path` with the key and a raw body: status, JSON answer, whether it was replayed.
async fn post_with_key(
    stack: &Stack,
    path: &str,
    idempotency_key: &str,
    body: &str,
) -> (StatusCode, Value, bool) {
    let resp = stack
        .http
        .post(format!("{}{path}", stack.url))
        .header("authorization", format!("Bearer {}", keys().anatolia_test))
        .header("content-type", "application/json")
        .header("idempotency-key", idempotency_key)
        .body(body.to_owned())
        .send()
        .await
        .expect("the stack answers HTTP");
    let replayed = match resp.headers().get("idempotent-replayed") {
        None => false,
        Some(v) => {
            assert_eq!(v, "true");
            true
        }
    };
    let status = resp.status();
    let body = resp.json().await.expect("a JSON answer");
    (status, body, replayed)
}

#[tokio::test]
async fn a_retried_refund_is_replayed_and_refunds_once() {
    let stack = Stack::start_labeled("idem").await;
    let key = keys().anatolia_test;
    // GIVEN a captured payment of 10 000
    let id = stack.payment_in(key, "captured", 10_000).await;
    let path = format!("/v1/payments/{id}/refund");

    // WHEN a refund is sent with a key, then sent again (laid out differently)
    let first = post_with_key(&stack, &path, "refund-1", r#"{"amount":2500}"#).await;
    let again = post_with_key(&stack, &path, "refund-1", "{ \"amount\" : 2500 }\n").await;

    // THEN the retry gets the first answer again, marked as replayed
    assert_eq!(first.0, StatusCode::OK, "{}", first.1);
    assert!(!first.2, "a first answer is not a replay");
    assert_eq!(again, (first.0, first.1.clone(), true));

    // AND the payment and the bank hold one refund of 2 500
    let payment = stack.payment(key, &id).await;
    assert_eq!(payment["refundedAmount"], 2_500, "{payment}");
    let refunds: Vec<&Value> = payment["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["type"] == "refund")
        .collect();
    assert_eq!(refunds.len(), 1, "{payment}");
    let server = stack.server();
    let ledger = DynamoSimLedger::new(server.client.clone(), &server.tables.simbank);
    let account = AccountId::parse(payment["accountId"].as_str().unwrap()).unwrap();
    let order = ledger
        .load(&account, payment["orderId"].as_str().unwrap())
        .await
        .unwrap()
        .expect("the order is at the bank");
    assert_eq!(order.refunded, 2_500);
    assert_eq!(
        order.history.iter().filter(|t| t.kind == "refund").count(),
        1
    );

    // WHEN the key is reused with another amount THEN it is refused and nothing moves
    let (status, body, replayed) =
        post_with_key(&stack, &path, "refund-1", r#"{"amount":3000}"#).await;
    assert!(!replayed);
    expect_error(&(status, body), 422, "idempotency_key_reused");
    // AND with another payment's path too
    let other = stack.payment_in(key, "captured", 10_000).await;
    let (status, body, _) = post_with_key(
        &stack,
        &format!("/v1/payments/{other}/refund"),
        "refund-1",
        r#"{"amount":2500}"#,
    )
    .await;
    expect_error(&(status, body), 422, "idempotency_key_reused");
    assert_eq!(stack.payment(key, &id).await["refundedAmount"], 2_500);
    assert_eq!(stack.payment(key, &other).await["refundedAmount"], 0);

    // AND a malformed key is refused before anything runs
    let (status, body, _) =
        post_with_key(&stack, &path, &"k".repeat(256), r#"{"amount":2500}"#).await;
    expect_error(&(status, body), 400, "invalid_idempotency_key");
    assert_eq!(stack.payment(key, &id).await["refundedAmount"], 2_500);
}

#[tokio::test]
async fn a_declined_capture_is_replayed_and_a_new_key_runs_again() {
    let stack = Stack::start_labeled("idem-decline").await;
    let key = keys().anatolia_test;
    let id = stack.payment_in(key, "authorized", 10_000).await;
    let path = format!("/v1/payments/{id}/capture");
    // 5100 is declined by the simulator (insufficient funds)
    let first = post_with_key(&stack, &path, "cap-1", r#"{"amount":5100}"#).await;
    expect_error(&(first.0, first.1.clone()), 422, "provider_declined");
    let again = post_with_key(&stack, &path, "cap-1", r#"{"amount":5100}"#).await;
    assert_eq!(again, (first.0, first.1.clone(), true));
    let payment = stack.payment(key, &id).await;
    let captures = payment["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["type"] == "capture")
        .count();
    assert_eq!(captures, 1, "one declined capture is recorded: {payment}");
    assert_eq!(payment["status"], "authorized");
    // another key captures for real
    let (status, body, replayed) =
        post_with_key(&stack, &path, "cap-2", r#"{"amount":4000}"#).await;
    assert_eq!((status, replayed), (StatusCode::OK, false), "{body}");
    assert_eq!(body["payment"]["capturedAmount"], json!(4_000));
}
