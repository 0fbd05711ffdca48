//! Adapter ↔ simulator over real HTTP: technical errors, time-outs, dropped connections,
//! wrong credentials, unreadable requests and the admin routes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{bank, op, secret, MERCHANT_ID, TIMEOUT, USER_CODE};
use paygate_bankkit::{sim::Faults, TransportError};
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    BankOutcome, BankState,
};

/// PayFor's "Sistem hatası" does not say whether the host acted: unknown, and the query
/// shows nothing moved.
#[tokio::test]
async fn technical_error_is_unknown_and_the_query_settles_it() {
    let b = bank().await;
    b.order("PF-TE", 5_000, TestOrderState::Preauth, false)
        .await;
    b.faults(Faults {
        technical_errors: 1,
        ..Faults::default()
    });
    let out = b
        .provider
        .capture(&b.account, &op("PF-TE", 5_000, true))
        .await;
    assert!(
        matches!(&out, BankOutcome::Unknown { reason } if reason.contains("V036")),
        "{out:?}"
    );
    assert_eq!(
        b.provider.query(&b.account, "PF-TE").await.state,
        BankState::Preauth
    );
}

#[tokio::test]
async fn timeout_is_unknown_and_query_shows_it_applied() {
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
    let st = b.provider.query(&b.account, "PF-TO").await;
    assert!(st.found && !st.is_conclusive(), "{st:?}");
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

/// A cancel reads the order first: when that read fails nothing is sent and the outcome is
/// unknown (an earlier attempt may have moved money).
#[tokio::test]
async fn cancel_without_a_readable_order_sends_nothing() {
    let b = bank().await;
    b.order("PF-CQ", 1_000, TestOrderState::Approved, false)
        .await;
    b.faults(Faults {
        technical_errors: 1,
        ..Faults::default()
    });
    let out = b
        .provider
        .cancel(&b.account, &op("PF-CQ", 1_000, true))
        .await;
    assert!(
        matches!(&out, BankOutcome::Unknown { reason } if reason.contains("nothing was sent")),
        "{out:?}"
    );
    assert_eq!(
        b.provider.query(&b.account, "PF-CQ").await.state,
        BankState::Approved
    );
}

#[tokio::test]
async fn wrong_credentials_are_an_error() {
    let b = bank().await;
    b.order("PF-AUTH", 100, TestOrderState::Preauth, false)
        .await;
    let bad = b.other_account(
        "acc_bad",
        secret(&b.endpoint(), MERCHANT_ID, USER_CODE, "wrong"),
    );
    match b.provider.capture(&bad, &op("PF-AUTH", 100, true)).await {
        BankOutcome::Error { code, .. } => assert_eq!(code, "V001"),
        other => panic!("{other:?}"),
    }
    let st = b.provider.query(&bad, "PF-AUTH").await;
    assert!(
        st.found && !st.is_conclusive() && st.code == "V001",
        "{st:?}"
    );
    // Another store's user cannot see this store's orders.
    let other = b.other_account(
        "acc_other",
        secret(&b.endpoint(), "085300000009999", "OTHER_API", "other"),
    );
    assert!(!b.provider.query(&other, "PF-AUTH").await.found);
    assert_eq!(
        b.provider.query(&b.account, "PF-AUTH").await.state,
        BankState::Preauth
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
    assert!(!b.provider.query(&nothing, "X").await.is_conclusive());
}

#[tokio::test]
async fn unreadable_requests_and_admin_routes() {
    let b = bank().await;
    let r = b.raw("<PayforRequest><MbrId>5</PayforRequest>").await;
    assert_eq!(r.fields.get("ProcReturnCode"), "M002");
    let unknown = r#"{"merchantId":"nobody","orderId":"A","amount":1,"currency":"TRY","state":"approved","settled":false}"#;
    assert_eq!(
        b.admin("/_sim/orders", unknown).await,
        Err(TransportError::Http(404))
    );
    b.order("PF-ADM", 1_000, TestOrderState::Approved, false)
        .await;
    // Also reachable under the API path (`<endpointUrl>/_sim/...`).
    b.admin("/Gateway/XMLGate.aspx/_sim/end-of-day", "")
        .await
        .unwrap();
    let late = b
        .provider
        .cancel(&b.account, &op("PF-ADM", 1_000, true))
        .await;
    assert!(
        matches!(
            late,
            BankOutcome::Declined {
                after_cutoff: true,
                ..
            }
        ),
        "{late:?}"
    );
}
