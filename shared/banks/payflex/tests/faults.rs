//! Adapter ↔ simulator over real HTTP under the simulator's fault counters (VPOS endpoint):
//! technical errors, time-outs, dropped connections, wrong credentials.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{bank, op, secret, TIMEOUT};
use paygate_bankkit::sim::Faults;
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    BankOutcome, BankState,
};

/// `9998` "Sistem geçici olarak hizmet veremiyor" does not say the bank did nothing: the
/// capture is unknown (settled by the search service), never an error.
#[tokio::test]
async fn technical_error_is_unknown_and_the_search_shows_nothing_moved() {
    let b = bank().await;
    b.order("PF-TE", 5_000, TestOrderState::Preauth, false)
        .await;
    b.faults(Faults {
        technical_errors: 1,
        ..Faults::default()
    });
    match b
        .provider
        .capture(&b.account, &op("PF-TE", 5_000, true))
        .await
    {
        BankOutcome::Unknown { reason } => assert!(reason.contains("9998"), "{reason}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        b.provider.query(&b.account, "PF-TE").await.state,
        BankState::Preauth
    );
}

#[tokio::test]
async fn timeout_is_unknown_and_the_search_shows_it_applied() {
    let b = bank().await;
    b.order("PF-TO", 5_000, TestOrderState::Preauth, false)
        .await;
    b.faults(Faults {
        latency: TIMEOUT + Duration::from_millis(600),
        ..Faults::default()
    });
    let out = b
        .provider
        .capture(&b.account, &op("PF-TO", 5_000, true))
        .await;
    assert!(matches!(out, BankOutcome::Unknown { .. }), "{out:?}");
    b.faults(Faults::default());
    let st = b.provider.query(&b.account, "PF-TO").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 5_000));
}

#[tokio::test]
async fn dropped_after_processing_is_unknown_and_applied() {
    let b = bank().await;
    b.order("PF-DROP", 8_000, TestOrderState::Approved, true)
        .await;
    b.faults(Faults {
        drop_after_processing: 1,
        ..Faults::default()
    });
    let out = b
        .provider
        .refund(&b.account, &op("PF-DROP", 3_000, false))
        .await;
    assert!(matches!(out, BankOutcome::Unknown { .. }), "{out:?}");
    let st = b.provider.query(&b.account, "PF-DROP").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::PartiallyRefunded, 3_000)
    );
}

#[tokio::test]
async fn dropped_before_processing_is_unknown_and_not_applied() {
    let b = bank().await;
    b.order("PF-DROPB", 8_000, TestOrderState::Approved, false)
        .await;
    b.faults(Faults {
        drop_before_processing: 1,
        ..Faults::default()
    });
    let out = b
        .provider
        .cancel(&b.account, &op("PF-DROPB", 8_000, true))
        .await;
    assert!(matches!(out, BankOutcome::Unknown { .. }), "{out:?}");
    assert_eq!(
        b.provider.query(&b.account, "PF-DROPB").await.state,
        BankState::Approved
    );
}

/// A lookup that cannot be made (the search service unreachable) moved nothing: an error.
#[tokio::test]
async fn an_unreachable_search_service_is_an_error_not_unknown() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let b = bank().await;
    b.order("PF-SU", 1_000, TestOrderState::Approved, false)
        .await;
    let mut s = secret(
        &b.endpoint(),
        common::MERCHANT_ID,
        common::PASSWORD,
        common::TERMINAL,
    );
    s = paygate_bankkit::AccountCredentials::new(
        s.endpoint_url.clone(),
        [
            ("merchantId".to_owned(), common::MERCHANT_ID.to_owned()),
            ("password".to_owned(), common::PASSWORD.to_owned()),
            ("terminalNo".to_owned(), common::TERMINAL.to_owned()),
            (
                "searchUrl".to_owned(),
                format!("http://{closed}/UIService/Search.aspx"),
            ),
        ],
    );
    let acc = b.other_account("acc_nosearch", s);
    assert!(matches!(
        b.provider.cancel(&acc, &op("PF-SU", 1_000, true)).await,
        BankOutcome::Error { .. }
    ));
    assert!(!b.provider.query(&acc, "PF-SU").await.is_conclusive());
    assert_eq!(
        b.provider.query(&b.account, "PF-SU").await.state,
        BankState::Approved
    );
}

#[tokio::test]
async fn missing_credentials_never_reach_the_bank() {
    let b = bank().await;
    let nothing = common::account("acc_unknown");
    match b.provider.refund(&nothing, &op("X", 1, true)).await {
        BankOutcome::Error { code, .. } => assert_eq!(code, "config"),
        other => panic!("{other:?}"),
    }
}
