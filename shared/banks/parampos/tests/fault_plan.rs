//! The kit's money-request fault plan on the Param simulator: each fault does what it says
//! to the service's ledger, the adapter reports the outcome it may claim, and a query
//! settles it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{bank, op, CLIENT_CODE};
use paygate_bankkit::sim::{Fault, FaultOdds, Faults};
use paygate_domain::{ports::PosProvider, ports::TestOrderState, BankOutcome, BankState};

#[tokio::test]
async fn each_fault_leaves_the_ledger_as_it_says() {
    let b = bank().await;
    b.state.fault_plan().set_hang(Duration::from_secs(2));
    b.order("PP1", 10_000, TestOrderState::Approved, true).await;
    let refunded = || b.state.ledger_of(CLIENT_CODE, "PP1").unwrap().refunded;
    b.state.fault_plan().script([
        Fault::TechnicalError,
        Fault::DropBefore,
        Fault::TimeoutBefore,
        Fault::TimeoutAfter,
        Fault::DropAfter,
    ]);
    let one = op("PP1", 1_000, false);
    let refund = || b.provider.refund(&b.account, &one);
    for (applied, what) in [
        (0, "technical error (-207)"),
        (0, "dropped before applying"),
        (0, "timed out before applying"),
        (1_000, "timed out after applying"),
        (2_000, "dropped after applying"),
    ] {
        let out = refund().await;
        assert!(
            matches!(out, BankOutcome::Unknown { .. }),
            "{what}: {out:?}"
        );
        assert_eq!(refunded(), applied, "{what}");
    }
    assert!(matches!(refund().await, BankOutcome::Approved { .. }));
    let c = b.state.fault_plan().counts();
    assert_eq!((c.money_requests, c.total()), (6, 5));
    let st = b.provider.query(&b.account, "PP1").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::PartiallyRefunded, 3_000)
    );
}

#[tokio::test]
async fn a_late_booking_hides_the_order_from_the_first_query_only() {
    let b = bank().await;
    b.order("PP2", 5_000, TestOrderState::Preauth, false).await;
    b.state.fault_plan().script([Fault::LateBooking]);
    assert!(matches!(
        b.provider
            .capture(&b.account, &op("PP2", 5_000, true))
            .await,
        BankOutcome::Unknown { .. }
    ));
    let first = b.provider.query(&b.account, "PP2").await;
    assert!(!first.found && first.is_conclusive());
    let second = b.provider.query(&b.account, "PP2").await;
    assert_eq!((second.state, second.amount), (BankState::Approved, 5_000));
    assert_eq!(b.state.fault_plan().counts().hidden_answers, 1);
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
    b.order("PP4", 5_000, TestOrderState::Approved, false).await;
    b.state.fault_plan().random(11, FaultOdds::uniform(160));
    for _ in 0..10 {
        assert!(b.provider.query(&b.account, "PP4").await.is_conclusive());
    }
    assert_eq!(b.state.fault_plan().counts().money_requests, 0);
}
