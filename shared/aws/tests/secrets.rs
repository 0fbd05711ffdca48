//! Against moto's Secrets Manager: create, read through the cache, rotate.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paygate_aws::moto::{unique_prefix, MotoServer, REGION};
use paygate_aws::secrets::SecretsManagerSigning;
use paygate_aws::Clients;
use paygate_domain::secret::SecretDoc;
use paygate_domain::{ports::SigningSecrets, Timestamp};

const T0: Timestamp = Timestamp::from_unix_millis(1_795_251_600_000);

#[tokio::test]
async fn create_read_rotate() {
    let moto = MotoServer::shared().unwrap();
    let s = SecretsManagerSigning::new(
        Clients::local(&moto.endpoint, REGION).secrets,
        std::time::Duration::from_secs(300),
    );
    let name = unique_prefix("whsec");
    let id = s
        .create(
            &name,
            &SecretDoc {
                current: "whsec_one".into(),
                previous: vec![],
            },
        )
        .await
        .unwrap();
    assert_eq!(s.signing_secrets(&id, T0).await.unwrap(), ["whsec_one"]);
    assert!(matches!(
        s.create(
            &name,
            &SecretDoc {
                current: "x".into(),
                previous: vec![]
            }
        )
        .await,
        Err(paygate_domain::StoreError::AlreadyExists)
    ));
    let rotated = s
        .read(&id)
        .await
        .unwrap()
        .rotated("whsec_two".into(), T0, 60_000);
    s.put(&id, &rotated).await.unwrap();
    // `put` drops the cached copy, so the rotation is visible at once here.
    assert_eq!(
        s.signing_secrets(&id, T0).await.unwrap(),
        ["whsec_two", "whsec_one"]
    );
    assert_eq!(
        s.signing_secrets(&id, T0.plus_millis(60_001))
            .await
            .unwrap(),
        ["whsec_two"]
    );
    s.delete(&id).await.unwrap();
    assert!(s.read(&id).await.is_err());
}
