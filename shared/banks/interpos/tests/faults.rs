//! Adapter ↔ simulator over real HTTP under the simulator's fault counters: technical
//! errors, time-outs, dropped connections.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{bank, op, TIMEOUT};
use paygate_bankkit::sim::Faults;
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    BankOutcome, BankState,
};

/// `91` "Sistem hatasi" does not say the bank did nothing: unknown, and the query shows
/// nothing moved.
#[tokio::test]
async fn technical_error_is_unknown_and_the_query_shows_nothing_moved() {
    let b = bank().await;
    b.order("IP-TE", 5_000, TestOrderState::Preauth, false)
        .await;
    b.faults(Faults {
        technical_errors: 1,
        ..Faults::default()
    });
    assert!(matches!(
        b.provider.capture(&b.account, &op("IP-TE", 5_000, true)).await,
        BankOutcome::Unknown { reason } if reason.contains("B910001")
    ));
    assert_eq!(
        b.provider.query(&b.account, "IP-TE").await.state,
        BankState::Preauth
    );
}

#[tokio::test]
async fn timeout_is_unknown_and_query_shows_it_applied() {
    let b = bank().await;
    b.order("IP-TO", 5_000, TestOrderState::Preauth, false)
        .await;
    b.faults(Faults {
        latency: TIMEOUT + Duration::from_millis(600),
        ..Faults::default()
    });
    assert!(matches!(
        b.provider
            .capture(&b.account, &op("IP-TO", 5_000, true))
            .await,
        BankOutcome::Unknown { .. }
    ));
    // The query under the same latency cannot be performed either …
    assert!(!b.provider.query(&b.account, "IP-TO").await.is_conclusive());
    // … and once the bank answers in time it shows the capture applied.
    b.faults(Faults::default());
    let st = b.provider.query(&b.account, "IP-TO").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 5_000));
}

#[tokio::test]
async fn dropped_connections_are_unknown() {
    let b = bank().await;
    b.order("IP-D1", 8_000, TestOrderState::Approved, true)
        .await;
    b.faults(Faults {
        drop_after_processing: 1,
        ..Faults::default()
    });
    assert!(matches!(
        b.provider
            .refund(&b.account, &op("IP-D1", 3_000, false))
            .await,
        BankOutcome::Unknown { .. }
    ));
    let st = b.provider.query(&b.account, "IP-D1").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::PartiallyRefunded, 3_000)
    );
    b.order("IP-D2", 8_000, TestOrderState::Approved, false)
        .await;
    b.faults(Faults {
        drop_before_processing: 1,
        ..Faults::default()
    });
    assert!(matches!(
        b.provider
            .cancel(&b.account, &op("IP-D2", 8_000, true))
            .await,
        BankOutcome::Unknown { .. }
    ));
    assert_eq!(
        b.provider.query(&b.account, "IP-D2").await.state,
        BankState::Approved
    );
}

#[tokio::test]
async fn missing_credentials_never_reach_the_bank() {
    let b = bank().await;
    let nothing = common::account("acc_unknown");
    assert!(matches!(
        b.provider.refund(&nothing, &op("X", 1, true)).await,
        BankOutcome::Error { code, .. } if code == "config"
    ));
}
