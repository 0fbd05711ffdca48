//! The kit's fault plan on the Akbank simulator: time-outs before/after applying, dropped
//! connections, technical errors (HTTP 503) and late bookings are unknown outcomes; the
//! history-based query settles them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, op, Bank, TERMINAL, TIMEOUT};
use paygate_bankkit::sim::testing::{FaultPlanCase, LateBooking, TechnicalError};
use paygate_bankkit::sim::Faults;
use paygate_domain::{ports::PosProvider, BankOutcome, BankState};

/// A technical error (HTTP 503) is unknown; the capture meets a late booking.
fn case(b: &Bank) -> FaultPlanCase<'_> {
    b.fault_plan(
        TERMINAL,
        TechnicalError::Unknown(""),
        LateBooking::Capture(5_000),
    )
}

#[tokio::test]
async fn each_fault_leaves_the_ledger_as_it_says() {
    let b = bank().await;
    case(&b)
        .each_fault_leaves_the_ledger_as_it_says("AK1")
        .await;
}

#[tokio::test]
async fn a_late_booking_hides_the_order_from_the_first_query_only() {
    let b = bank().await;
    case(&b)
        .a_late_booking_hides_the_order_from_the_first_query_only("AK2")
        .await;
}

/// The reversal of the capture goes through, the hold's is lost: unknown, naming the hold.
#[tokio::test]
async fn a_half_done_cancel_is_unknown_and_visible() {
    let b = bank().await;
    case(&b)
        .a_half_done_cancel_is_unknown_and_visible("AK3", "hold")
        .await;
}

#[tokio::test]
async fn timeouts_and_unreadable_history() {
    let b = bank().await;
    case(&b).a_late_answer_is_unknown("AK4", TIMEOUT).await;
    assert!(!b.provider.query(&b.account, "AK4").await.is_conclusive());
    // A cancel whose history read fails sends nothing.
    b.faults(Faults {
        technical_errors: 1,
        ..Faults::default()
    });
    let out = b.provider.cancel(&b.account, &op("AK4", 5_000, true)).await;
    assert!(
        matches!(&out, BankOutcome::Unknown { reason } if reason.contains("nothing was sent")),
        "{out:?}"
    );
    let st = b.provider.query(&b.account, "AK4").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 5_000));
}

#[tokio::test]
async fn queries_are_never_faulted() {
    let b = bank().await;
    case(&b).queries_are_never_faulted("AK5").await;
}
