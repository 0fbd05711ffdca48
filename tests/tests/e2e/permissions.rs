//! The spec's table "Which operation is allowed in which status", every cell, through HTTP.

use paygate_tests::{expect_error, is_numeric_string, keys, Stack, StatusCode};
use serde_json::{json, Value};

const AMOUNT: i64 = 10_000;
/// What `Stack::payment_in` refunds to reach `partially_refunded`.
const PRE_REFUNDED: i64 = 3_000;

/// Per status: whether capture, cancel, refund are allowed (the spec's table, verbatim).
const TABLE: [(&str, [bool; 3]); 7] = [
    ("authorized", [true, true, false]),
    // cancel: "allowed only if no refund has been made" — none has on a fresh capture.
    ("captured", [false, true, true]),
    ("partially_refunded", [false, false, true]),
    ("refunded", [false, false, false]),
    ("cancelled", [false, false, false]),
    ("declined", [false, false, false]),
    ("failed", [false, false, false]),
];
const OPS: [&str; 3] = ["capture", "cancel", "refund"];

/// The request body used for `op` in every cell (an amount where the operation takes one,
/// so that a refusal can only come from the status).
fn request(op: &str) -> Value {
    match op {
        "cancel" => json!({}),
        _ => json!({ "amount": 1000 }),
    }
}

/// What an allowed operation must answer, as (payment status, capturedAmount,
/// refundedAmount, transaction amount).
fn expected(status: &str, op: &str) -> (&'static str, i64, i64, i64) {
    match (status, op) {
        ("authorized", "capture") => ("captured", 1000, 0, 1000),
        ("authorized", "cancel") => ("cancelled", 0, 0, AMOUNT),
        ("captured", "cancel") => ("cancelled", AMOUNT, 0, AMOUNT),
        ("captured", "refund") => ("partially_refunded", AMOUNT, 1000, 1000),
        ("partially_refunded", "refund") => {
            ("partially_refunded", AMOUNT, PRE_REFUNDED + 1000, 1000)
        }
        other => panic!("{other:?} is not an allowed cell"),
    }
}

/// Checks the documented success body of capture/cancel/refund: `payment` (id, status,
/// capturedAmount, refundedAmount) and `transaction` (id, type, amount, status, rrn).
#[track_caller]
pub fn assert_operation_body(
    body: &Value,
    id: &str,
    op: &str,
    (status, captured, refunded, amount): (&str, i64, i64, i64),
) {
    let p = &body["payment"];
    let t = &body["transaction"];
    assert_eq!(p["id"], id, "{body}");
    assert_eq!(p["status"], status, "{body}");
    assert_eq!(p["capturedAmount"], captured, "{body}");
    assert_eq!(p["refundedAmount"], refunded, "{body}");
    assert!(p["pendingOperation"].is_null(), "{body}");
    assert!(
        t["id"]
            .as_str()
            .is_some_and(|s| s.len() > 4 && s.starts_with("txn_")),
        "{body}"
    );
    assert_eq!(t["type"], op, "{body}");
    assert_eq!(t["amount"], amount, "{body}");
    assert_eq!(t["status"], "approved", "{body}");
    assert!(
        is_numeric_string(&t["rrn"]),
        "rrn must be a numeric string: {body}"
    );
}

async fn cell(stack: &Stack, status: &str, op_index: usize, allowed: bool) {
    let key = keys().anatolia_test;
    let op = OPS[op_index];
    // GIVEN a payment in `status`, reached through the API
    let id = stack.payment_in(key, status, AMOUNT).await;
    let before = stack.payment(key, &id).await;
    assert_eq!(before["status"], status);

    // WHEN the operation is attempted
    let reply = stack.op(key, &id, op, request(op)).await;

    // THEN an allowed one succeeds with the documented body, and the payment shows it
    let after = stack.payment(key, &id).await;
    if allowed {
        assert_eq!(reply.0, StatusCode::OK, "{op} in {status}: {}", reply.1);
        let want = expected(status, op);
        assert_operation_body(&reply.1, &id, op, want);
        assert_eq!(after["status"], want.0, "{after}");
        let txn_id = &reply.1["transaction"]["id"];
        let listed = after["transactions"]
            .as_array()
            .and_then(|ts| ts.iter().find(|t| t["id"] == *txn_id))
            .unwrap_or_else(|| panic!("{txn_id} missing from GET: {after}"));
        assert_eq!(listed["status"], "approved", "{after}");
    } else {
        // … and a disallowed one is refused with 409 invalid_state, changing nothing.
        expect_error(&reply, 409, "invalid_state");
        assert_eq!(after["status"], status, "{after}");
        assert_eq!(after["capturedAmount"], before["capturedAmount"]);
        assert_eq!(after["refundedAmount"], before["refundedAmount"]);
        assert_eq!(after["transactions"], before["transactions"], "{after}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_cell_of_the_permission_table() {
    let stack = std::sync::Arc::new(Stack::start().await);
    // Every cell on its own payment, all at once; each failure is reported with its cell.
    let mut cells = Vec::new();
    for (status, row) in TABLE {
        for (i, allowed) in row.into_iter().enumerate() {
            let stack = stack.clone();
            let name = format!(
                "{} in {status} ({})",
                OPS[i],
                if allowed { "allowed" } else { "not allowed" }
            );
            cells.push((
                name,
                tokio::spawn(async move { cell(&stack, status, i, allowed).await }),
            ));
        }
    }
    assert_eq!(cells.len(), 21);
    let mut failed = Vec::new();
    for (name, handle) in cells {
        if let Err(e) = handle.await {
            let why = e
                .try_into_panic()
                .ok()
                .and_then(|p| {
                    p.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                })
                .unwrap_or_default();
            failed.push(format!("{name}: {why}"));
        }
    }
    assert!(failed.is_empty(), "cells failed:\n{}", failed.join("\n"));
}
