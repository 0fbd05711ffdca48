//! The kit's money-request fault plan on the PayFlex simulator: each fault does what it says
//! to the bank's ledger, and the adapter reports the outcome it may claim.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, Bank, MERCHANT_ID};
use paygate_bankkit::sim::testing::{FaultPlanCase, LateBooking, TechnicalError};

/// `9998`: the bank may have acted (it did not, here): unknown, never an error; the capture meets a late booking.
fn case(b: &Bank) -> FaultPlanCase<'_> {
    b.fault_plan(
        MERCHANT_ID,
        TechnicalError::Unknown("9998"),
        LateBooking::Capture(5_000),
    )
}

#[tokio::test]
async fn each_fault_leaves_the_ledger_as_it_says() {
    let b = bank().await;
    case(&b)
        .each_fault_leaves_the_ledger_as_it_says("PF1")
        .await;
}

#[tokio::test]
async fn a_late_booking_hides_the_order_from_the_first_search_only() {
    let b = bank().await;
    case(&b)
        .a_late_booking_hides_the_order_from_the_first_query_only("PF2")
        .await;
}

#[tokio::test]
async fn searches_are_never_faulted() {
    let b = bank().await;
    case(&b).queries_are_never_faulted("PF3").await;
}
