//! The encryption key, the MAC and the bodies never reach a log at TRACE. Its own test
//! binary with a global subscriber.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, op, ENC_KEY};
use paygate_bankkit::sim::Faults;
use paygate_domain::ports::{PosProvider, TestOrderState};
use paygate_domain::testkit::LogBuffer;

#[tokio::test]
async fn enc_key_mac_and_bodies_never_reach_the_logs() {
    let logs = LogBuffer::default();
    let sink = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || sink.clone())
        .finish();
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let b = bank().await;
    b.order("ALLOG", 1_000, TestOrderState::Preauth, false)
        .await;
    let _ = b
        .provider
        .capture(&b.account, &op("ALLOG", 1_000, true))
        .await;
    b.faults(Faults {
        drop_after_processing: 1,
        ..Faults::default()
    });
    let _ = b.provider.cancel(&b.account, &op("ALLOG", 10, true)).await;
    let _ = b.provider.query(&b.account, "ALLOG").await;
    let bad = b.other_account(
        "acc_bad",
        common::secret(&b.endpoint(), common::TERMINAL, "wrong-key"),
    );
    let _ = b.provider.query(&bad, "ALLOG").await;
    let _ = b.provider.refund(&bad, &op("ALLOG", 10, true)).await;

    let text = logs.text();
    assert!(
        text.contains("provider=\"posnetv1\""),
        "the test must see the adapter's logs:\n{text}"
    );
    let mac = paygate_bank_posnetv1::hash::mac(&[common::MERCHANT, common::TERMINAL], ENC_KEY);
    for secret in [
        ENC_KEY,
        "wrong-key",
        mac.as_str(),
        "MACParams",
        "\"MAC\"",
        "ReferenceCode",
    ] {
        assert!(
            !text.contains(secret),
            "`{secret}` leaked into the logs:\n{text}"
        );
    }
}
