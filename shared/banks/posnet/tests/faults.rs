//! Technical errors, time-outs and dropped connections: what the adapter reports, and that a
//! following query shows what really happened at the bank.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::*;
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    BankOutcome, BankState, CardDetails, Currency, PointsResult,
};

fn is_unknown(o: &BankOutcome) -> bool {
    matches!(o, BankOutcome::Unknown { .. })
}

/// `0400 DB ERROR` does not say Posnet did nothing: the refund is unknown (the query then
/// shows nothing moved), never an error.
#[tokio::test]
async fn a_technical_error_is_unknown_and_the_query_shows_nothing_moved() {
    let bank = Bank::start().await;
    bank.register("PGTECH1", 5_000, TestOrderState::Approved, true)
        .await;
    bank.faults(r#"{"technicalErrors":1,"only":"return"}"#)
        .await;
    match bank.refund("PGTECH1", 1_000).await {
        BankOutcome::Unknown { reason } => assert!(reason.contains("0400"), "{reason}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(bank.query("PGTECH1").await.refunded_amount, 0);
    // The fault is used up: the next refund goes through.
    approved_rrn(&bank.refund("PGTECH1", 1_000).await);

    bank.faults(r#"{"technicalErrors":1,"only":"agreement"}"#)
        .await;
    let q = bank.query("PGTECH1").await;
    assert_eq!(
        (q.found, q.state, q.code.as_str()),
        (true, BankState::Unknown, "0400")
    );
    assert!(!q.is_conclusive());

    bank.faults(r#"{"technicalErrors":1,"only":"pointInquiry"}"#)
        .await;
    let card = CardDetails {
        number: WORLD_CARD.into(),
        exp_month: "12".into(),
        exp_year: "2030".into(),
        cvv: "000".into(),
        holder: String::new(),
    };
    assert!(matches!(
        bank.provider.points_inquiry(&bank.account, &card, Currency::Try).await,
        PointsResult::Error { code, .. } if code == "0400"
    ));
}

#[tokio::test]
async fn a_timeout_is_unknown_and_the_query_shows_the_refund_applied() {
    let bank = Bank::with_timeout(Duration::from_millis(300)).await;
    bank.register("PGSLOW1", 8_000, TestOrderState::Approved, true)
        .await;
    bank.faults(r#"{"latencyMs":900,"only":"return"}"#).await;
    let outcome = bank.refund("PGSLOW1", 2_000).await;
    assert!(is_unknown(&outcome), "{outcome:?}");
    let st = bank.query("PGSLOW1").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::PartiallyRefunded, 2_000)
    );
    // A slow status answer is an unavailable query, not a state.
    bank.faults(r#"{"latencyMs":900,"only":"agreement"}"#).await;
    let q = bank.query("PGSLOW1").await;
    assert_eq!((q.state, q.code.as_str()), (BankState::Unknown, "timeout"));
    assert!(!q.is_conclusive());
}

#[tokio::test]
async fn a_dropped_capture_is_unknown_and_the_query_shows_it_captured() {
    let bank = Bank::start().await;
    bank.register("PGDROP1", 9_000, TestOrderState::Preauth, false)
        .await;
    // The order lookup passes; the capture is processed and its answer lost.
    bank.faults(r#"{"dropAfterProcessing":1,"only":"capt"}"#)
        .await;
    let outcome = bank.capture("PGDROP1", 7_500).await;
    assert!(is_unknown(&outcome), "{outcome:?}");
    let st = bank.query("PGDROP1").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 7_500));
}

#[tokio::test]
async fn a_dropped_reversal_is_unknown_and_the_query_shows_it_cancelled() {
    let bank = Bank::start().await;
    bank.register("PGDROP2", 3_000, TestOrderState::Approved, false)
        .await;
    bank.faults(r#"{"dropAfterProcessing":1,"only":"reverse"}"#)
        .await;
    assert!(is_unknown(&bank.cancel("PGDROP2").await));
    assert_eq!(bank.query("PGDROP2").await.state, BankState::Cancelled);
}

#[tokio::test]
async fn a_refund_dropped_before_processing_is_unknown_and_the_query_shows_nothing_applied() {
    let bank = Bank::start().await;
    bank.register("PGDROP3", 3_000, TestOrderState::Approved, true)
        .await;
    bank.faults(r#"{"dropBeforeProcessing":1,"only":"return"}"#)
        .await;
    assert!(is_unknown(&bank.refund("PGDROP3", 1_000).await));
    let st = bank.query("PGDROP3").await;
    assert_eq!((st.state, st.refunded_amount), (BankState::Approved, 0));
}

#[tokio::test]
async fn a_failed_lookup_before_capture_is_an_error_and_before_cancel_unknown() {
    let bank = Bank::start().await;
    bank.register("PGLOOK1", 6_000, TestOrderState::Preauth, false)
        .await;
    bank.faults(r#"{"dropAfterProcessing":2,"only":"agreement"}"#)
        .await;
    match bank.capture("PGLOOK1", 6_000).await {
        BankOutcome::Error { code, message } => {
            assert_eq!(code, "transport");
            assert!(
                message.starts_with("order lookup before capture failed"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    // Before a cancel, an unreadable order is unknown (an earlier cancel may have moved
    // money), still with nothing sent.
    assert!(matches!(
        bank.cancel("PGLOOK1").await,
        BankOutcome::Unknown { .. }
    ));
    assert_eq!(
        bank.query("PGLOOK1").await.state,
        BankState::Preauth,
        "nothing was sent"
    );
}

#[tokio::test]
async fn a_bank_that_cannot_be_reached_is_an_error() {
    let bank = Bank::start().await;
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let acc = account("acc_closed1");
    bank.creds.insert(
        acc.id.clone(),
        paygate_bankkit::AccountCredentials::new(
            format!("http://{closed}/PosnetWebService/XML"),
            [
                ("mid".to_owned(), MID.to_owned()),
                ("tid".to_owned(), TID.to_owned()),
            ],
        ),
    );
    assert!(
        matches!(bank.provider.refund(&acc, &op("PGX1", 100)).await, BankOutcome::Error { code, .. } if code == "transport")
    );
}
