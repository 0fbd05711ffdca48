//! The API password, the hash, the random stamp and the bodies never reach a log at TRACE.
//! Its own test binary with a global subscriber.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, op, API_PASS};
use paygate_bankkit::sim::Faults;
use paygate_domain::ports::{PosProvider, TestOrderState};
use paygate_domain::testkit::LogBuffer;

#[tokio::test]
async fn password_hash_and_bodies_never_reach_the_logs() {
    let logs = LogBuffer::default();
    let sink = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || sink.clone())
        .finish();
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let b = bank().await;
    b.order("T-LOG", 1_000, TestOrderState::Preauth, false)
        .await;
    let _ = b
        .provider
        .capture(&b.account, &op("T-LOG", 1_000, true))
        .await;
    b.faults(Faults {
        drop_after_processing: 1,
        ..Faults::default()
    });
    let _ = b.provider.refund(&b.account, &op("T-LOG", 10, false)).await;
    let _ = b.provider.query(&b.account, "T-LOG").await;
    let _ = b.provider.cancel(&b.account, &op("T-LOG", 990, true)).await;
    let bad = b.other_account("acc_bad", common::secret(&b.endpoint(), "wrong-pass"));
    let _ = b.provider.query(&bad, "T-LOG").await;

    let text = logs.text();
    assert!(
        text.contains("provider=\"toslapos\""),
        "the test must see the adapter's logs:\n{text}"
    );
    for secret in [
        API_PASS,
        "wrong-pass",
        "\"hash\"",
        "\"rnd\"",
        "timeSpan",
        "apiUser",
    ] {
        assert!(
            !text.contains(secret),
            "`{secret}` leaked into the logs:\n{text}"
        );
    }
}
