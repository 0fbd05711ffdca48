//! 422 answers: the bank declines, fails, or does not answer (simulator trigger amounts:
//! 5100 declined with code 51, 9100 technical error 91, 9900 no answer but applied).

use paygate_tests::{expect_error, expect_ok, keys, Stack};
use serde_json::{json, Value};

fn key() -> &'static str {
    keys().anatolia_test
}

/// The transaction `id` as GET lists it.
fn listed<'a>(payment: &'a Value, id: &Value) -> &'a Value {
    payment["transactions"]
        .as_array()
        .and_then(|ts| ts.iter().find(|t| t["id"] == *id))
        .unwrap_or_else(|| panic!("transaction {id} not listed: {payment}"))
}

#[tokio::test]
async fn declined_refund_is_422_and_changes_nothing() {
    let stack = Stack::start().await;
    // GIVEN a captured payment of 20 000
    let id = stack.payment_in(key(), "captured", 20_000).await;

    // WHEN a refund of 5100 is declined by the bank
    let reply = stack
        .op(key(), &id, "refund", json!({ "amount": 5100 }))
        .await;

    // THEN 422 provider_declined, with the unchanged payment and the declined transaction
    let err = expect_error(&reply, 422, "provider_declined");
    let (p, t) = (&err["details"]["payment"], &err["details"]["transaction"]);
    assert_eq!(p["id"], id, "{err}");
    assert_eq!(p["status"], "captured", "{err}");
    assert_eq!(p["refundedAmount"], 0, "{err}");
    assert!(p["pendingOperation"].is_null(), "{err}");
    assert_eq!(t["type"], "refund", "{err}");
    assert_eq!(t["amount"], 5100, "{err}");
    assert_eq!(t["status"], "declined", "{err}");
    assert_eq!(t["bankCode"], "51", "{err}");
    // AND GET shows the status unchanged and the declined transaction
    let got = stack.payment(key(), &id).await;
    assert_eq!(got["status"], "captured");
    assert_eq!(got["refundedAmount"], 0);
    assert_eq!(got["refundableAmount"], 20_000);
    assert_eq!(listed(&got, &t["id"])["status"], "declined");
    // AND the bank holds no refund, and a later refund goes through
    let q = expect_ok(stack.op(key(), &id, "query", json!({})).await);
    assert_eq!(q["bank"]["state"], "approved", "{q}");
    let ok = expect_ok(
        stack
            .op(key(), &id, "refund", json!({ "amount": 1000 }))
            .await,
    );
    assert_eq!(ok["payment"]["refundedAmount"], 1000);
}

#[tokio::test]
async fn refund_with_a_technical_error_is_422_and_leaves_nothing_pending() {
    let stack = Stack::start().await;
    // GIVEN a captured payment of 20 000
    let id = stack.payment_in(key(), "captured", 20_000).await;

    // WHEN a refund of 9100 meets a technical error
    let reply = stack
        .op(key(), &id, "refund", json!({ "amount": 9100 }))
        .await;

    // THEN 422 provider_error; the transaction failed and nothing is pending
    let err = expect_error(&reply, 422, "provider_error");
    let (p, t) = (&err["details"]["payment"], &err["details"]["transaction"]);
    assert_eq!(t["status"], "failed", "{err}");
    assert_eq!(t["bankCode"], "91", "{err}");
    assert_eq!(t["amount"], 9100, "{err}");
    assert!(
        p.get("pendingOperation").is_some_and(Value::is_null),
        "{err}"
    );
    assert_eq!(p["status"], "captured", "{err}");
    let got = stack.payment(key(), &id).await;
    assert_eq!(got["status"], "captured");
    assert!(got["pendingOperation"].is_null(), "{got}");
    assert_eq!(listed(&got, &t["id"])["status"], "failed");
    // AND the payment can be refunded right away
    let ok = expect_ok(
        stack
            .op(key(), &id, "refund", json!({ "amount": 1000 }))
            .await,
    );
    assert_eq!(ok["payment"]["status"], "partially_refunded");
}

#[tokio::test]
async fn unanswered_refund_blocks_operations_until_a_query_settles_it() {
    let stack = Stack::start().await;
    // GIVEN a captured payment of 20 000
    let id = stack.payment_in(key(), "captured", 20_000).await;

    // WHEN a refund of 9900 gets no answer (the bank applies it anyway)
    let reply = stack
        .op(key(), &id, "refund", json!({ "amount": 9900 }))
        .await;

    // THEN 422 provider_error with the transaction unknown and the operation pending
    let err = expect_error(&reply, 422, "provider_error");
    let (p, t) = (&err["details"]["payment"], &err["details"]["transaction"]);
    let txn_id = t["id"].clone();
    assert_eq!(t["status"], "unknown", "{err}");
    assert_eq!(p["pendingOperation"]["transactionId"], txn_id, "{err}");
    assert_eq!(p["pendingOperation"]["state"], "unknown", "{err}");
    assert_eq!(p["pendingOperation"]["type"], "refund", "{err}");
    assert_eq!(p["pendingOperation"]["amount"], 9900, "{err}");

    // AND every further money operation is refused until the outcome is known
    for (op, body) in [
        ("refund", json!({ "amount": 1000 })),
        ("refund", json!({})),
        ("cancel", json!({})),
    ] {
        let reply = stack.op(key(), &id, op, body).await;
        let err = expect_error(&reply, 409, "operation_outcome_unknown");
        assert_eq!(err["details"]["transactionId"], txn_id, "{op}: {err}");
    }
    let got = stack.payment(key(), &id).await;
    assert_eq!(got["status"], "captured");
    assert_eq!(listed(&got, &txn_id)["status"], "unknown");

    // WHEN the payment is queried
    let q = expect_ok(stack.op(key(), &id, "query", json!({})).await);

    // THEN the bank shows the refund, and the payment is settled with it
    assert_eq!(q["bank"]["found"], true, "{q}");
    assert_eq!(q["bank"]["state"], "partially_refunded", "{q}");
    assert_eq!(q["payment"]["status"], "partially_refunded", "{q}");
    assert_eq!(q["payment"]["refundedAmount"], 9900, "{q}");
    assert!(q["payment"]["pendingOperation"].is_null(), "{q}");
    let got = stack.payment(key(), &id).await;
    assert_eq!(got["refundedAmount"], 9900);
    assert_eq!(got["refundableAmount"], 20_000 - 9900);
    assert!(got["pendingOperation"].is_null(), "{got}");
    assert_eq!(listed(&got, &txn_id)["status"], "approved");

    // AND refunds work again
    let ok = expect_ok(
        stack
            .op(key(), &id, "refund", json!({ "amount": 1000 }))
            .await,
    );
    assert_eq!(ok["payment"]["refundedAmount"], 10_900, "{ok}");
    assert_eq!(ok["payment"]["status"], "partially_refunded", "{ok}");
}

#[tokio::test]
async fn unanswered_capture_is_settled_by_query() {
    let stack = Stack::start().await;
    // GIVEN an authorized payment of 20 000
    let id = stack.payment_in(key(), "authorized", 20_000).await;

    // WHEN a capture of 9900 gets no answer (the bank applies it anyway)
    let reply = stack
        .op(key(), &id, "capture", json!({ "amount": 9900 }))
        .await;
    let err = expect_error(&reply, 422, "provider_error");
    assert_eq!(err["details"]["transaction"]["status"], "unknown", "{err}");
    let again = stack.op(key(), &id, "capture", json!({})).await;
    expect_error(&again, 409, "operation_outcome_unknown");

    // THEN a query finds the capture at the bank and settles the payment as captured
    let q = expect_ok(stack.op(key(), &id, "query", json!({})).await);
    assert_eq!(q["bank"]["state"], "approved", "{q}");
    assert_eq!(q["payment"]["status"], "captured", "{q}");
    assert!(q["payment"]["pendingOperation"].is_null(), "{q}");
    let got = stack.payment(key(), &id).await;
    assert_eq!(got["capturedAmount"], 9900, "{got}");
    assert_eq!(got["refundableAmount"], 9900, "{got}");
}

#[tokio::test]
async fn declined_and_failed_captures_leave_the_payment_authorized() {
    let stack = Stack::start().await;
    // GIVEN an authorized payment of 20 000
    let id = stack.payment_in(key(), "authorized", 20_000).await;

    // WHEN captures of 5100 and 9100 are declined / fail at the bank
    let declined = stack
        .op(key(), &id, "capture", json!({ "amount": 5100 }))
        .await;
    let failed = stack
        .op(key(), &id, "capture", json!({ "amount": 9100 }))
        .await;

    // THEN 422 each, and the payment stays authorized with its pre-authorization open
    let e = expect_error(&declined, 422, "provider_declined");
    assert_eq!(e["details"]["payment"]["status"], "authorized", "{e}");
    assert_eq!(e["details"]["transaction"]["status"], "declined", "{e}");
    let e = expect_error(&failed, 422, "provider_error");
    assert_eq!(e["details"]["payment"]["status"], "authorized", "{e}");
    assert_eq!(e["details"]["transaction"]["status"], "failed", "{e}");
    let q = expect_ok(stack.op(key(), &id, "query", json!({})).await);
    assert_eq!(q["bank"]["state"], "preauth", "{q}");
    assert_eq!(q["payment"]["status"], "authorized", "{q}");
    // AND the full capture then succeeds
    let ok = expect_ok(stack.op(key(), &id, "capture", json!({})).await);
    assert_eq!(ok["payment"]["capturedAmount"], 20_000);
}

#[tokio::test]
async fn cancel_after_the_end_of_day_cut_suggests_a_refund() {
    let stack = Stack::start().await;
    // GIVEN a captured payment already past the bank's end-of-day cut
    let id = stack
        .create_payment(
            key(),
            json!({ "amount": 20_000, "currency": "TRY", "status": "captured", "settled": true }),
        )
        .await;

    // WHEN it is cancelled
    let reply = stack.op(key(), &id, "cancel", json!({})).await;

    // THEN 422 provider_declined suggesting a refund; the payment is still captured
    let err = expect_error(&reply, 422, "provider_declined");
    assert_eq!(err["details"]["suggestedOperation"], "refund", "{err}");
    assert_eq!(err["details"]["payment"]["status"], "captured", "{err}");
    assert_eq!(err["details"]["transaction"]["type"], "cancel", "{err}");
    assert_eq!(err["details"]["transaction"]["status"], "declined", "{err}");
    assert_eq!(stack.payment(key(), &id).await["status"], "captured");

    // AND the suggested refund works
    let ok = expect_ok(stack.op(key(), &id, "refund", json!({})).await);
    assert_eq!(ok["payment"]["status"], "refunded", "{ok}");
    assert_eq!(ok["transaction"]["amount"], 20_000, "{ok}");
    assert_eq!(ok["transaction"]["status"], "approved", "{ok}");
}

#[tokio::test]
async fn an_ordinary_decline_does_not_suggest_a_refund() {
    let stack = Stack::start().await;
    // GIVEN a captured payment, same day
    let id = stack.payment_in(key(), "captured", 20_000).await;
    // WHEN a refund is declined
    let reply = stack
        .op(key(), &id, "refund", json!({ "amount": 5100 }))
        .await;
    // THEN no suggestedOperation is given
    let err = expect_error(&reply, 422, "provider_declined");
    assert!(err["details"].get("suggestedOperation").is_none(), "{err}");
}
