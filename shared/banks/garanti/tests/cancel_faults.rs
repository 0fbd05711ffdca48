//! Two-step cancel of a captured pre-authorization under injected faults (the kit's
//! `FaultPlan` on the GVPS simulator): every fault settles to the bank's true state and
//! never leaves the hold open without saying so.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{bank_with_timeout, op, Bank, TERMINAL};
use paygate_bankkit::sim::{Fault, OrderState};
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    BankOutcome, BankState,
};

/// A bank whose client gives up after 300 ms; time-out faults hold the line for 2 s.
async fn bank() -> Bank {
    let b = bank_with_timeout(300).await;
    b.state.fault_plan().set_hang(Duration::from_secs(2));
    b
}

/// A pre-authorization of 90.00 TL captured for 60.00 TL.
async fn captured(b: &Bank, order: &str) {
    b.register(order, 9_000, TestOrderState::Preauth, false)
        .await;
    assert!(matches!(
        b.provider.capture(&b.account, &op(order, 6_000)).await,
        BankOutcome::Approved { .. }
    ));
}

/// (kind, voided) of every operation the bank applied to the order.
fn ledger(b: &Bank, order: &str) -> Vec<(&'static str, bool)> {
    b.state
        .ledger_of(TERMINAL, order)
        .unwrap()
        .operations
        .iter()
        .map(|t| (t.kind, t.voided))
        .collect()
}

fn voids(b: &Bank, order: &str) -> usize {
    ledger(b, order)
        .iter()
        .filter(|(k, _)| *k == "void")
        .count()
}

#[tokio::test]
async fn both_voids_release_the_hold() {
    let b = bank().await;
    captured(&b, "PA1").await;
    assert!(matches!(
        b.provider.cancel(&b.account, &op("PA1", 6_000)).await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(
        ledger(&b, "PA1"),
        [
            ("preauth", true),
            ("postauth", true),
            ("void", false),
            ("void", false)
        ]
    );
    assert_eq!(b.query("PA1").await.state, BankState::Cancelled);
}

#[tokio::test]
async fn a_step_two_time_out_is_retried_until_the_hold_is_released() {
    let b = bank().await;
    captured(&b, "PA1").await;
    // Step 1 passes; step 2 times out before reaching the bank, then passes.
    b.state
        .fault_plan()
        .script([Fault::Pass, Fault::TimeoutBefore]);
    assert!(matches!(
        b.provider.cancel(&b.account, &op("PA1", 6_000)).await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(b.query("PA1").await.state, BankState::Cancelled);
    assert_eq!(voids(&b, "PA1"), 2);
    assert_eq!(b.state.fault_plan().counts().timeout_before, 1);
}

#[tokio::test]
async fn a_step_two_applied_but_unanswered_is_not_sent_again() {
    let b = bank().await;
    captured(&b, "PA1").await;
    b.state
        .fault_plan()
        .script([Fault::Pass, Fault::TimeoutAfter]);
    // The re-read before the retry shows the hold released: done, no third void.
    assert!(matches!(
        b.provider.cancel(&b.account, &op("PA1", 6_000)).await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(voids(&b, "PA1"), 2);
    assert_eq!(b.state.fault_plan().counts().money_requests, 3);
}

#[tokio::test]
async fn a_step_two_that_keeps_failing_is_unknown_and_a_repeat_completes_only_step_two() {
    let b = bank().await;
    captured(&b, "PA1").await;
    // One first attempt and three retries of step 2, all technical errors.
    b.state.fault_plan().script([
        Fault::Pass,
        Fault::TechnicalError,
        Fault::TechnicalError,
        Fault::TechnicalError,
        Fault::TechnicalError,
    ]);
    let outcome = b.provider.cancel(&b.account, &op("PA1", 6_000)).await;
    assert!(
        matches!(outcome, BankOutcome::Unknown { .. }),
        "something moved: never Error ({outcome:?})"
    );
    // Half done, and the query says so: a pre-authorization again, hold open.
    let st = b.query("PA1").await;
    assert_eq!((st.state, st.amount), (BankState::Preauth, 9_000));
    assert_eq!(
        b.state.ledger_of(TERMINAL, "PA1").unwrap().state,
        OrderState::Preauth
    );
    assert_eq!(voids(&b, "PA1"), 1);
    // The reconciler's repeated cancel sends only the hold's void.
    let requests = b.state.fault_plan().counts().money_requests;
    assert!(matches!(
        b.provider.cancel(&b.account, &op("PA1", 6_000)).await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(b.state.fault_plan().counts().money_requests, requests + 1);
    assert_eq!(voids(&b, "PA1"), 2);
    assert_eq!(b.query("PA1").await.state, BankState::Cancelled);
}

#[tokio::test]
async fn a_step_one_time_out_is_unknown_and_the_query_shows_the_truth() {
    let b = bank().await;
    // Not applied: still captured.
    captured(&b, "NA").await;
    b.state.fault_plan().script([Fault::TimeoutBefore]);
    assert!(matches!(
        b.provider.cancel(&b.account, &op("NA", 6_000)).await,
        BankOutcome::Unknown { .. }
    ));
    let st = b.query("NA").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 6_000));
    // Applied, answer lost: the capture is voided, the hold is open.
    captured(&b, "AP").await;
    b.state.fault_plan().script([Fault::TimeoutAfter]);
    assert!(matches!(
        b.provider.cancel(&b.account, &op("AP", 6_000)).await,
        BankOutcome::Unknown { .. }
    ));
    assert_eq!(b.query("AP").await.state, BankState::Preauth);
    // Repeating the cancel finishes it with the hold's void only.
    assert!(matches!(
        b.provider.cancel(&b.account, &op("AP", 6_000)).await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(voids(&b, "AP"), 2);
    assert_eq!(b.query("AP").await.state, BankState::Cancelled);
}

#[tokio::test]
async fn a_cancel_of_a_cancelled_order_sends_nothing() {
    let b = bank().await;
    captured(&b, "PA1").await;
    assert!(matches!(
        b.provider.cancel(&b.account, &op("PA1", 6_000)).await,
        BankOutcome::Approved { .. }
    ));
    let (before, requests) = (
        ledger(&b, "PA1"),
        b.state.fault_plan().counts().money_requests,
    );
    assert!(matches!(
        b.provider.cancel(&b.account, &op("PA1", 6_000)).await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(ledger(&b, "PA1"), before);
    assert_eq!(b.state.fault_plan().counts().money_requests, requests);
}

#[tokio::test]
async fn a_late_booking_answers_no_record_once() {
    let b = bank().await;
    b.register("S1", 5_000, TestOrderState::Approved, false)
        .await;
    b.state.fault_plan().script([Fault::LateBooking]);
    assert!(matches!(
        b.provider.refund(&b.account, &op("S1", 1_000)).await,
        BankOutcome::Unknown { .. }
    ));
    assert!(!b.query("S1").await.found, "the first query sees no record");
    let st = b.query("S1").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::PartiallyRefunded, 1_000)
    );
    assert_eq!(b.state.ledger_of(TERMINAL, "S1").unwrap().refunded, 1_000);
    assert_eq!(b.state.fault_plan().counts().late_booking, 1);
}

/// Two cancels of the same captured pre-authorization at once (a query and the reconciler
/// resuming it): the one whose void meets "already voided" reads the history again and
/// finishes (or finds finished) what is left. Both are approved; the bank voided twice.
#[tokio::test]
async fn concurrent_cancels_both_end_approved_and_void_once_each_step() {
    let b = common::bank().await;
    captured(&b, "PA1").await;
    // Every answer waits 100 ms after processing: both history reads are served before
    // either void, so the two cancels plan the same voids.
    b.set_faults(paygate_bankkit::sim::Faults {
        latency: Duration::from_millis(100),
        ..Default::default()
    });
    let cancel = op("PA1", 6_000);
    let (one, two) = tokio::join!(
        b.provider.cancel(&b.account, &cancel),
        b.provider.cancel(&b.account, &cancel),
    );
    for outcome in [&one, &two] {
        assert!(
            matches!(outcome, BankOutcome::Approved { .. }),
            "{one:?} / {two:?}"
        );
    }
    assert_eq!(voids(&b, "PA1"), 2);
    assert_eq!(
        b.state.ledger_of(TERMINAL, "PA1").unwrap().state,
        OrderState::Voided
    );
}

/// A history that shows no sale or pre-authorization of a found order is incomplete: the
/// cancel sends nothing (a void without reference could reverse the capture alone) and is
/// unknown.
#[tokio::test]
async fn a_cancel_on_an_empty_history_sends_nothing() {
    let b = bank().await;
    captured(&b, "PA1").await;
    let before = ledger(&b, "PA1");
    b.admin(
        "/_sim/history-lag",
        br#"{"orderId":"PA1","answer":"empty"}"#.to_vec(),
    )
    .await;
    assert!(matches!(
        b.provider.cancel(&b.account, &op("PA1", 6_000)).await,
        BankOutcome::Unknown { .. }
    ));
    assert_eq!(ledger(&b, "PA1"), before);
}
