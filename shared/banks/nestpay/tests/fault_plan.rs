//! The kit's money-request fault plan on the Nestpay simulator: each fault does what it says
//! to the bank's ledger, and the adapter reports the outcome it may claim (the kit's shared
//! fault-plan case, with Nestpay's differences).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, Bank, CLIENT_ID};
use paygate_bankkit::sim::testing::{FaultPlanCase, LateBooking, TechnicalError};

/// `CORE-1001` is an error the bank answers without acting; the capture meets a late booking.
fn case(b: &Bank) -> FaultPlanCase<'_> {
    b.fault_plan(
        CLIENT_ID,
        TechnicalError::Failed("CORE-1001"),
        LateBooking::Capture(5_000),
    )
}

#[tokio::test]
async fn each_fault_leaves_the_ledger_as_it_says() {
    let b = bank().await;
    case(&b)
        .each_fault_leaves_the_ledger_as_it_says("NP1")
        .await;
}

#[tokio::test]
async fn a_late_booking_hides_the_order_from_the_first_query_only() {
    let b = bank().await;
    case(&b)
        .a_late_booking_hides_the_order_from_the_first_query_only("NP2")
        .await;
}

#[tokio::test]
async fn queries_are_never_faulted() {
    let b = bank().await;
    case(&b).queries_are_never_faulted("NP3").await;
}
