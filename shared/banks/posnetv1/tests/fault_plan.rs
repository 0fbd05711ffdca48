//! The kit's fault plan on the PosNet V1 simulator: time-outs before/after applying, dropped
//! connections, technical errors (`0400`) and late bookings are unknown outcomes; the
//! inquiry-based query settles them. The read before each money request is never faulted.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, Bank, TERMINAL};
use paygate_bankkit::sim::testing::{FaultPlanCase, LateBooking, TechnicalError};

/// A technical error (`0400`) is unknown; the capture meets a late booking.
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
        .each_fault_leaves_the_ledger_as_it_says("AF1")
        .await;
}

#[tokio::test]
async fn a_late_booking_hides_the_order_from_the_first_query_only() {
    let b = bank().await;
    case(&b)
        .a_late_booking_hides_the_order_from_the_first_query_only("AF2")
        .await;
}

/// The capture's reverse goes through, the authorization's is lost: unknown (never an
/// error: money moved), the query shows the open authorization, and a repeated cancel sends
/// only its reverse.
#[tokio::test]
async fn a_half_done_cancel_is_unknown_and_completed_by_a_repeat() {
    let b = bank().await;
    case(&b)
        .a_half_done_cancel_is_unknown_and_visible("AF3", "pre-authorization")
        .await;
    assert_eq!(b.kinds("AF3"), ["preauth", "postauth", "void", "void"]);
}

/// A reverse applied but answered late: unknown; the repeat reads the order and sends
/// nothing (already reversed).
#[tokio::test]
async fn a_lost_reverse_is_settled_by_reading_never_sent_twice() {
    let b = bank().await;
    case(&b)
        .a_lost_cancel_is_settled_by_reading("AF4", false)
        .await;
    assert_eq!(b.kinds("AF4"), ["sale", "void"]);
}

#[tokio::test]
async fn queries_are_never_faulted() {
    let b = bank().await;
    case(&b).queries_are_never_faulted("AF5").await;
}
