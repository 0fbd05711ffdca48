//! The kit's fault plan on the Tosla simulator: time-outs before/after applying, dropped
//! connections, technical errors (HTTP 503) and late bookings are unknown outcomes; the
//! inquiry-based query settles them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{bank, op, CLIENT_ID, TIMEOUT};
use paygate_bankkit::sim::{Fault, FaultOdds, Faults};
use paygate_domain::{ports::PosProvider, ports::TestOrderState, BankOutcome, BankState};

#[tokio::test]
async fn each_fault_leaves_the_ledger_as_it_says() {
    let b = bank().await;
    b.state.fault_plan().set_hang(Duration::from_secs(2));
    b.order("TF1", 10_000, TestOrderState::Approved, true).await;
    let refunded = || b.state.ledger_of(CLIENT_ID, "TF1").unwrap().refunded;
    b.state.fault_plan().script([
        Fault::TechnicalError,
        Fault::DropBefore,
        Fault::TimeoutBefore,
        Fault::TimeoutAfter,
        Fault::DropAfter,
    ]);
    let one = op("TF1", 1_000, false);
    for (applied, what) in [
        (0, "technical"),
        (0, "drop before"),
        (0, "timeout before"),
        (1_000, "timeout after"),
        (2_000, "drop after"),
    ] {
        let out = b.provider.refund(&b.account, &one).await;
        assert!(
            matches!(out, BankOutcome::Unknown { .. }),
            "{what}: {out:?}"
        );
        assert_eq!(refunded(), applied, "{what}");
    }
    assert!(matches!(
        b.provider.refund(&b.account, &one).await,
        BankOutcome::Approved { .. }
    ));
    let st = b.provider.query(&b.account, "TF1").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::PartiallyRefunded, 3_000)
    );
}

/// A late booking: the capture's answer is lost and the next inquiry does not see the order
/// yet ("not found"); the one after shows the capture.
#[tokio::test]
async fn a_late_booking_hides_the_order_from_the_first_query_only() {
    let b = bank().await;
    b.order("TF2", 5_000, TestOrderState::Preauth, false).await;
    b.state.fault_plan().script([Fault::LateBooking]);
    assert!(matches!(
        b.provider
            .capture(&b.account, &op("TF2", 5_000, true))
            .await,
        BankOutcome::Unknown { .. }
    ));
    let first = b.provider.query(&b.account, "TF2").await;
    assert!(!first.found && first.is_conclusive());
    let second = b.provider.query(&b.account, "TF2").await;
    assert_eq!((second.state, second.amount), (BankState::Approved, 5_000));
}

/// A cancel whose answer is lost after the bank applied it is unknown; the query shows it
/// cancelled, and a cancel sent again is approved without a second void.
#[tokio::test]
async fn a_lost_cancel_is_unknown_then_settled() {
    let b = bank().await;
    b.state.fault_plan().set_hang(Duration::from_secs(2));
    b.order("TF3", 4_000, TestOrderState::Approved, false).await;
    b.state.fault_plan().script([Fault::TimeoutAfter]);
    assert!(matches!(
        b.provider.cancel(&b.account, &op("TF3", 4_000, true)).await,
        BankOutcome::Unknown { .. }
    ));
    assert_eq!(
        b.provider.query(&b.account, "TF3").await.state,
        BankState::Cancelled
    );
    assert!(matches!(
        b.provider.cancel(&b.account, &op("TF3", 4_000, true)).await,
        BankOutcome::Approved { .. }
    ));
    let voids = b
        .state
        .book()
        .get(CLIENT_ID, "TF3")
        .unwrap()
        .history
        .iter()
        .filter(|t| t.kind == "void")
        .count();
    assert_eq!(voids, 1);
}

#[tokio::test]
async fn timeouts_and_unreadable_inquiries() {
    let b = bank().await;
    b.order("TF4", 5_000, TestOrderState::Preauth, false).await;
    b.faults(Faults {
        latency: TIMEOUT + Duration::from_millis(600),
        ..Faults::default()
    });
    assert!(matches!(
        b.provider
            .capture(&b.account, &op("TF4", 5_000, true))
            .await,
        BankOutcome::Unknown { .. }
    ));
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
    b.order("TF5", 5_000, TestOrderState::Approved, false).await;
    b.state.fault_plan().random(11, FaultOdds::uniform(160));
    for _ in 0..10 {
        assert!(b.provider.query(&b.account, "TF5").await.is_conclusive());
    }
    assert_eq!(b.state.fault_plan().counts().money_requests, 0);
}
