//! The kit's money-request fault plan on the PayFor simulator: each fault does what it says
//! to the bank's ledger, the adapter reports the outcome it may claim, and a query settles it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{bank, bank_with, op, MERCHANT_ID};
use paygate_bankkit::sim::{Fault, FaultOdds};
use paygate_domain::{ports::PosProvider, ports::TestOrderState, BankOutcome, BankState};

#[tokio::test]
async fn each_fault_leaves_the_ledger_as_it_says() {
    let b = bank().await;
    b.state.fault_plan().set_hang(Duration::from_secs(2));
    b.order("PF1", 10_000, TestOrderState::Approved, true).await;
    let refunded = || b.state.ledger_of(MERCHANT_ID, "PF1").unwrap().refunded;
    b.state.fault_plan().script([
        Fault::TechnicalError,
        Fault::DropBefore,
        Fault::TimeoutBefore,
        Fault::TimeoutAfter,
        Fault::DropAfter,
    ]);
    let one = op("PF1", 1_000, false);
    let refund = || b.provider.refund(&b.account, &one);
    for (applied, what) in [
        (0, "technical error"),
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
    let st = b.provider.query(&b.account, "PF1").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::PartiallyRefunded, 3_000)
    );
}

#[tokio::test]
async fn a_late_booking_hides_the_order_from_the_first_query_only() {
    let b = bank().await;
    b.order("PF2", 5_000, TestOrderState::Preauth, false).await;
    b.state.fault_plan().script([Fault::LateBooking]);
    assert!(matches!(
        b.provider
            .capture(&b.account, &op("PF2", 5_000, true))
            .await,
        BankOutcome::Unknown { .. }
    ));
    let first = b.provider.query(&b.account, "PF2").await;
    assert!(!first.found && first.is_conclusive());
    let second = b.provider.query(&b.account, "PF2").await;
    assert_eq!((second.state, second.amount), (BankState::Approved, 5_000));
    assert_eq!(b.state.fault_plan().counts().hidden_answers, 1);
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
        b.order("PF3", 4_000, TestOrderState::Preauth, false).await;
        assert!(matches!(
            b.provider
                .capture(&b.account, &op("PF3", 4_000, true))
                .await,
            BankOutcome::Approved { .. }
        ));
        b.state
            .fault_plan()
            .script([Fault::Pass, Fault::DropBefore]);
        let out = b.provider.cancel(&b.account, &op("PF3", 4_000, true)).await;
        assert!(
            matches!(&out, BankOutcome::Unknown { reason } if reason.contains("hold")),
            "latest {latest}: {out:?}"
        );
        let st = b.provider.query(&b.account, "PF3").await;
        assert_eq!(
            (st.state, st.amount),
            (BankState::Preauth, 4_000),
            "latest {latest}"
        );
        let voids = || {
            let ledger = b.state.ledger_of(MERCHANT_ID, "PF3").unwrap();
            ledger
                .operations
                .iter()
                .filter(|t| t.kind == "void")
                .count()
        };
        for _ in 0..2 {
            assert!(matches!(
                b.provider.cancel(&b.account, &op("PF3", 4_000, true)).await,
                BankOutcome::Approved { .. }
            ));
            assert_eq!(voids(), 2, "latest {latest}: one more void, then none");
        }
        assert_eq!(
            b.provider.query(&b.account, "PF3").await.state,
            BankState::Cancelled
        );
    }
}

#[tokio::test]
async fn queries_are_never_faulted() {
    let b = bank().await;
    b.order("PF4", 5_000, TestOrderState::Approved, false).await;
    b.state.fault_plan().random(11, FaultOdds::uniform(160));
    for _ in 0..10 {
        assert!(b.provider.query(&b.account, "PF4").await.is_conclusive());
    }
    assert_eq!(b.state.fault_plan().counts().money_requests, 0);
}
