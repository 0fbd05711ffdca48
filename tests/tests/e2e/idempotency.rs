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
    let first = post_with_key(
        &stack,
        &path,
        "refund-1",
        r#"{"amount":2500,"reason":"duplicate","metadata":{"ticket":"T-1"}}"#,
    )
    .await;
    let again = post_with_key(
        &stack,
        &path,
        "refund-1",
        "{ \"metadata\": {\"ticket\": \"T-1\"}, \"reason\": \"duplicate\", \"amount\" : 2500 }\n",
    )
    .await;

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

    // WHEN the key is reused with another amount, or the same amount for another reason or
    // without the note, THEN it is refused (never the first answer) and nothing moves
    for other in [
        r#"{"amount":3000,"reason":"duplicate","metadata":{"ticket":"T-1"}}"#,
        r#"{"amount":2500,"reason":"fraudulent","metadata":{"ticket":"T-1"}}"#,
        r#"{"amount":2500}"#,
    ] {
        let (status, body, replayed) = post_with_key(&stack, &path, "refund-1", other).await;
        assert!(!replayed, "{other}");
        expect_error(&(status, body), 422, "idempotency_key_reused");
    }
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

/// A keyed refund whose bank answer is lost (the simulator applies 9900 and drops the
/// answer) stays bound to its transaction: retries with the key are never sent to the bank
/// again; once the payment is queried (settled from the bank's records) the key answers
/// with that very transaction, marked replayed.
#[tokio::test]
async fn a_key_whose_refund_went_unanswered_answers_with_that_refund_once_settled() {
    let stack = Stack::start_labeled("idem-bound").await;
    let key = keys().anatolia_test;
    let id = stack.payment_in(key, "captured", 20_000).await;
    let path = format!("/v1/payments/{id}/refund");
    let body = r#"{"amount":9900}"#;

    let first = post_with_key(&stack, &path, "refund-lost", body).await;
    expect_error(&(first.0, first.1.clone()), 422, "provider_error");
    let txn = first.1["error"]["details"]["transaction"]["id"].clone();
    assert_eq!(
        first.1["error"]["details"]["transaction"]["status"],
        "unknown"
    );

    // An SDK's retry: the same transaction's state, never a second refund.
    let again = post_with_key(&stack, &path, "refund-lost", body).await;
    match again.0.as_u16() {
        409 => {
            assert_eq!(again.1["error"]["code"], "operation_outcome_unknown");
            assert_eq!(again.1["error"]["details"]["transactionId"], txn);
            assert_eq!(again.1["error"]["details"]["idempotencyKey"], "bound");
        }
        // the dev server's reconciler may have settled it already
        200 => assert_eq!(again.1["transaction"]["id"], txn),
        other => panic!("unexpected {other}: {}", again.1),
    }

    let (status, _) = stack
        .post(&format!("/v1/payments/{id}/query"), key, json!({}))
        .await;
    assert_eq!(status, StatusCode::OK);
    let settled = post_with_key(&stack, &path, "refund-lost", body).await;
    assert_eq!(
        (settled.0, settled.2),
        (StatusCode::OK, true),
        "{}",
        settled.1
    );
    assert_eq!(settled.1["transaction"]["id"], txn);
    assert_eq!(settled.1["transaction"]["status"], "approved");
    assert_eq!(settled.1["payment"]["refundedAmount"], 9_900);

    let payment = stack.payment(key, &id).await;
    let server = stack.server();
    let ledger = DynamoSimLedger::new(server.client.clone(), &server.tables.simbank);
    let account = AccountId::parse(payment["accountId"].as_str().unwrap()).unwrap();
    let order = ledger
        .load(&account, payment["orderId"].as_str().unwrap())
        .await
        .unwrap()
        .expect("the order is at the bank");
    assert_eq!(order.refunded, 9_900, "one refund at the bank");
}
