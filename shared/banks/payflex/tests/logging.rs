//! The merchant password never reaches a log. Its own test binary with a single test and a
//! global subscriber (tracing caches callsite interest process-wide).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, card, op, PASSWORD};
use paygate_bankkit::sim::Faults;
use paygate_domain::testkit::LogBuffer;
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    Currency,
};

/// Everything logged at any level (adapter, simulator, HTTP stack) while money moves, a call
/// fails and a points inquiry is refused holds neither the password nor the card.
#[tokio::test]
async fn password_and_card_never_reach_the_logs() {
    let logs = LogBuffer::default();
    let sink = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || sink.clone())
        .finish();
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let b = bank().await;
    b.order("PF-L1", 5_000, TestOrderState::Preauth, false)
        .await;
    let _ = b
        .provider
        .capture(&b.account, &op("PF-L1", 5_000, true))
        .await;
    b.faults(Faults {
        drop_after_processing: 1,
        ..Faults::default()
    });
    let _ = b
        .provider
        .refund(&b.account, &op("PF-L1", 1_000, false))
        .await;
    let _ = b.provider.query(&b.account, "PF-L1").await;
    let number = "4111111111111111";
    let _ = b
        .provider
        .points_inquiry(&b.account, &card(number), Currency::Try)
        .await;

    let text = logs.text();
    assert!(
        text.contains("bank operation") && text.contains("provider=\"payflex\""),
        "the test must see the adapter's logs:\n{text}"
    );
    for secret in [PASSWORD, number, "prmstr", "<VposRequest"] {
        assert!(
            !text.contains(secret),
            "`{secret}` leaked into the logs:\n{text}"
        );
    }
}
