//! Two-step cancel of a captured authorization (reverse `capt`, then `auth`) under injected
//! faults (the kit's `FaultPlan` on the Posnet simulator): every fault settles to the bank's
//! true state and never leaves the hold open without saying so.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{approved_rrn, Bank, MID};
use paygate_bank_posnet::wire;
use paygate_bankkit::sim::{Fault, OrderState};
use paygate_domain::{ports::TestOrderState, BankOutcome, BankState};

/// A bank whose client gives up after 300 ms; time-out faults hold the line for 2 s.
async fn bank() -> Bank {
    let b = Bank::with_timeout(Duration::from_millis(300)).await;
    b.state.fault_plan().set_hang(Duration::from_secs(2));
    b
}

/// An authorization of 90.00 TL captured for 60.00 TL.
async fn captured(b: &Bank, order: &str) {
    b.register(order, 9_000, TestOrderState::Preauth, false)
        .await;
    approved_rrn(&b.capture(order, 6_000).await);
}

fn reversals(b: &Bank, order: &str) -> usize {
    b.book_kinds(order).iter().filter(|k| **k == "void").count()
}

fn book_state(b: &Bank, order: &str) -> OrderState {
    let key = wire::wire_order_id(order, "").unwrap();
    b.state.ledger_of(MID, &key).unwrap().state
}

fn requests(b: &Bank) -> u64 {
    b.state.fault_plan().counts().money_requests
}

#[tokio::test]
async fn a_step_two_time_out_is_retried_until_the_hold_is_released() {
    let b = bank().await;
    captured(&b, "PGTWO1").await;
    b.state
        .fault_plan()
        .script([Fault::Pass, Fault::TimeoutBefore]);
    assert!(matches!(
        b.cancel("PGTWO1").await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(b.query("PGTWO1").await.state, BankState::Cancelled);
    assert_eq!(reversals(&b, "PGTWO1"), 2);
    assert_eq!(b.state.fault_plan().counts().timeout_before, 1);
}

#[tokio::test]
async fn a_step_two_applied_but_unanswered_is_not_sent_again() {
    let b = bank().await;
    captured(&b, "PGTWO2").await;
    b.state.fault_plan().script([Fault::Pass, Fault::DropAfter]);
    let before = requests(&b);
    assert!(matches!(
        b.cancel("PGTWO2").await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(reversals(&b, "PGTWO2"), 2);
    assert_eq!(requests(&b), before + 2, "the re-read found it done");
}

#[tokio::test]
async fn a_step_two_that_keeps_failing_is_unknown_and_a_repeat_completes_only_step_two() {
    let b = bank().await;
    captured(&b, "PGTWO3").await;
    b.state.fault_plan().script([
        Fault::Pass,
        Fault::TechnicalError,
        Fault::TechnicalError,
        Fault::TechnicalError,
        Fault::TechnicalError,
    ]);
    let outcome = b.cancel("PGTWO3").await;
    assert!(
        matches!(outcome, BankOutcome::Unknown { .. }),
        "something moved: never Error ({outcome:?})"
    );
    // Half done, and the query says so: an open authorization again.
    let st = b.query("PGTWO3").await;
    assert_eq!((st.state, st.amount), (BankState::Preauth, 9_000));
    assert_eq!(book_state(&b, "PGTWO3"), OrderState::Preauth);
    let before = requests(&b);
    assert!(matches!(
        b.cancel("PGTWO3").await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(
        requests(&b),
        before + 1,
        "only the authorization's reversal"
    );
    assert_eq!(reversals(&b, "PGTWO3"), 2);
    assert_eq!(b.query("PGTWO3").await.state, BankState::Cancelled);
}

#[tokio::test]
async fn a_step_one_time_out_is_unknown_and_the_query_shows_the_truth() {
    let b = bank().await;
    captured(&b, "PGONE1").await;
    b.state.fault_plan().script([Fault::TimeoutBefore]);
    assert!(matches!(
        b.cancel("PGONE1").await,
        BankOutcome::Unknown { .. }
    ));
    let st = b.query("PGONE1").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 6_000));

    captured(&b, "PGONE2").await;
    b.state.fault_plan().script([Fault::TimeoutAfter]);
    assert!(matches!(
        b.cancel("PGONE2").await,
        BankOutcome::Unknown { .. }
    ));
    assert_eq!(b.query("PGONE2").await.state, BankState::Preauth);
    let before = requests(&b);
    assert!(matches!(
        b.cancel("PGONE2").await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(requests(&b), before + 1);
    assert_eq!(b.query("PGONE2").await.state, BankState::Cancelled);
}

#[tokio::test]
async fn a_cancel_of_a_cancelled_order_sends_nothing() {
    let b = bank().await;
    captured(&b, "PGDONE1").await;
    approved_rrn(&b.cancel("PGDONE1").await);
    let (kinds, before) = (b.book_kinds("PGDONE1"), requests(&b));
    assert!(matches!(
        b.cancel("PGDONE1").await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(b.book_kinds("PGDONE1"), kinds);
    assert_eq!(requests(&b), before);
}

#[tokio::test]
async fn a_late_booking_answers_no_record_once() {
    let b = bank().await;
    b.register("PGLATE1", 5_000, TestOrderState::Approved, false)
        .await;
    b.state.fault_plan().script([Fault::LateBooking]);
    assert!(matches!(
        b.cancel("PGLATE1").await,
        BankOutcome::Unknown { .. }
    ));
    assert!(!b.query("PGLATE1").await.found, "first query: no record");
    assert_eq!(b.query("PGLATE1").await.state, BankState::Cancelled);
}

/// Two cancels at once (both read the live sale before either reverses it): the second
/// reversal is answered `0220` (already reversed); the order read again shows it reversed,
/// so both cancels are done and the bank reversed it once.
#[tokio::test]
async fn already_reversed_by_a_concurrent_cancel_is_done() {
    let b = Bank::start().await;
    b.register("PGRACE1", 5_000, TestOrderState::Approved, false)
        .await;
    // Reads are answered 300 ms after they are made: both see the sale live.
    b.faults(r#"{"latencyMs":300,"only":"agreement"}"#).await;
    let (x, y) = tokio::join!(b.cancel("PGRACE1"), b.cancel("PGRACE1"));
    for o in [&x, &y] {
        assert!(matches!(o, BankOutcome::Approved { .. }), "{x:?} / {y:?}");
    }
    assert_eq!(reversals(&b, "PGRACE1"), 1);
    assert_eq!(book_state(&b, "PGRACE1"), OrderState::Voided);
}
