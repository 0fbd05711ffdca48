//! The kit's fault plan on the Akbank simulator: time-outs before/after applying, dropped
//! connections, technical errors (HTTP 503) and late bookings are unknown outcomes; the
//! history-based query settles them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{bank, op, TERMINAL, TIMEOUT};
use paygate_bankkit::sim::{Fault, FaultOdds, Faults};
use paygate_domain::{ports::PosProvider, ports::TestOrderState, BankOutcome, BankState};

#[tokio::test]
async fn each_fault_leaves_the_ledger_as_it_says() {
    let b = bank().await;
    b.state.fault_plan().set_hang(Duration::from_secs(2));
    b.order("AK1", 10_000, TestOrderState::Approved, true).await;
    let refunded = || b.state.ledger_of(TERMINAL, "AK1").unwrap().refunded;
    b.state.fault_plan().script([
        Fault::TechnicalError,
        Fault::DropBefore,
        Fault::TimeoutBefore,
        Fault::TimeoutAfter,
        Fault::DropAfter,
    ]);
    let one = op("AK1", 1_000, false);
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
    let st = b.provider.query(&b.account, "AK1").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::PartiallyRefunded, 3_000)
    );
}

#[tokio::test]
async fn a_late_booking_hides_the_order_from_the_first_query_only() {
    let b = bank().await;
    b.order("AK2", 5_000, TestOrderState::Preauth, false).await;
    b.state.fault_plan().script([Fault::LateBooking]);
    assert!(matches!(
        b.provider
            .capture(&b.account, &op("AK2", 5_000, true))
            .await,
        BankOutcome::Unknown { .. }
    ));
    let first = b.provider.query(&b.account, "AK2").await;
    assert!(!first.found && first.is_conclusive());
    let second = b.provider.query(&b.account, "AK2").await;
    assert_eq!((second.state, second.amount), (BankState::Approved, 5_000));
}

#[tokio::test]
async fn a_half_done_cancel_is_unknown_and_visible() {
    let b = bank().await;
    b.order("AK3", 4_000, TestOrderState::Preauth, false).await;
    assert!(matches!(
        b.provider
            .capture(&b.account, &op("AK3", 4_000, true))
            .await,
        BankOutcome::Approved { .. }
    ));
    b.state
        .fault_plan()
        .script([Fault::Pass, Fault::DropBefore]);
    let out = b.provider.cancel(&b.account, &op("AK3", 4_000, true)).await;
    assert!(
        matches!(&out, BankOutcome::Unknown { reason } if reason.contains("hold")),
        "{out:?}"
    );
    assert_eq!(
        b.provider.query(&b.account, "AK3").await.state,
        BankState::Preauth
    );
    assert!(matches!(
        b.provider.cancel(&b.account, &op("AK3", 4_000, true)).await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(
        b.provider.query(&b.account, "AK3").await.state,
        BankState::Cancelled
    );
}

#[tokio::test]
async fn timeouts_and_unreadable_history() {
    let b = bank().await;
    b.order("AK4", 5_000, TestOrderState::Preauth, false).await;
    b.faults(Faults {
        latency: TIMEOUT + Duration::from_millis(600),
        ..Faults::default()
    });
    assert!(matches!(
        b.provider
            .capture(&b.account, &op("AK4", 5_000, true))
            .await,
        BankOutcome::Unknown { .. }
    ));
    assert!(!b.provider.query(&b.account, "AK4").await.is_conclusive());
    // A cancel whose history read fails sends nothing.
    b.faults(Faults {
        technical_errors: 1,
        ..Faults::default()
    });
    let out = b.provider.cancel(&b.account, &op("AK4", 5_000, true)).await;
    assert!(
        matches!(&out, BankOutcome::Unknown { reason } if reason.contains("nothing was sent")),
        "{out:?}"
    );
    let st = b.provider.query(&b.account, "AK4").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 5_000));
}

#[tokio::test]
async fn queries_are_never_faulted() {
    let b = bank().await;
    b.order("AK5", 5_000, TestOrderState::Approved, false).await;
    b.state.fault_plan().random(11, FaultOdds::uniform(160));
    for _ in 0..10 {
        assert!(b.provider.query(&b.account, "AK5").await.is_conclusive());
    }
    assert_eq!(b.state.fault_plan().counts().money_requests, 0);
}
