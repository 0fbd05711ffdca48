//! The card, the CVV and the API password never reach a log. Its own test binary with a
//! single test and a global subscriber: tracing caches callsite interest process-wide, so a
//! thread-local subscriber next to concurrently running tests misses events.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, card, PASSWORD};
use paygate_bankkit::sim::Faults;
use paygate_domain::testkit::LogBuffer;
use paygate_domain::{ports::PosProvider, Currency};

const MAXIMUM_CARD: &str = "4543600299100712";
const OTHER_CARD: &str = "4111111111111111";

/// Everything logged at any level while the card travels to the bank and back (adapter,
/// simulator, HTTP stack) holds neither the card number, the CVV nor the API password.
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
        .points_inquiry(&b.account, &card(MAXIMUM_CARD), Currency::Try)
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
        .points_inquiry(&b.account, &card(MAXIMUM_CARD), Currency::Try)
        .await;
    let _ = b.provider.query(&b.account, "ANY").await;

    let text = logs.text();
    assert!(
        text.contains("bank points inquiry") && text.contains("provider=\"nestpay\""),
        "the test must see the adapter's logs:\n{text}"
    );
    assert!(
        text.contains("454360******0712"),
        "the masked card is what may be logged:\n{text}"
    );
    for secret in [MAXIMUM_CARD, OTHER_CARD, "Cvv2Val", PASSWORD, "<CC5Request"] {
        assert!(
            !text.contains(secret),
            "`{secret}` leaked into the logs:\n{text}"
        );
    }
}
