//! POST /v1/payments/{id}/query: the recorded status and the bank's state together; a
//! pending payment is finalized by it.

use paygate_tests::{expect_ok, is_numeric_string, keys, Stack};
use serde_json::{json, Value};

fn key() -> &'static str {
    keys().anatolia_test
}

/// The `bank` object has every documented field with its documented type.
#[track_caller]
fn assert_bank_shape(bank: &Value) {
    assert!(bank["found"].is_boolean(), "{bank}");
    assert!(bank["state"].is_string(), "{bank}");
    assert!(bank["amount"].is_i64(), "{bank}");
    for f in ["code", "authCode", "rrn"] {
        assert!(bank[f].is_string(), "{f}: {bank}");
    }
}

#[tokio::test]
async fn pending_payments_are_finalized_from_the_bank_state() {
    let stack = Stack::start().await;
    // (bankState held by the bank, expected bank.state, expected payment status, captured)
    let cases = [
        ("approved", "approved", "captured", 12_000),
        ("preauth", "preauth", "authorized", 0),
        ("declined", "declined", "declined", 0),
        // "No record" counts only after the grace period (banks book late): still pending.
        ("none", "unknown", "pending", 0),
    ];
    for (held, state, status, captured) in cases {
        // GIVEN a pending payment of 12 000 whose order the bank holds as `held`
        let id = stack
            .create_payment(
                key(),
                json!({ "amount": 12_000, "currency": "TRY", "status": "pending", "bankState": held }),
            )
            .await;
        assert_eq!(stack.payment(key(), &id).await["status"], "pending");

        // WHEN it is queried
        let q = expect_ok(stack.op(key(), &id, "query", json!({})).await);

        // THEN the answer has the payment (id, status) and the bank's state …
        assert_eq!(q["payment"]["id"], id, "{held}: {q}");
        assert_eq!(q["payment"]["status"], status, "{held}: {q}");
        assert_bank_shape(&q["bank"]);
        assert_eq!(q["bank"]["state"], state, "{held}: {q}");
        assert_eq!(q["bank"]["found"], held != "none", "{held}: {q}");
        match held {
            "approved" | "preauth" => {
                assert_eq!(q["bank"]["amount"], 12_000, "{held}: {q}");
                assert_eq!(q["bank"]["code"], "00", "{held}: {q}");
                assert!(is_numeric_string(&q["bank"]["authCode"]), "{held}: {q}");
                assert!(is_numeric_string(&q["bank"]["rrn"]), "{held}: {q}");
            }
            "declined" => assert_ne!(q["bank"]["code"], "00", "{q}"),
            _ => {}
        }
        // … and the payment is finalized for good
        let got = stack.payment(key(), &id).await;
        assert_eq!(got["status"], status, "{held}: {got}");
        assert_eq!(got["capturedAmount"], captured, "{held}: {got}");
        let again = expect_ok(stack.op(key(), &id, "query", json!({})).await);
        assert_eq!(again["payment"]["status"], status, "{held}: {again}");
    }
}

#[tokio::test]
async fn a_finalized_payment_can_then_be_operated_on() {
    let stack = Stack::start().await;
    // GIVEN pending payments the bank holds as a sale and as a pre-authorization
    let sale = stack
        .create_payment(
            key(),
            json!({ "amount": 12_000, "currency": "TRY", "status": "pending", "bankState": "approved" }),
        )
        .await;
    let preauth = stack
        .create_payment(
            key(),
            json!({ "amount": 12_000, "currency": "TRY", "status": "pending", "bankState": "preauth" }),
        )
        .await;
    // WHEN both are queried, then refunded / captured
    expect_ok(stack.op(key(), &sale, "query", json!({})).await);
    expect_ok(stack.op(key(), &preauth, "query", json!({})).await);
    let r = expect_ok(
        stack
            .op(key(), &sale, "refund", json!({ "amount": 2000 }))
            .await,
    );
    let c = expect_ok(stack.op(key(), &preauth, "capture", json!({})).await);
    // THEN the bank accepts both
    assert_eq!(r["payment"]["status"], "partially_refunded", "{r}");
    assert_eq!(c["payment"]["status"], "captured", "{c}");
}

#[tokio::test]
async fn query_of_a_settled_payment_reports_both_states_and_changes_nothing() {
    let stack = Stack::start().await;
    // GIVEN a captured payment with a partial refund
    let id = stack.payment_in(key(), "partially_refunded", 10_000).await;
    let before = stack.payment(key(), &id).await;

    // WHEN it is queried
    let q = expect_ok(stack.op(key(), &id, "query", json!({})).await);

    // THEN both states are reported and the payment is unchanged
    assert_eq!(q["payment"]["status"], "partially_refunded", "{q}");
    assert_eq!(q["bank"]["found"], true, "{q}");
    assert_eq!(q["bank"]["state"], "partially_refunded", "{q}");
    assert_eq!(q["bank"]["amount"], 10_000, "{q}");
    let after = stack.payment(key(), &id).await;
    assert_eq!(after, before);
}

#[tokio::test]
async fn seeded_pending_payments_are_finalized_too() {
    let stack = Stack::start().await;
    // GIVEN the seed's pending payments (bank: preauth / declined for Anatolia, approved /
    // none for Bosphorus)
    let k = keys();
    for (key, id, status) in [
        (k.anatolia_test, "pay_anatoliaPend1", "authorized"),
        (k.anatolia_test, "pay_anatoliaPend2", "declined"),
        (k.bosphorus_test, "pay_bosphorusPend1", "captured"),
        // "No record" right after creation stays pending: it counts only after the grace
        // period (banks book late); the reconciler finalizes it later.
        (k.bosphorus_test, "pay_bosphorusPend2", "pending"),
    ] {
        // WHEN each is queried THEN it takes the bank's state
        let q = expect_ok(stack.op(key, id, "query", json!({})).await);
        assert_eq!(q["payment"]["status"], status, "{id}: {q}");
        assert_eq!(stack.payment(key, id).await["status"], status, "{id}");
    }
}
