//! The kit's fault plan on the Tosla simulator: time-outs before/after applying, dropped
//! connections, technical errors (HTTP 503) and late bookings are unknown outcomes; the
//! inquiry-based query settles them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, Bank, CLIENT_ID, TIMEOUT};
use paygate_bankkit::sim::testing::{FaultPlanCase, LateBooking, TechnicalError};
use paygate_bankkit::sim::Faults;
use paygate_domain::{ports::PosProvider, BankState};

/// A technical error (HTTP 503) is unknown; the capture meets a late booking (the next inquiry does not see the order yet).
fn case(b: &Bank) -> FaultPlanCase<'_> {
    b.fault_plan(
        CLIENT_ID,
        TechnicalError::Unknown(""),
        LateBooking::Capture(5_000),
    )
}

#[tokio::test]
async fn each_fault_leaves_the_ledger_as_it_says() {
    let b = bank().await;
    case(&b)
        .each_fault_leaves_the_ledger_as_it_says("TF1")
        .await;
}

#[tokio::test]
async fn a_late_booking_hides_the_order_from_the_first_query_only() {
    let b = bank().await;
    case(&b)
        .a_late_booking_hides_the_order_from_the_first_query_only("TF2")
        .await;
}

/// A cancel whose answer is lost after the bank applied it is unknown; the query shows it
/// cancelled, and a cancel sent again is approved without a second void.
#[tokio::test]
async fn a_lost_cancel_is_unknown_then_settled() {
    let b = bank().await;
    case(&b)
        .a_lost_cancel_is_settled_by_reading("TF3", false)
        .await;
}

#[tokio::test]
async fn timeouts_and_unreadable_inquiries() {
    let b = bank().await;
    case(&b).a_late_answer_is_unknown("TF4", TIMEOUT).await;
    assert!(!b.provider.query(&b.account, "TF4").await.is_conclusive());
    b.faults(Faults {
        technical_errors: 1,
        ..Faults::default()
    });
    assert!(!b.provider.query(&b.account, "TF4").await.is_conclusive());
    let st = b.provider.query(&b.account, "TF4").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 5_000));
}

#[tokio::test]
async fn queries_are_never_faulted() {
    let b = bank().await;
    case(&b).queries_are_never_faulted("TF5").await;
}
