//! The card, the CVV and the API password never reach a log. Its own test binary with a
//! single test and a global subscriber (tracing caches callsite interest process-wide).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, card, op, USER_PASS};
use paygate_bankkit::sim::Faults;
use paygate_domain::testkit::LogBuffer;
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    Currency,
};

const CARDFINANS: &str = "4155650100416111";
const OTHER_CARD: &str = "4111111111111111";

/// Everything logged at TRACE while the card and the credentials travel to the bank and back
/// (adapter, simulator, HTTP stack) holds neither the card number, the CVV nor the password.
#[tokio::test]
async fn card_and_password_never_reach_the_logs() {
    let logs = LogBuffer::default();
    let sink = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || sink.clone())
        .finish();
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let b = bank().await;
    let _ = b
        .provider
        .points_inquiry(&b.account, &card(CARDFINANS), Currency::Try)
        .await;
    let _ = b
        .provider
        .points_inquiry(&b.account, &card(OTHER_CARD), Currency::Try)
        .await;
    b.faults(Faults {
        drop_after_processing: 1,
        ..Faults::default()
    });
    let _ = b
        .provider
        .points_inquiry(&b.account, &card(CARDFINANS), Currency::Try)
        .await;
    b.order("PF-LOG", 1_000, TestOrderState::Preauth, false)
        .await;
    let _ = b
        .provider
        .capture(&b.account, &op("PF-LOG", 1_000, true))
        .await;
    let _ = b.provider.query(&b.account, "PF-LOG").await;

    let text = logs.text();
    assert!(
        text.contains("bank points inquiry") && text.contains("provider=\"payfor\""),
        "the test must see the adapter's logs:\n{text}"
    );
    assert!(
        text.contains("415565******6111"),
        "the masked card is what may be logged:\n{text}"
    );
    for secret in [
        CARDFINANS,
        OTHER_CARD,
        "Cvv2",
        USER_PASS,
        "<PayforRequest",
        "UserPass",
    ] {
        assert!(
            !text.contains(secret),
            "`{secret}` leaked into the logs:\n{text}"
        );
    }
}
