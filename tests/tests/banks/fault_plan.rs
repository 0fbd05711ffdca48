//! The simulators' scripted fault plan (money requests only, the same in every protocol): a
//! late booking, a time-out after the bank applied a cancel, a refund lost before it reached
//! the bank, and one lost after it (settled by the reconciler). Each is an unknown outcome
//! that is never retried and is settled only by a conclusive answer from the bank's records.

use std::time::{Duration, Instant};

use paygate_bankkit::sim::{Fault, OrderState};
use paygate_tests::{expect_error, expect_ok, Stack};
use serde_json::{json, Value};

use crate::{
    bank_order, create, end_of_day, listed, order_id, sim, stack, Bank, BANKS, BANK_TIMEOUT,
    LATENCY_MS,
};

/// Scripts `fault` for `bank`'s next money request; a time-out holds the connection for
/// [`LATENCY_MS`], well past [`crate::BANK_TIMEOUT`].
fn script(stack: &Stack, bank: &Bank, fault: Fault) {
    sim(stack, bank.provider)
        .fault_plan()
        .set_hang(Duration::from_millis(LATENCY_MS))
        .script([fault]);
}

/// Checks `reply` is the unknown outcome of `op` and that the operation is locked.
async fn unknown_and_locked(
    stack: &Stack,
    bank: &Bank,
    id: &str,
    (op, body): (&str, Value),
    reply: &(paygate_tests::StatusCode, Value),
) {
    let p = bank.provider;
    let err = expect_error(reply, 422, "provider_error");
    let (pay, txn) = (&err["details"]["payment"], &err["details"]["transaction"]);
    assert_eq!(txn["status"], "unknown", "{p}: {err}");
    assert_eq!(pay["pendingOperation"]["state"], "unknown", "{p}: {err}");
    assert_eq!(pay["pendingOperation"]["type"], op, "{p}: {err}");
    let again = stack.op(bank.key(), id, op, body).await;
    expect_error(&again, 409, "operation_outcome_unknown");
}

#[tokio::test]
async fn a_late_booking_is_not_read_as_nothing_moved() {
    let stack = stack().await;
    for &bank in BANKS {
        let p = bank.provider;
        if !bank.preauth {
            late_booked_refund(&stack, &bank).await;
            continue;
        }
        // GIVEN a pre-authorization of 20 000
        let id = create(&stack, &bank, "authorized", 20_000).await;
        // (one simulator may serve several families' accounts: its counts add up)
        let hidden_before = sim(&stack, p).fault_plan().counts().hidden_answers;
        // WHEN 15 000 is captured, the bank books it but the answer is lost and its records
        // show the capture only from the second read on
        script(&stack, &bank, Fault::LateBooking);
        let body = json!({ "amount": 15_000 });
        let reply = stack.op(bank.key(), &id, "capture", body.clone()).await;
        // THEN the capture is unknown and locked
        unknown_and_locked(&stack, &bank, &id, ("capture", body), &reply).await;
        let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &id).await);
        assert_eq!(
            (order.state, order.amount),
            (OrderState::Sale, 15_000),
            "{p}"
        );

        // WHEN the first query finds no record
        let q = expect_ok(stack.op(bank.key(), &id, "query", json!({})).await);
        assert_eq!(q["bank"]["found"], false, "{p}: {q}");
        // THEN the capture is not called failed (that would free the hold for a second
        // capture): still unknown, the payment still authorized
        assert_eq!(q["payment"]["status"], "authorized", "{p}: {q}");
        assert_eq!(
            q["payment"]["pendingOperation"]["state"], "unknown",
            "{p}: {q}"
        );
        assert_eq!(
            sim(&stack, p).fault_plan().counts().hidden_answers - hidden_before,
            1,
            "{p}"
        );

        // WHEN it is queried again THEN the booking shows and settles the capture
        let q = expect_ok(stack.op(bank.key(), &id, "query", json!({})).await);
        assert_eq!(q["bank"]["state"], "approved", "{p}: {q}");
        assert_eq!(q["bank"]["amount"], 15_000, "{p}: {q}");
        assert_eq!(q["payment"]["status"], "captured", "{p}: {q}");
        assert_eq!(q["payment"]["capturedAmount"], 15_000, "{p}: {q}");
        assert!(q["payment"]["pendingOperation"].is_null(), "{p}: {q}");
    }
}

/// A family without pre-authorizations (Kuveyt Türk): the late booking meets a refund past
/// the cut; the first query's "no record" leaves it unknown, the second settles it.
async fn late_booked_refund(stack: &Stack, bank: &Bank) {
    let p = bank.provider;
    let id = create(stack, bank, "captured", 20_000).await;
    end_of_day(stack, bank);
    let hidden_before = sim(stack, p).fault_plan().counts().hidden_answers;
    script(stack, bank, Fault::LateBooking);
    let body = json!({ "amount": 15_000 });
    let reply = stack.op(bank.key(), &id, "refund", body.clone()).await;
    unknown_and_locked(stack, bank, &id, ("refund", body), &reply).await;
    let q = expect_ok(stack.op(bank.key(), &id, "query", json!({})).await);
    assert_eq!(q["bank"]["found"], false, "{p}: {q}");
    assert_eq!(q["payment"]["refundedAmount"], 0, "{p}: {q}");
    assert_eq!(
        q["payment"]["pendingOperation"]["state"], "unknown",
        "{p}: {q}"
    );
    assert_eq!(
        sim(stack, p).fault_plan().counts().hidden_answers - hidden_before,
        1,
        "{p}"
    );
    let q = expect_ok(stack.op(bank.key(), &id, "query", json!({})).await);
    assert_eq!(q["bank"]["state"], "partially_refunded", "{p}: {q}");
    assert_eq!(q["payment"]["refundedAmount"], 15_000, "{p}: {q}");
    assert!(q["payment"]["pendingOperation"].is_null(), "{p}: {q}");
}

#[tokio::test]
async fn a_cancel_that_timed_out_after_the_bank_applied_it_is_settled_by_a_query() {
    let stack = stack().await;
    for &bank in BANKS {
        let p = bank.provider;
        // GIVEN a sale captured today
        let id = create(&stack, &bank, "captured", 20_000).await;
        // WHEN it is cancelled and the bank voids it but answers after the gateway gave up
        script(&stack, &bank, Fault::TimeoutAfter);
        let reply = stack.op(bank.key(), &id, "cancel", json!({})).await;
        // THEN the cancel is unknown and locked
        unknown_and_locked(&stack, &bank, &id, ("cancel", json!({})), &reply).await;
        let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &id).await);
        assert_eq!(order.state, OrderState::Voided, "{p}");
        // AND a query settles it as cancelled
        let q = expect_ok(stack.op(bank.key(), &id, "query", json!({})).await);
        assert_eq!(q["bank"]["state"], "cancelled", "{p}: {q}");
        assert_eq!(q["payment"]["status"], "cancelled", "{p}: {q}");
        assert!(q["payment"]["pendingOperation"].is_null(), "{p}: {q}");
        // AND the bank voided exactly once
        let voids = bank_order(&stack, &bank, &order_id(&stack, &bank, &id).await)
            .history
            .iter()
            .filter(|t| t.kind == "void")
            .count();
        assert_eq!(voids, 1, "{p}");
    }
}

#[tokio::test]
async fn a_refund_lost_before_the_bank_is_never_counted_nor_retried() {
    let stack = stack().await;
    for &bank in BANKS {
        let p = bank.provider;
        for fault in [Fault::DropBefore, Fault::TimeoutBefore] {
            // GIVEN a sale past the bank's cut
            let id = create(&stack, &bank, "captured", 20_000).await;
            end_of_day(&stack, &bank);
            // WHEN 6 000 is refunded and the request never reaches the bank
            script(&stack, &bank, fault);
            let body = json!({ "amount": 6_000 });
            let reply = stack.op(bank.key(), &id, "refund", body.clone()).await;
            // THEN the refund is unknown and locked (the gateway cannot tell)
            unknown_and_locked(&stack, &bank, &id, ("refund", body), &reply).await;
            // AND the bank refunded nothing
            let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &id).await);
            assert_eq!(order.refunded, 0, "{p} {fault:?}");
            // AND a query showing no refund inside the grace for late bookings does not
            // settle it: nothing is refunded, the refund stays unknown
            let q = expect_ok(stack.op(bank.key(), &id, "query", json!({})).await);
            assert_eq!(q["bank"]["state"], "approved", "{p} {fault:?}: {q}");
            assert_eq!(q["payment"]["refundedAmount"], 0, "{p} {fault:?}: {q}");
            assert_eq!(
                q["payment"]["pendingOperation"]["state"], "unknown",
                "{p} {fault:?}: {q}"
            );
        }
    }
}

#[tokio::test]
async fn a_cancel_of_a_captured_preauth_lost_at_either_step_is_settled_once() {
    let stack = stack().await;
    for &bank in BANKS.iter().filter(|b| b.preauth) {
        let p = bank.provider;
        // The fault hits the cancel's first or second money request: PayFor, Akbank POS
        // (and Garanti, Posnet) void a captured pre-authorization in two steps (the capture,
        // then the hold); the others in one, where the second script entry is never drawn.
        for (step, faults) in [
            (1, [Fault::TimeoutAfter, Fault::Pass]),
            (2, [Fault::Pass, Fault::TimeoutAfter]),
        ] {
            // GIVEN a pre-authorization of 20 000 captured for 12 000 today
            let id = create(&stack, &bank, "authorized", 20_000).await;
            let c = stack
                .op(bank.key(), &id, "capture", json!({ "amount": 12_000 }))
                .await;
            expect_ok(c);
            // WHEN it is cancelled and one of the bank's answers is lost after it applied
            sim(&stack, p)
                .fault_plan()
                .set_hang(Duration::from_millis(LATENCY_MS))
                .script(faults);
            let reply = stack.op(bank.key(), &id, "cancel", json!({})).await;
            let left = sim(&stack, p).fault_plan().off().is_active();
            assert!(!left, "{p}");
            if reply.0.is_success() {
                // a one-step cancel never met the fault on a second request
                assert_eq!(step, 2, "{p}: {}", reply.1);
                assert_eq!(reply.1["payment"]["status"], "cancelled", "{p}");
            } else {
                // THEN it is unknown and locked
                unknown_and_locked(&stack, &bank, &id, ("cancel", json!({})), &reply).await;
                // AND the query settles it as cancelled (completing a half-done cancel)
                let q = expect_ok(stack.op(bank.key(), &id, "query", json!({})).await);
                assert_eq!(q["payment"]["status"], "cancelled", "{p} step {step}: {q}");
                assert!(q["payment"]["pendingOperation"].is_null(), "{p}: {q}");
                // AND its `bank` is the order after the completed cancel, not the read that
                // found the hold still open
                assert_eq!(q["bank"]["state"], "cancelled", "{p} step {step}: {q}");
            }
            // AND the bank holds nothing: no sale, no open hold
            let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &id).await);
            assert_eq!(
                order.state,
                OrderState::Voided,
                "{p} step {step}: {order:?}"
            );
            let voids = order.history.iter().filter(|t| t.kind == "void").count();
            assert!(voids <= 2, "{p} step {step}: {order:?}");
        }
    }
}

#[tokio::test]
async fn a_refund_whose_answer_was_lost_is_settled_by_the_reconciler_with_no_merchant_call() {
    // The reconciler as `make dev` runs it, every 200 ms here instead of 10 s.
    let stack =
        Stack::start_with_reconciler("banksreconciler", Duration::from_millis(200), BANK_TIMEOUT)
            .await;
    let mut lost = Vec::new();
    for &bank in BANKS {
        let p = bank.provider;
        // GIVEN a captured payment of 20 000 past the bank's cut
        let id = create(&stack, &bank, "captured", 20_000).await;
        end_of_day(&stack, &bank);
        // WHEN 7 000 is refunded and the connection drops after the bank acted (the plan
        // faults money requests only: the reconciler's reads of other payments pass)
        script(&stack, &bank, Fault::DropAfter);
        let reply = stack
            .op(bank.key(), &id, "refund", json!({ "amount": 7_000 }))
            .await;
        let err = expect_error(&reply, 422, "provider_error");
        let txn = err["details"]["transaction"]["id"].clone();
        assert_eq!(
            err["details"]["transaction"]["status"], "unknown",
            "{p}: {err}"
        );
        lost.push((bank, id, txn));
    }
    // THEN, with no query, the reconciler settles every one from its bank's records, once
    for (bank, id, txn) in lost {
        let p = bank.provider;
        let started = Instant::now();
        let got = loop {
            let got = stack.payment(bank.key(), &id).await;
            if got["pendingOperation"].is_null() {
                break got;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "{p}: not settled: {got}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        assert_eq!(listed(&got, &txn)["status"], "approved", "{p}: {got}");
        assert_eq!(got["status"], "partially_refunded", "{p}: {got}");
        assert_eq!(got["refundedAmount"], 7_000, "{p}: {got}");
        let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &id).await);
        assert_eq!(order.refunded, 7_000, "{p}: the bank refunded once");
    }
}
