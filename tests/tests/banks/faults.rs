//! Technical errors and lost answers at each protocol's bank: an error fails the
//! transaction and changes nothing; a time-out or a connection dropped after the bank acted
//! is an unknown outcome, never retried, settled by a query from the bank's records.

use std::time::Instant;

use paygate_bankkit::sim::OrderState;
use paygate_tests::{expect_error, expect_ok, Stack};
use serde_json::{json, Value};

use crate::{
    bank_order, create, end_of_day, faults, listed, no_faults, order_id, stack, Bank,
    TechnicalError, BANKS, BANK_TIMEOUT, LATENCY_MS,
};

#[tokio::test]
async fn a_technical_error_fails_the_transaction_and_changes_nothing() {
    let stack = stack().await;
    for &bank in BANKS {
        let p = bank.provider;
        if !bank.preauth {
            technical_error_on_a_refund(&stack, &bank).await;
            continue;
        }
        // GIVEN a pre-authorization, and the bank's next answer is a technical error
        let id = create(&stack, &bank, "authorized", 20_000).await;
        faults(&stack, &bank, json!({ "technicalErrors": 1 }), "capt").await;

        // WHEN it is captured
        let reply = stack.op(bank.key(), &id, "capture", json!({})).await;

        // THEN 422 provider_error; the bank holds the open pre-authorization
        let err = expect_error(&reply, 422, "provider_error");
        let (pay, txn) = (&err["details"]["payment"], &err["details"]["transaction"]);
        assert_eq!(pay["status"], "authorized", "{p}: {err}");
        let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &id).await);
        assert_eq!(order.state, OrderState::Preauth, "{p}");
        match bank.technical_error {
            TechnicalError::Fails => {
                // AND the transaction failed, nothing is pending
                assert_eq!(txn["status"], "failed", "{p}: {err}");
                assert!(
                    txn["bankCode"].as_str().is_some_and(|c| !c.is_empty()),
                    "{p}: {err}"
                );
                assert!(pay["pendingOperation"].is_null(), "{p}: {err}");
                // AND the capture can be made again at once
                let c = expect_ok(stack.op(bank.key(), &id, "capture", json!({})).await);
                assert_eq!(c["payment"]["status"], "captured", "{p}: {c}");
            }
            TechnicalError::Unknown => {
                // Exception (PayFor `V036`, Akbank POS HTTP 503): the answer does not say
                // the bank did nothing, so the capture is unknown and locked, never retried
                assert_eq!(txn["status"], "unknown", "{p}: {err}");
                assert_eq!(pay["pendingOperation"]["state"], "unknown", "{p}: {err}");
                let again = stack.op(bank.key(), &id, "capture", json!({})).await;
                expect_error(&again, 409, "operation_outcome_unknown");
                // AND a query that finds the order unchanged does not call it failed before
                // the grace for late bookings has passed: it stays unknown
                let q = expect_ok(stack.op(bank.key(), &id, "query", json!({})).await);
                assert_eq!(q["bank"]["state"], "preauth", "{p}: {q}");
                assert_eq!(q["payment"]["status"], "authorized", "{p}: {q}");
                assert_eq!(
                    q["payment"]["pendingOperation"]["state"], "unknown",
                    "{p}: {q}"
                );
                // AND the bank moved nothing
                let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &id).await);
                assert_eq!((order.state, order.amount), (OrderState::Preauth, 20_000));
            }
        }
    }
}

/// A family without pre-authorizations (Kuveyt Türk) meets the technical error on a refund
/// past the cut: failed or unknown as its code says, and the bank refunded nothing.
async fn technical_error_on_a_refund(stack: &Stack, bank: &Bank) {
    let p = bank.provider;
    let id = create(stack, bank, "captured", 20_000).await;
    end_of_day(stack, bank);
    faults(stack, bank, json!({ "technicalErrors": 1 }), "return").await;
    let reply = stack
        .op(bank.key(), &id, "refund", json!({ "amount": 5_000 }))
        .await;
    let err = expect_error(&reply, 422, "provider_error");
    let status = match bank.technical_error {
        TechnicalError::Fails => "failed",
        TechnicalError::Unknown => "unknown",
    };
    assert_eq!(
        err["details"]["transaction"]["status"], status,
        "{p}: {err}"
    );
    let order = bank_order(stack, bank, &order_id(stack, bank, &id).await);
    assert_eq!((order.state, order.refunded), (OrderState::Sale, 0), "{p}");
}

/// Runs `op` on `id` with the bank's answer lost (`fault`), checks the unknown outcome and
/// that a query settles it as the bank recorded it; returns the query's answer.
async fn unknown_then_settled(
    stack: &Stack,
    bank: &Bank,
    id: &str,
    (op, body): (&str, Value),
    fault: Value,
    posnet_element: &str,
) -> Value {
    let p = bank.provider;
    faults(stack, bank, fault.clone(), posnet_element).await;
    let started = Instant::now();
    let reply = stack.op(bank.key(), id, op, body.clone()).await;
    let took = started.elapsed();
    no_faults(stack, bank).await;

    // THEN 422 provider_error with the transaction unknown and the operation pending
    let err = expect_error(&reply, 422, "provider_error");
    let (pay, txn) = (&err["details"]["payment"], &err["details"]["transaction"]);
    assert_eq!(txn["status"], "unknown", "{p} {fault}: {err}");
    assert_eq!(pay["pendingOperation"]["state"], "unknown", "{p}: {err}");
    assert_eq!(pay["pendingOperation"]["type"], op, "{p}: {err}");
    assert_eq!(pay["pendingOperation"]["transactionId"], txn["id"], "{p}");
    if fault.get("latencyMs").is_some() {
        // the transport gave up after its time-out (an answer in time would be approved)
        assert!(took >= BANK_TIMEOUT, "{p}: answered in {took:?}");
    }
    let txn_id = txn["id"].clone();

    // AND nothing is retried: the operation is locked until the outcome is known
    let again = stack.op(bank.key(), id, op, body).await;
    let locked = expect_error(&again, 409, "operation_outcome_unknown");
    assert_eq!(locked["details"]["transactionId"], txn_id, "{p}: {locked}");

    // WHEN the payment is queried
    let q = expect_ok(stack.op(bank.key(), id, "query", json!({})).await);

    // THEN the bank's records settle it: applied, approved, nothing pending
    assert_eq!(q["bank"]["found"], true, "{p}: {q}");
    assert!(q["payment"]["pendingOperation"].is_null(), "{p}: {q}");
    let got = stack.payment(bank.key(), id).await;
    assert!(got["pendingOperation"].is_null(), "{p}: {got}");
    assert_eq!(listed(&got, &txn_id)["status"], "approved", "{p}: {got}");
    q
}

#[tokio::test]
async fn a_capture_without_an_answer_is_unknown_until_a_query_settles_it() {
    let stack = stack().await;
    for &bank in BANKS.iter().filter(|b| b.preauth) {
        let p = bank.provider;
        let mut lost = vec![json!({ "dropAfterProcessing": 1 })];
        if bank.late_after_processing {
            lost.push(json!({ "latencyMs": LATENCY_MS }));
        }
        for fault in lost {
            // GIVEN a pre-authorization of 20 000
            let id = create(&stack, &bank, "authorized", 20_000).await;
            // WHEN 15 000 is captured and the bank's answer is lost (late or dropped)
            let q = unknown_then_settled(
                &stack,
                &bank,
                &id,
                ("capture", json!({ "amount": 15_000 })),
                fault.clone(),
                "capt",
            )
            .await;
            // THEN the query commits the capture the bank made
            assert_eq!(q["bank"]["state"], "approved", "{p} {fault}: {q}");
            assert_eq!(q["bank"]["amount"], 15_000, "{p} {fault}: {q}");
            assert_eq!(q["payment"]["status"], "captured", "{p} {fault}: {q}");
            assert_eq!(q["payment"]["capturedAmount"], 15_000, "{p} {fault}: {q}");
            let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &id).await);
            assert_eq!((order.state, order.amount), (OrderState::Sale, 15_000));
            // AND it can be refunded as usual afterwards
            if bank.same_day_refund_refusal.is_none() {
                let r = expect_ok(stack.op(bank.key(), &id, "refund", json!({})).await);
                assert_eq!(r["payment"]["status"], "refunded", "{p}: {r}");
            }
        }
    }
}

#[tokio::test]
async fn a_refund_without_an_answer_is_unknown_until_a_query_settles_it() {
    let stack = stack().await;
    for &bank in BANKS {
        let p = bank.provider;
        // GIVEN a captured payment of 20 000 past the bank's cut
        let id = create(&stack, &bank, "captured", 20_000).await;
        end_of_day(&stack, &bank);
        // WHEN 7 000 is refunded and the connection drops after the bank acted
        let q = unknown_then_settled(
            &stack,
            &bank,
            &id,
            ("refund", json!({ "amount": 7_000 })),
            json!({ "dropAfterProcessing": 1 }),
            "return",
        )
        .await;
        // THEN the query shows the bank's partial refund and the payment takes it
        assert_eq!(q["bank"]["state"], "partially_refunded", "{p}: {q}");
        assert_eq!(q["payment"]["status"], "partially_refunded", "{p}: {q}");
        assert_eq!(q["payment"]["refundedAmount"], 7_000, "{p}: {q}");
        let got = stack.payment(bank.key(), &id).await;
        assert_eq!(got["refundableAmount"], 13_000, "{p}: {got}");
    }
}
