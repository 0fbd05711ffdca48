//! The kit's money-request fault plan on the PayFor simulator: each fault does what it says
//! to the bank's ledger, the adapter reports the outcome it may claim, and a query settles it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, bank_with, op, Bank, MERCHANT_ID};
use paygate_bankkit::sim::testing::{FaultPlanCase, LateBooking, TechnicalError};
use paygate_domain::{ports::PosProvider, BankOutcome};

/// A technical error is unknown; the capture meets a late booking.
fn case(b: &Bank) -> FaultPlanCase<'_> {
    b.fault_plan(
        MERCHANT_ID,
        TechnicalError::Unknown(""),
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
async fn a_late_booking_hides_the_order_from_the_first_query_only() {
    let b = bank().await;
    case(&b)
        .a_late_booking_hides_the_order_from_the_first_query_only("PF2")
        .await;
}

/// The second void of a captured pre-authorization fails: the capture was reversed, so the
/// outcome is unknown (never an error, never "approved"), and the query shows the hold still
/// open — also on a bank whose inquiry then shows the voided `PostAuth` as the order's main
/// transaction (a voided capture is not a cancelled order). A later cancel finishes the job
/// with one void; once all is voided a cancel sends nothing.
#[tokio::test]
async fn a_half_done_cancel_is_unknown_and_visible() {
    for latest in [false, true] {
        let b = bank_with(|c| if latest { c.inquiring_latest() } else { c }).await;
        let case = case(&b);
        case.a_half_done_cancel_is_unknown_and_visible("PF3", "hold")
            .await;
        assert_eq!(case.voids("PF3"), 2, "latest {latest}");
        assert!(matches!(
            b.provider.cancel(&b.account, &op("PF3", 4_000, true)).await,
            BankOutcome::Approved { .. }
        ));
        assert_eq!(
            case.voids("PF3"),
            2,
            "latest {latest}: no void once all is voided"
        );
    }
}

#[tokio::test]
async fn queries_are_never_faulted() {
    let b = bank().await;
    case(&b).queries_are_never_faulted("PF4").await;
}
