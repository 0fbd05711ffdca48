//! The kit's money-request fault plan on the Kuveyt Türk simulator: each fault does what it
//! says to the bank's ledger, the adapter reports the outcome it may claim, and a query
//! settles it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, op, Bank, MERCHANT_ID};
use paygate_bankkit::sim::testing::{FaultPlanCase, LateBooking, TechnicalError};
use paygate_bankkit::sim::Fault;
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    BankOutcome, BankState,
};

/// A technical error is unknown; a partial refund meets a late booking (the cancel's is below).
fn case(b: &Bank) -> FaultPlanCase<'_> {
    b.fault_plan(
        MERCHANT_ID,
        TechnicalError::Unknown(""),
        LateBooking::Refund(2_000),
    )
}

#[tokio::test]
async fn each_fault_leaves_the_ledger_as_it_says() {
    let b = bank().await;
    case(&b)
        .each_fault_leaves_the_ledger_as_it_says("KP1")
        .await;
}

/// A late-booked reversal hides the order from the next read: the query says "no record"
/// (conclusive, for the gateway's grace to weigh), and a cancel meeting that read sends
/// nothing and stays unknown — never "nothing moved". The read after shows it reversed.
#[tokio::test]
async fn a_late_booking_is_never_read_as_nothing_moved() {
    let b = bank().await;
    b.order("KP2", 5_000, TestOrderState::Approved, false).await;
    b.state.fault_plan().script([Fault::LateBooking]);
    let cancel = op("KP2", 5_000, true);
    let first = b.provider.cancel(&b.account, &cancel).await;
    assert!(matches!(first, BankOutcome::Unknown { .. }), "{first:?}");
    let resumed = b.provider.cancel(&b.account, &cancel).await;
    assert!(
        matches!(resumed, BankOutcome::Unknown { .. }),
        "{resumed:?}"
    );
    assert_eq!(b.voids("KP2"), 1);
    let st = b.provider.query(&b.account, "KP2").await;
    assert_eq!(st.state, BankState::Cancelled);
    assert!(matches!(
        b.provider.cancel(&b.account, &cancel).await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(b.voids("KP2"), 1);

    assert_eq!(b.state.fault_plan().counts().hidden_answers, 1);
    // A late-booked partial refund: the shared case (hidden once more, shown refunded).
    case(&b)
        .a_late_booking_hides_the_order_from_the_first_query_only("KP3")
        .await;
}

#[tokio::test]
async fn reads_are_never_faulted() {
    let b = bank().await;
    case(&b).queries_are_never_faulted("KP4").await;
}
