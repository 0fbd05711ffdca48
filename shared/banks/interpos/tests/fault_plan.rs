//! The kit's money-request fault plan on the InterVPOS simulator: each fault does what it says
//! to the bank's ledger, and the adapter reports the outcome it may claim.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{bank, op, SHOP};
use paygate_bankkit::sim::{Fault, FaultOdds};
use paygate_domain::{ports::PosProvider, ports::TestOrderState, BankOutcome, BankState};

#[tokio::test]
async fn each_fault_leaves_the_ledger_as_it_says() {
    let b = bank().await;
    b.state.fault_plan().set_hang(Duration::from_secs(2));
    b.order("IP1", 10_000, TestOrderState::Approved, true).await;
    let refunded = || b.state.ledger_of(SHOP, "IP1").unwrap().refunded;
    b.state.fault_plan().script([
        Fault::TechnicalError,
        Fault::DropBefore,
        Fault::TimeoutBefore,
        Fault::TimeoutAfter,
        Fault::DropAfter,
    ]);
    let one = op("IP1", 1_000, false);
    let refund = || b.provider.refund(&b.account, &one);
    // `91` "Sistem hatasi": the bank may have acted (it did not, here): unknown.
    assert!(
        matches!(refund().await, BankOutcome::Unknown { reason } if reason.contains("B910001"))
    );
    assert_eq!(refunded(), 0);
    assert!(matches!(refund().await, BankOutcome::Unknown { .. }));
    assert_eq!(refunded(), 0, "dropped before applying");
    assert!(matches!(refund().await, BankOutcome::Unknown { .. }));
    assert_eq!(refunded(), 0, "timed out before applying");
    assert!(matches!(refund().await, BankOutcome::Unknown { .. }));
    assert_eq!(refunded(), 1_000, "timed out after applying");
    assert!(matches!(refund().await, BankOutcome::Unknown { .. }));
    assert_eq!(refunded(), 2_000, "dropped after applying");
    assert!(matches!(refund().await, BankOutcome::Approved { .. }));
    let c = b.state.fault_plan().counts();
    assert_eq!((c.money_requests, c.total()), (6, 5));
    let st = b.provider.query(&b.account, "IP1").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::PartiallyRefunded, 3_000)
    );
}

#[tokio::test]
async fn a_late_booking_hides_the_order_from_the_first_query_only() {
    let b = bank().await;
    b.order("IP2", 5_000, TestOrderState::Preauth, false).await;
    b.state.fault_plan().script([Fault::LateBooking]);
    assert!(matches!(
        b.provider
            .capture(&b.account, &op("IP2", 5_000, true))
            .await,
        BankOutcome::Unknown { .. }
    ));
    let first = b.provider.query(&b.account, "IP2").await;
    assert!(!first.found && first.is_conclusive());
    let second = b.provider.query(&b.account, "IP2").await;
    assert_eq!((second.state, second.amount), (BankState::Approved, 5_000));
    assert_eq!(b.state.fault_plan().counts().hidden_answers, 1);
}

#[tokio::test]
async fn queries_are_never_faulted() {
    let b = bank().await;
    b.order("IP3", 5_000, TestOrderState::Approved, false).await;
    b.state.fault_plan().random(11, FaultOdds::uniform(160));
    for _ in 0..10 {
        assert!(b.provider.query(&b.account, "IP3").await.is_conclusive());
    }
    assert_eq!(b.state.fault_plan().counts().money_requests, 0);
}
