//! The password, its hash, `HashData`, the bodies and card data never reach a log at TRACE.
//! Its own test binary with a global subscriber.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, op, PASSWORD};
use paygate_bankkit::sim::Faults;
use paygate_domain::ports::{PosProvider, TestOrderState};
use paygate_domain::testkit::LogBuffer;
use paygate_domain::{CardDetails, Currency};

#[tokio::test]
async fn password_hashes_and_bodies_never_reach_the_logs() {
    let logs = LogBuffer::default();
    let sink = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || sink.clone())
        .finish();
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let b = bank().await;
    b.order("VK-LOG", 1_000, TestOrderState::Preauth, false)
        .await;
    let _ = b
        .provider
        .capture(&b.account, &op("VK-LOG", 600, false))
        .await;
    b.end_of_day();
    *b.state.faults() = Faults {
        drop_after_processing: 1,
        ..Faults::default()
    };
    let _ = b
        .provider
        .refund(&b.account, &op("VK-LOG", 10, false))
        .await;
    let _ = b.provider.query(&b.account, "VK-LOG").await;
    let card = CardDetails {
        number: "4155650100416111".into(),
        exp_month: "01".into(),
        exp_year: "2030".into(),
        cvv: "123".into(),
        holder: "John Doe".into(),
    };
    let _ = b
        .provider
        .points_inquiry(&b.account, &card, Currency::Try)
        .await;
    let bad = b.other_account("acc_bad", common::secret(&b.endpoint(), "wrong-password"));
    let _ = b.provider.query(&bad, "VK-LOG").await;

    let text = logs.text();
    assert!(
        text.contains("provider=\"vakifkatilim\""),
        "the test must see the adapter's logs:\n{text}"
    );
    for secret in [
        PASSWORD,
        "wrong-password",
        // base64(SHA1("kdsnsksl")): the HashPassword field.
        "h58bUB83xQz2/21SUeOemUgkF5U=",
        // The elements (the code `HashDataError` may show: it is no secret).
        "<HashData>",
        "<HashPassword>",
        "<VPosMessageContract",
        "4155650100416111",
    ] {
        assert!(
            !text.contains(secret),
            "`{secret}` leaked into the logs:\n{text}"
        );
    }
}
