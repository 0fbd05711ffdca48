//! The kit's fault plan on the PosNet V1 simulator: time-outs before/after applying, dropped
//! connections, technical errors (`0400`) and late bookings are unknown outcomes; the
//! inquiry-based query settles them. The read before each money request is never faulted.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{bank, op, TERMINAL};
use paygate_bankkit::sim::{Fault, FaultOdds};
use paygate_domain::{ports::PosProvider, ports::TestOrderState, BankOutcome, BankState};

#[tokio::test]
async fn each_fault_leaves_the_ledger_as_it_says() {
    let b = bank().await;
    b.state.fault_plan().set_hang(Duration::from_secs(2));
    b.order("AF1", 10_000, TestOrderState::Approved, true).await;
    let refunded = || b.state.ledger_of(TERMINAL, "AF1").unwrap().refunded;
    b.state.fault_plan().script([
        Fault::TechnicalError,
        Fault::DropBefore,
        Fault::TimeoutBefore,
        Fault::TimeoutAfter,
        Fault::DropAfter,
    ]);
    let one = op("AF1", 1_000, false);
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
    let st = b.provider.query(&b.account, "AF1").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::PartiallyRefunded, 3_000)
    );
}

#[tokio::test]
async fn a_late_booking_hides_the_order_from_the_first_query_only() {
    let b = bank().await;
    b.order("AF2", 5_000, TestOrderState::Preauth, false).await;
    b.state.fault_plan().script([Fault::LateBooking]);
    assert!(matches!(
        b.provider
            .capture(&b.account, &op("AF2", 5_000, true))
            .await,
        BankOutcome::Unknown { .. }
    ));
    let first = b.provider.query(&b.account, "AF2").await;
    assert!(!first.found && first.is_conclusive());
    let second = b.provider.query(&b.account, "AF2").await;
    assert_eq!((second.state, second.amount), (BankState::Approved, 5_000));
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
    b.order("AF5", 5_000, TestOrderState::Approved, false).await;
    b.state.fault_plan().random(11, FaultOdds::uniform(160));
    for _ in 0..10 {
        assert!(b.provider.query(&b.account, "AF5").await.is_conclusive());
    }
    assert_eq!(b.state.fault_plan().counts().money_requests, 0);
}
