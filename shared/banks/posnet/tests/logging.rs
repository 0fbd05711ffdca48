//! Card data never reaches the logs, at any level.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use paygate_domain::testkit::LogBuffer;
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    CardDetails, Currency, PointsResult,
};

/// Everything written to the log while a points inquiry (card number, expiry, CVV in the
/// request) and a refund run against the simulator, at TRACE level.
#[tokio::test]
async fn card_data_never_reaches_the_logs() {
    let sink = LogBuffer::default();
    let writer = sink.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .without_time()
        .with_writer(move || writer.clone())
        .finish();
    // The process-wide subscriber (this binary holds this test only): the simulator's tasks
    // log through it too, and no other test's thread caches the call sites' interest first.
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let bank = Bank::start().await;
    let card = CardDetails {
        number: WORLD_CARD.into(),
        exp_month: "12".into(),
        exp_year: "2030".into(),
        cvv: "987".into(),
        holder: "Ayşe Yılmaz".into(),
    };
    assert!(matches!(
        bank.provider
            .points_inquiry(&bank.account, &card, Currency::Try)
            .await,
        PointsResult::Ok { .. }
    ));
    bank.register("PGLOG1", 1_000, TestOrderState::Approved, true)
        .await;
    approved_rrn(&bank.refund("PGLOG1", 500).await);

    let logged = sink.text();
    assert!(
        logged.contains("pointInquiry") && logged.contains("bank answered"),
        "the log was captured: {logged}"
    );
    for secret in [
        WORLD_CARD,
        "540063750000",
        "<ccno>",
        "ccno%3E",
        "xmldata",
        "Ayşe",
    ] {
        assert!(!logged.contains(secret), "`{secret}` in the log:\n{logged}");
    }
}
