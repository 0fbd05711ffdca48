//! The kit's money-request fault plan on the Param simulator: each fault does what it says
//! to the service's ledger, the adapter reports the outcome it may claim, and a query
//! settles it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, op, Bank, CLIENT_CODE};
use paygate_bankkit::sim::testing::{FaultPlanCase, LateBooking, TechnicalError};
use paygate_bankkit::sim::{Fault, Faults};
use paygate_domain::{ports::PosProvider, ports::TestOrderState, BankOutcome, BankState};

/// A technical error (`-207`) is unknown; the capture meets a late booking.
fn case(b: &Bank) -> FaultPlanCase<'_> {
    b.fault_plan(
        CLIENT_CODE,
        TechnicalError::Unknown(""),
        LateBooking::Capture(5_000),
    )
}

#[tokio::test]
async fn each_fault_leaves_the_ledger_as_it_says() {
    let b = bank().await;
    case(&b)
        .each_fault_leaves_the_ledger_as_it_says("PP1")
        .await;
}

#[tokio::test]
async fn a_late_booking_hides_the_order_from_the_first_query_only() {
    let b = bank().await;
    case(&b)
        .a_late_booking_hides_the_order_from_the_first_query_only("PP2")
        .await;
}

/// A cancel reads first: while the order is hidden (booking late) or the read fails, nothing
/// is sent and the outcome is unknown; a lost `IPTAL` answer is unknown and a query settles
/// it.
#[tokio::test]
async fn a_cancel_never_guesses() {
    let b = bank().await;
    b.order("PP3", 4_000, TestOrderState::Approved, false).await;
    b.state.fault_plan().hide_once(CLIENT_CODE, "PP3");
    assert!(matches!(
        b.provider.cancel(&b.account, &op("PP3", 4_000, true)).await,
        BankOutcome::Unknown { .. }
    ));
    b.faults(Faults {
        technical_errors: 1,
        ..Faults::default()
    });
    assert!(matches!(
        b.provider.cancel(&b.account, &op("PP3", 4_000, true)).await,
        BankOutcome::Unknown { .. }
    ));
    assert_eq!(
        b.state
            .ledger_of(CLIENT_CODE, "PP3")
            .unwrap()
            .operations
            .len(),
        1
    );
    b.state.fault_plan().script([Fault::DropAfter]);
    assert!(matches!(
        b.provider.cancel(&b.account, &op("PP3", 4_000, true)).await,
        BankOutcome::Unknown { .. }
    ));
    assert_eq!(
        b.provider.query(&b.account, "PP3").await.state,
        BankState::Cancelled
    );
}

#[tokio::test]
async fn queries_are_never_faulted() {
    let b = bank().await;
    case(&b).queries_are_never_faulted("PP4").await;
}
