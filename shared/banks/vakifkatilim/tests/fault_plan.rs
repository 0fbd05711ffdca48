//! The kit's fault plan on the Vakıf Katılım simulator: time-outs before/after applying,
//! dropped connections, technical errors (`SystemError`, unknown) and late bookings are
//! unknown outcomes, settled by the query; the reads (the order read before every money
//! request, the query) are never faulted.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, op, Bank, MERCHANT, TIMEOUT};
use paygate_bankkit::sim::testing::{FaultPlanCase, LateBooking, TechnicalError};
use paygate_domain::{ports::PosProvider, ports::TestOrderState, BankOutcome, BankState};

/// `SystemError` is unknown; a partial capture (3 000 of 5 000) meets a late booking ("no
/// record" is not "nothing moved": the kit's callers keep the capture unknown).
fn case(b: &Bank) -> FaultPlanCase<'_> {
    b.fault_plan(
        MERCHANT,
        TechnicalError::Unknown(""),
        LateBooking::Capture(3_000),
    )
}

#[tokio::test]
async fn each_fault_leaves_the_ledger_as_it_says() {
    let b = bank().await;
    case(&b)
        .each_fault_leaves_the_ledger_as_it_says("VK1")
        .await;
}

#[tokio::test]
async fn a_late_booking_hides_the_order_from_the_first_query_only() {
    let b = bank().await;
    case(&b)
        .a_late_booking_hides_the_order_from_the_first_query_only("VK2")
        .await;
}

/// A cancel of a captured pre-authorization lost after the bank applied it: a retried cancel
/// sees it cancelled and sends nothing.
#[tokio::test]
async fn a_cancel_lost_after_the_bank_applied_it_is_settled_by_the_query() {
    let b = bank().await;
    case(&b)
        .a_lost_cancel_is_settled_by_reading("VK3", true)
        .await;
}

#[tokio::test]
async fn latency_makes_a_close_unknown_and_the_query_settles_it() {
    let b = bank().await;
    // Every money answer late (the reads are not delayed): the close is applied, unknown.
    case(&b).a_late_answer_is_unknown("VK4", TIMEOUT).await;
    let st = b.provider.query(&b.account, "VK4").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 5_000));
}

#[tokio::test]
async fn an_unreadable_order_sends_nothing() {
    let b = bank().await;
    b.order("VK6", 5_000, TestOrderState::Preauth, false).await;
    // No bank at the endpoint: the read before the close fails, nothing is sent.
    let gone = b.other_account(
        "acc_gone",
        common::secret(
            "http://127.0.0.1:9/VirtualPOS.Gateway/Home",
            common::PASSWORD,
        ),
    );
    let out = b.provider.capture(&gone, &op("VK6", 5_000, true)).await;
    assert!(
        matches!(&out, BankOutcome::Error { message, .. } if message.contains("nothing was sent")),
        "{out:?}"
    );
    assert!(!b.provider.query(&gone, "VK6").await.is_conclusive());
    assert_eq!(
        b.provider.query(&b.account, "VK6").await.state,
        BankState::Preauth
    );
}

#[tokio::test]
async fn queries_are_never_faulted() {
    let b = bank().await;
    case(&b).queries_are_never_faulted("VK5").await;
}
