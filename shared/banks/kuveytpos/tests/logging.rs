//! The password, its hash, `HashData` and the bodies never reach a log at TRACE. Its own
//! test binary with a global subscriber.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, op, PASSWORD};
use paygate_bank_kuveytpos::hash;
use paygate_bankkit::{boa, sim::Faults};
use paygate_domain::ports::{PosProvider, TestOrderState};
use paygate_domain::testkit::LogBuffer;

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
    b.order("KL1", 1_000, TestOrderState::Approved, true).await;
    let _ = b.provider.refund(&b.account, &op("KL1", 100, false)).await;
    b.faults(Faults {
        drop_after_processing: 1,
        ..Faults::default()
    });
    let _ = b.provider.refund(&b.account, &op("KL1", 100, false)).await;
    let _ = b.provider.cancel(&b.account, &op("KL1", 1_000, true)).await;
    let _ = b.provider.query(&b.account, "KL1").await;
    let bad = b.other_account(
        "acc_bad",
        common::secret(&b.endpoint(), common::USER_NAME, "wrong-password"),
    );
    let _ = b.provider.query(&bad, "KL1").await;

    let text = logs.text();
    assert!(
        text.contains("provider=\"kuveytpos\""),
        "the test must see the adapter's logs:\n{text}"
    );
    let creds = paygate_bank_kuveytpos::ApiCredentials {
        endpoint_url: b.endpoint(),
        merchant_id: common::MERCHANT_ID.into(),
        customer_id: common::CUSTOMER_ID.into(),
        user_name: common::USER_NAME.into(),
        password: PASSWORD.into(),
    };
    for secret in [
        PASSWORD.to_owned(),
        "wrong-password".to_owned(),
        boa::hashed_password(PASSWORD),
        hash::hash_data(&creds, "KL1", "0"),
        hash::hash_data(&creds, "KL1", "100"),
        "HashData>".to_owned(),
        "soapenv".to_owned(),
        "518896******2544".to_owned(),
    ] {
        assert!(
            !text.contains(&secret),
            "`{secret}` leaked into the logs:\n{text}"
        );
    }
}
