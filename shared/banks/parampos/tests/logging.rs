//! The API password and the GUID never reach a log. Its own test binary with a single test
//! and a global subscriber (tracing caches callsite interest process-wide).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, op, CLIENT_PASSWORD, GUID};
use paygate_bankkit::sim::Faults;
use paygate_domain::testkit::LogBuffer;
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    Currency,
};

const CARD: &str = "4111111111111111";

/// Everything logged at TRACE while the credentials travel to the service and back
/// (adapter, simulator, HTTP stack) holds neither the password, the GUID nor a card number
/// (a points inquiry, refused without a call, is tried too).
#[tokio::test]
async fn password_guid_and_card_never_reach_the_logs() {
    let logs = LogBuffer::default();
    let sink = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || sink.clone())
        .finish();
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let b = bank().await;
    let card = paygate_bankkit::sim::testing::card(CARD);
    let _ = b
        .provider
        .points_inquiry(&b.account, &card, Currency::Try)
        .await;
    b.order("PP-LOG", 1_000, TestOrderState::Preauth, false)
        .await;
    let _ = b
        .provider
        .capture(&b.account, &op("PP-LOG", 1_000, true))
        .await;
    b.faults(Faults {
        drop_after_processing: 1,
        ..Faults::default()
    });
    let _ = b
        .provider
        .cancel(&b.account, &op("PP-LOG", 1_000, true))
        .await;
    let _ = b.provider.query(&b.account, "PP-LOG").await;

    let text = logs.text();
    assert!(
        text.contains("provider=\"parampos\"") && text.contains("TP_Islem_Sorgulama4"),
        "the test must see the adapter's logs:\n{text}"
    );
    for secret in [
        CARD,
        CLIENT_PASSWORD,
        GUID,
        "CLIENT_PASSWORD",
        "soap:Envelope",
    ] {
        assert!(
            !text.contains(secret),
            "`{secret}` leaked into the logs:\n{text}"
        );
    }
}
