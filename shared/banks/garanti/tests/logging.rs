//! What reaches the logs while the adapter and the simulator handle a card and passwords.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, card, op};
use paygate_bank_garanti::sim::TEST_BONUS_CARD;
use paygate_domain::testkit::LogBuffer;
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    Currency,
};

/// Everything logged at any level while the adapter and the simulator handle a PAN, a CVV
/// and passwords: none of them, nor a request body, may appear.
#[tokio::test]
async fn no_card_data_or_secret_reaches_the_logs() {
    let out = LogBuffer::default();
    let writer = out.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    // The process-wide subscriber (this binary holds this test only): a thread-local one
    // races with the interest other tests' threads cache for the same call sites.
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let b = bank().await;
    b.register("S1", 5_000, TestOrderState::Approved, false)
        .await;
    let bonus = card(TEST_BONUS_CARD);
    let _ = b
        .provider
        .points_inquiry(&b.account, &bonus, Currency::Try)
        .await;
    let _ = b
        .provider
        .points_inquiry(&b.account, &card("4543600299100712"), Currency::Try)
        .await;
    let _ = b.provider.refund(&b.account, &op("S1", 1_000)).await;
    b.set_credential("provPassword", "s3cr3t-pw");
    let _ = b
        .provider
        .points_inquiry(&b.account, &bonus, Currency::Try)
        .await;

    let logs = out.text();
    assert!(
        logs.contains("bank points inquiry") && logs.contains("provider=\"garanti\""),
        "logging is captured: {logs}"
    );
    assert!(
        logs.contains("482491******7011"),
        "the masked card is what is logged"
    );
    assert!(logs.contains("bank operation"));
    for secret in [
        TEST_BONUS_CARD,
        "4543600299100712",
        "<CVV2>",
        "<Number>",
        "HashData",
        "GVPSRequest",
        "123qweASD/",
        "s3cr3t-pw",
        "Ayşe",
    ] {
        assert!(
            !logs.contains(secret),
            "{secret} leaked into the logs:\n{logs}"
        );
    }
}
