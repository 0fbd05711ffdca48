//! The kit's money-request fault plan on the Kuveyt Türk simulator: each fault does what it
//! says to the bank's ledger, the adapter reports the outcome it may claim, and a query
//! settles it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{bank, op};
use paygate_bankkit::sim::{Fault, FaultOdds};
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    BankOutcome, BankState,
};

#[tokio::test]
async fn each_fault_leaves_the_ledger_as_it_says() {
    let b = bank().await;
    b.state.fault_plan().set_hang(Duration::from_secs(2));
    b.order("KP1", 10_000, TestOrderState::Approved, true).await;
    b.state.fault_plan().script([
        Fault::TechnicalError,
        Fault::DropBefore,
        Fault::TimeoutBefore,
        Fault::TimeoutAfter,
        Fault::DropAfter,
    ]);
    let one = op("KP1", 1_000, false);
    for (applied, what) in [
        (0, "technical error"),
        (0, "dropped before applying"),
        (0, "timed out before applying"),
        (1_000, "timed out after applying"),
        (2_000, "dropped after applying"),
    ] {
        let out = b.provider.refund(&b.account, &one).await;
        assert!(
            matches!(out, BankOutcome::Unknown { .. }),
            "{what}: {out:?}"
        );
        assert_eq!(b.refunded("KP1"), applied, "{what}");
    }
    assert!(matches!(
        b.provider.refund(&b.account, &one).await,
        BankOutcome::Approved { .. }
    ));
    // Six money requests met the plan; the six order reads before them did not.
    let c = b.state.fault_plan().counts();
    assert_eq!((c.money_requests, c.total()), (6, 5));
    let st = b.provider.query(&b.account, "KP1").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::PartiallyRefunded, 3_000)
    );
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

    b.order("KP3", 5_000, TestOrderState::Approved, true).await;
    b.state.fault_plan().script([Fault::LateBooking]);
    let r = b
        .provider
        .refund(&b.account, &op("KP3", 2_000, false))
        .await;
    assert!(matches!(r, BankOutcome::Unknown { .. }), "{r:?}");
    let hidden = b.provider.query(&b.account, "KP3").await;
    assert!(!hidden.found && hidden.is_conclusive(), "{hidden:?}");
    let shown = b.provider.query(&b.account, "KP3").await;
    assert_eq!(
        (shown.state, shown.refunded_amount),
        (BankState::PartiallyRefunded, 2_000)
    );
    assert_eq!(b.state.fault_plan().counts().hidden_answers, 2);
}

#[tokio::test]
async fn reads_are_never_faulted() {
    let b = bank().await;
    b.order("KP4", 5_000, TestOrderState::Approved, false).await;
    b.state.fault_plan().random(11, FaultOdds::uniform(160));
    for _ in 0..10 {
        assert!(b.provider.query(&b.account, "KP4").await.is_conclusive());
    }
    assert_eq!(b.state.fault_plan().counts().money_requests, 0);
}
