//! Capture, refund and cancel transitions, amounts, and request validation.

use paygate_tests::{expect_error, expect_ok, keys, Stack};
use reqwest::Method;
use serde_json::{json, Value};

use crate::permissions::assert_operation_body;

fn key() -> &'static str {
    keys().anatolia_test
}

async fn bank_state(stack: &Stack, id: &str) -> Value {
    let q = expect_ok(stack.op(key(), id, "query", json!({})).await);
    q["bank"].clone()
}

#[tokio::test]
async fn capture_without_amount_captures_the_full_amount() {
    let stack = Stack::start().await;
    // GIVEN an authorized payment of 10 000
    let id = stack.payment_in(key(), "authorized", 10_000).await;

    // WHEN it is captured without an amount
    let body = expect_ok(stack.op(key(), &id, "capture", json!({})).await);

    // THEN the whole amount is captured and refundable, here and at the bank
    assert_operation_body(&body, &id, "capture", ("captured", 10_000, 0, 10_000));
    let got = stack.payment(key(), &id).await;
    assert_eq!(got["status"], "captured");
    assert_eq!(got["amount"], 10_000);
    assert_eq!(got["capturedAmount"], 10_000);
    assert_eq!(got["refundableAmount"], 10_000);
    let bank = bank_state(&stack, &id).await;
    assert_eq!(
        (&bank["state"], &bank["amount"]),
        (&json!("approved"), &json!(10_000))
    );
}

#[tokio::test]
async fn partial_capture_releases_the_remainder() {
    let stack = Stack::start().await;
    // GIVEN an authorized payment of 10 000
    let id = stack.payment_in(key(), "authorized", 10_000).await;

    // WHEN 6 000 of it is captured
    let body = expect_ok(
        stack
            .op(key(), &id, "capture", json!({ "amount": 6000 }))
            .await,
    );

    // THEN only 6 000 is captured and refundable; the rest is released
    assert_operation_body(&body, &id, "capture", ("captured", 6_000, 0, 6_000));
    assert_eq!(body["payment"]["refundableAmount"], 6_000);
    let got = stack.payment(key(), &id).await;
    assert_eq!(got["capturedAmount"], 6_000);
    assert_eq!(got["refundableAmount"], 6_000);
    let bank = bank_state(&stack, &id).await;
    assert_eq!(
        (&bank["state"], &bank["amount"]),
        (&json!("approved"), &json!(6_000))
    );

    // AND a refund without amount refunds exactly the captured 6 000
    let body = expect_ok(stack.op(key(), &id, "refund", json!({})).await);
    assert_operation_body(&body, &id, "refund", ("refunded", 6_000, 6_000, 6_000));
    // AND a second capture is refused: the remainder is gone
    expect_error(
        &stack
            .op(key(), &id, "capture", json!({ "amount": 1000 }))
            .await,
        409,
        "invalid_state",
    );
}

#[tokio::test]
async fn capture_above_the_authorized_amount_is_refused() {
    let stack = Stack::start().await;
    // GIVEN an authorized payment of 10 000
    let id = stack.payment_in(key(), "authorized", 10_000).await;

    // WHEN 10 001 is captured
    let reply = stack
        .op(key(), &id, "capture", json!({ "amount": 10_001 }))
        .await;

    // THEN 400 amount_exceeds_authorized, and the payment is still authorized with nothing
    // sent to the bank
    expect_error(&reply, 400, "amount_exceeds_authorized");
    let got = stack.payment(key(), &id).await;
    assert_eq!(got["status"], "authorized");
    assert_eq!(got["transactions"], json!([]));
    assert_eq!(bank_state(&stack, &id).await["state"], "preauth");
    // AND exactly the authorized amount is fine
    let body = expect_ok(
        stack
            .op(key(), &id, "capture", json!({ "amount": 10_000 }))
            .await,
    );
    assert_eq!(body["payment"]["capturedAmount"], 10_000);
}

#[tokio::test]
async fn refund_without_amount_refunds_the_remainder() {
    let stack = Stack::start().await;
    // GIVEN a captured payment of 10 000 with 3 000 refunded
    let id = stack.payment_in(key(), "partially_refunded", 10_000).await;

    // WHEN a refund is asked without an amount
    let body = expect_ok(stack.op(key(), &id, "refund", json!({})).await);

    // THEN the remaining 7 000 is refunded and the payment is refunded
    assert_operation_body(&body, &id, "refund", ("refunded", 10_000, 10_000, 7_000));
    let got = stack.payment(key(), &id).await;
    assert_eq!(got["status"], "refunded");
    assert_eq!(got["refundedAmount"], 10_000);
    assert_eq!(got["refundableAmount"], 0);
    let refunds: Vec<i64> = got["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["type"] == "refund" && t["status"] == "approved")
        .map(|t| t["amount"].as_i64().unwrap())
        .collect();
    assert_eq!(refunds, vec![3_000, 7_000], "{got}");
    assert_eq!(bank_state(&stack, &id).await["state"], "refunded");
}

#[tokio::test]
async fn refund_above_the_refundable_amount_is_refused() {
    let stack = Stack::start().await;
    // GIVEN a captured payment of 10 000, and one with 3 000 already refunded
    let captured = stack.payment_in(key(), "captured", 10_000).await;
    let partial = stack.payment_in(key(), "partially_refunded", 10_000).await;

    // WHEN more than the refundable amount is refunded
    let over_captured = stack
        .op(key(), &captured, "refund", json!({ "amount": 10_001 }))
        .await;
    let over_rest = stack
        .op(key(), &partial, "refund", json!({ "amount": 7_001 }))
        .await;

    // THEN 400 amount_exceeds_refundable, nothing changes
    expect_error(&over_captured, 400, "amount_exceeds_refundable");
    expect_error(&over_rest, 400, "amount_exceeds_refundable");
    let got = stack.payment(key(), &captured).await;
    assert_eq!(
        (&got["status"], &got["refundedAmount"]),
        (&json!("captured"), &json!(0))
    );
    let got = stack.payment(key(), &partial).await;
    assert_eq!(
        (&got["status"], &got["refundedAmount"]),
        (&json!("partially_refunded"), &json!(3_000))
    );
    // AND exactly the refundable rest is fine
    let body = expect_ok(
        stack
            .op(key(), &partial, "refund", json!({ "amount": 7_000 }))
            .await,
    );
    assert_eq!(body["payment"]["status"], "refunded");
}

#[tokio::test]
async fn cancel_of_authorized_and_of_captured_payments() {
    let stack = Stack::start().await;
    for status in ["authorized", "captured"] {
        // GIVEN a payment in `status`
        let id = stack.payment_in(key(), status, 10_000).await;

        // WHEN it is cancelled
        let body = expect_ok(stack.op(key(), &id, "cancel", json!({})).await);

        // THEN it is cancelled here and at the bank
        let captured = if status == "captured" { 10_000 } else { 0 };
        assert_operation_body(&body, &id, "cancel", ("cancelled", captured, 0, 10_000));
        assert_eq!(stack.payment(key(), &id).await["status"], "cancelled");
        assert_eq!(
            bank_state(&stack, &id).await["state"],
            "cancelled",
            "{status}"
        );
    }
}

#[tokio::test]
async fn cancel_after_a_partial_refund_is_refused() {
    let stack = Stack::start().await;
    // GIVEN a captured payment with a partial refund
    let id = stack.payment_in(key(), "partially_refunded", 10_000).await;

    // WHEN it is cancelled
    let reply = stack.op(key(), &id, "cancel", json!({})).await;

    // THEN 409 invalid_state, and the bank still holds the partially refunded sale
    expect_error(&reply, 409, "invalid_state");
    assert_eq!(
        stack.payment(key(), &id).await["status"],
        "partially_refunded"
    );
    assert_eq!(bank_state(&stack, &id).await["state"], "partially_refunded");
}

#[tokio::test]
async fn amounts_out_of_range_are_invalid_amount() {
    let stack = Stack::start().await;
    // GIVEN an authorized and a captured payment
    let auth = stack.payment_in(key(), "authorized", 10_000).await;
    let capt = stack.payment_in(key(), "captured", 10_000).await;
    for amount in [
        json!(0),
        json!(-1),
        json!(-10_000),
        json!(10_000_000_001_i64),
    ] {
        for (id, op) in [(&auth, "capture"), (&capt, "refund")] {
            // WHEN the operation is asked with a zero, negative or too large amount
            let reply = stack.op(key(), id, op, json!({ "amount": amount })).await;
            // THEN 400 invalid_amount
            let err = expect_error(&reply, 400, "invalid_amount");
            assert_eq!(err["details"]["field"], "amount", "{op} {amount}: {err}");
        }
    }
    // AND nothing happened to either payment
    assert_eq!(stack.payment(key(), &auth).await["transactions"], json!([]));
    assert_eq!(stack.payment(key(), &capt).await["transactions"], json!([]));
}

#[tokio::test]
async fn non_integer_amounts_are_invalid_requests_naming_the_field() {
    let stack = Stack::start().await;
    let auth = stack.payment_in(key(), "authorized", 10_000).await;
    let capt = stack.payment_in(key(), "captured", 10_000).await;
    for amount in [
        json!("100"),
        json!(10.5),
        json!(true),
        json!({ "value": 1 }),
    ] {
        for (id, op) in [(&auth, "capture"), (&capt, "refund")] {
            // WHEN the amount is a string, a fraction or another non-integer
            let reply = stack.op(key(), id, op, json!({ "amount": amount })).await;
            // THEN 400 invalid_request with details.field = amount
            let err = expect_error(&reply, 400, "invalid_request");
            assert_eq!(err["details"]["field"], "amount", "{op} {amount}: {err}");
        }
    }
    assert_eq!(stack.payment(key(), &capt).await["status"], "captured");
}

#[tokio::test]
async fn a_null_amount_is_refused_not_read_as_the_full_amount() {
    let stack = Stack::start().await;
    let auth = stack.payment_in(key(), "authorized", 10_000).await;
    let capt = stack.payment_in(key(), "captured", 10_000).await;
    for (id, op) in [(&auth, "capture"), (&capt, "refund")] {
        // WHEN the amount is an explicit null (omitting it would mean the full amount)
        let reply = stack.op(key(), id, op, json!({ "amount": null })).await;
        // THEN 400 invalid_request naming amount
        let err = expect_error(&reply, 400, "invalid_request");
        assert_eq!(err["details"]["field"], "amount", "{op}: {err}");
    }
    // AND nothing moved
    assert_eq!(stack.payment(key(), &auth).await["transactions"], json!([]));
    assert_eq!(stack.payment(key(), &capt).await["transactions"], json!([]));
    // AND the test helper refuses a null `settled` likewise
    let (status, body) = stack
        .post(
            "/v1/test_helpers/payments",
            key(),
            json!({"amount": 1_000, "currency": "TRY", "status": "captured", "settled": null}),
        )
        .await;
    let err = expect_error(&(status, body), 400, "invalid_request");
    assert_eq!(err["details"]["field"], "settled", "{err}");
}

#[tokio::test]
async fn an_integral_float_amount_is_that_integer() {
    let stack = Stack::start().await;
    let capt = stack.payment_in(key(), "captured", 10_000).await;
    // WHEN a refund's amount is written as 1079.0 (an integer to JSON Schema)
    let (status, body) = stack
        .op(key(), &capt, "refund", json!({ "amount": 1079.0 }))
        .await;
    // THEN it is a refund of 1079
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["transaction"]["amount"], 1079, "{body}");
    assert_eq!(body["payment"]["refundedAmount"], 1079, "{body}");
}

#[tokio::test]
async fn malformed_json_is_an_invalid_request_on_the_body() {
    let stack = Stack::start().await;
    let id = stack.payment_in(key(), "captured", 10_000).await;
    let auth = format!("Bearer {}", key());
    for (op, raw) in [
        ("refund", r#"{"amount": 100"#),
        ("refund", "not json"),
        ("capture", "{amount: 1}"),
        ("cancel", r#"{"a":"#),
        ("query", "}"),
        ("refund", "[1000]"),
    ] {
        // WHEN the body is not a JSON object
        let r = stack
            .raw(
                Method::POST,
                &format!("/v1/payments/{id}/{op}"),
                Some(&auth),
                Some("application/json"),
                Some(raw.to_owned()),
            )
            .await;
        // THEN 400 invalid_request naming `body`
        let err = expect_error(&(r.status, r.body.clone()), 400, "invalid_request");
        assert_eq!(err["details"]["field"], "body", "{op} {raw}: {}", r.text);
    }
    assert_eq!(stack.payment(key(), &id).await["status"], "captured");
}

#[tokio::test]
async fn unknown_fields_are_invalid_requests_naming_them() {
    let stack = Stack::start().await;
    let auth = stack.payment_in(key(), "authorized", 10_000).await;
    let capt = stack.payment_in(key(), "captured", 10_000).await;
    for (id, op, body, field) in [
        (
            &capt,
            "refund",
            json!({ "amount": 100, "reason": "x" }),
            "reason",
        ),
        (&auth, "capture", json!({ "amout": 100 }), "amout"),
        // cancel takes no fields at all: not even an amount
        (&auth, "cancel", json!({ "amount": 100 }), "amount"),
        (&capt, "query", json!({ "force": true }), "force"),
    ] {
        // WHEN the body has a field the operation does not know
        let reply = stack.op(key(), id, op, body).await;
        // THEN 400 invalid_request naming it
        let err = expect_error(&reply, 400, "invalid_request");
        assert_eq!(err["details"]["field"], field, "{op}: {err}");
        assert!(err["message"].as_str().unwrap().contains(field), "{err}");
    }
    // AND nothing moved
    assert_eq!(stack.payment(key(), &auth).await["status"], "authorized");
    assert_eq!(stack.payment(key(), &capt).await["refundedAmount"], 0);
}

#[tokio::test]
async fn unknown_payments_are_not_found() {
    let stack = Stack::start().await;
    for id in ["pay_doesNotExist0000", "pay_", "nonsense", "txn_abc"] {
        for op in ["capture", "cancel", "refund", "query"] {
            // WHEN an operation names a payment that does not exist
            let reply = stack.op(key(), id, op, json!({})).await;
            // THEN 404 not_found
            expect_error(&reply, 404, "not_found");
        }
        let reply = stack.get(&format!("/v1/payments/{id}"), key()).await;
        expect_error(&reply, 404, "not_found");
    }
}
