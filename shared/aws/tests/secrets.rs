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
                version: 0,
            },
        )
        .await
        .unwrap();
    assert_eq!(s.signing_secrets(&id, 0, T0).await.unwrap(), ["whsec_one"]);
    assert!(matches!(
        s.create(
            &name,
            &SecretDoc {
                current: "x".into(),
                previous: vec![],
                version: 0,
            }
        )
        .await,
        Err(paygate_domain::StoreError::AlreadyExists)
    ));
    let rotated = s
        .read(&id)
        .await
        .unwrap()
        .rotated("whsec_two".into(), 1, T0, 60_000);
    s.put(&id, &rotated).await.unwrap();
    // `put` drops the cached copy, so the rotation is visible at once here.
    assert_eq!(
        s.signing_secrets(&id, 1, T0).await.unwrap(),
        ["whsec_two", "whsec_one"]
    );
    assert_eq!(
        s.signing_secrets(&id, 1, T0.plus_millis(60_001))
            .await
            .unwrap(),
        ["whsec_two"]
    );
    s.delete(&id).await.unwrap();
    assert!(s.read(&id).await.is_err());
}

#[tokio::test]
async fn a_newer_secret_version_bypasses_another_instances_cache() {
    let moto = MotoServer::shared().unwrap();
    let clients = Clients::local(&moto.endpoint, REGION);
    // GIVEN a sender whose cache (a day's TTL) holds version 0
    let sender = SecretsManagerSigning::new(
        clients.secrets.clone(),
        std::time::Duration::from_secs(86_400),
    );
    let admin = SecretsManagerSigning::new(clients.secrets, std::time::Duration::ZERO);
    let name = unique_prefix("whsec-ver");
    let doc = SecretDoc {
        current: "whsec_old".into(),
        previous: vec![],
        version: 0,
    };
    let id = admin.create(&name, &doc).await.unwrap();
    assert_eq!(
        sender.signing_secrets(&id, 0, T0).await.unwrap(),
        ["whsec_old"]
    );
    // WHEN another instance rotates with no grace (version 1)
    admin
        .put(&id, &doc.rotated("whsec_new".into(), 1, T0, 0))
        .await
        .unwrap();
    // THEN asked for version 0 the cache still answers, but asked for version 1 (what the
    // endpoint now says) the sender reads again: only the new secret signs
    assert_eq!(
        sender.signing_secrets(&id, 0, T0).await.unwrap(),
        ["whsec_old"]
    );
    assert_eq!(
        sender.signing_secrets(&id, 1, T0).await.unwrap(),
        ["whsec_new"]
    );
    admin.delete(&id).await.unwrap();
}
