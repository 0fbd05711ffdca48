//! The kit's fault plan on the PosNet V1 simulator: time-outs before/after applying, dropped
//! connections, technical errors (`0400`) and late bookings are unknown outcomes; the
//! inquiry-based query settles them. The read before each money request is never faulted.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{bank, op, Bank, TERMINAL};
use paygate_bankkit::sim::testing::{FaultPlanCase, LateBooking, TechnicalError};
use paygate_bankkit::sim::Fault;
use paygate_domain::{ports::PosProvider, ports::TestOrderState, BankOutcome, BankState};

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
    b.order("AF3", 4_000, TestOrderState::Preauth, false).await;
    assert!(matches!(
        b.provider
            .capture(&b.account, &op("AF3", 4_000, true))
            .await,
        BankOutcome::Approved { .. }
    ));
    b.state
        .fault_plan()
        .script([Fault::Pass, Fault::DropBefore]);
    let out = b.provider.cancel(&b.account, &op("AF3", 4_000, true)).await;
    assert!(
        matches!(&out, BankOutcome::Unknown { reason } if reason.contains("pre-authorization")),
        "{out:?}"
    );
    assert_eq!(
        b.provider.query(&b.account, "AF3").await.state,
        BankState::Preauth
    );
    assert!(matches!(
        b.provider.cancel(&b.account, &op("AF3", 4_000, true)).await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(
        b.provider.query(&b.account, "AF3").await.state,
        BankState::Cancelled
    );
    assert_eq!(b.kinds("AF3"), ["preauth", "postauth", "void", "void"]);
}

/// A reverse applied but answered late: unknown; the repeat reads the order and sends
/// nothing (already reversed).
#[tokio::test]
async fn a_lost_reverse_is_settled_by_reading_never_sent_twice() {
    let b = bank().await;
    b.state.fault_plan().set_hang(Duration::from_secs(2));
    b.order("AF4", 4_000, TestOrderState::Approved, false).await;
    b.state.fault_plan().script([Fault::TimeoutAfter]);
    assert!(matches!(
        b.provider.cancel(&b.account, &op("AF4", 4_000, true)).await,
        BankOutcome::Unknown { .. }
    ));
    assert_eq!(
        b.provider.query(&b.account, "AF4").await.state,
        BankState::Cancelled
    );
    assert!(matches!(
        b.provider.cancel(&b.account, &op("AF4", 4_000, true)).await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(b.kinds("AF4"), ["sale", "void"]);
}

#[tokio::test]
async fn queries_are_never_faulted() {
    let b = bank().await;
    case(&b).queries_are_never_faulted("AF5").await;
}
