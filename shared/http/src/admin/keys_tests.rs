use paygate_domain::{apikey::KeyStatus, testkit::T0};
use paygate_payments::{authenticate, hash_api_key, AuthError};
use serde_json::json;

use super::*;
use crate::admin::fixture::{expect_err, obj, World, M1, M2};

const HOUR: i64 = 3_600_000;

async fn issued(w: &World, mode: &str) -> ApiKeyWithSecret {
    create(
        &w.endpoints_deps(),
        M1,
        &obj(json!({"mode": mode, "name": "shop"})),
    )
    .await
    .unwrap()
}

async fn auth(w: &World, secret: &str) -> Result<paygate_payments::Principal, AuthError> {
    authenticate(w.keys.as_ref(), Some(&format!("Bearer {secret}")), w.now()).await
}

#[tokio::test]
async fn a_key_is_issued_once_stored_hashed_and_listed_without_its_secret() {
    let w = World::new();
    let made = issued(&w, "live").await;
    let k = &made.key;
    assert!(made.secret.starts_with("sk_live_"));
    assert_eq!(made.secret.len(), "sk_live_".len() + 64);
    assert_eq!(
        (k.prefix, k.mode, k.name.as_str()),
        ("sk_live_", Mode::Live, "shop")
    );
    assert_eq!(k.last4, made.secret[made.secret.len() - 4..]);
    assert_eq!(
        (k.created_at, k.expires_at, k.last_used_at),
        (T0, None, None)
    );
    assert_eq!(k.status, KeyStatus::Active);
    assert!(k.id.starts_with("key_"));
    // Stored only by hash: the secret itself is nowhere in the store.
    let stored = w.keys.all();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].0, hash_api_key(&made.secret));
    assert!(!format!("{:?}", stored[0].1).contains(&made.secret));
    // It authenticates as the merchant in its mode.
    let p = auth(&w, &made.secret).await.unwrap();
    assert_eq!((p.merchant_id.as_str(), p.mode), (M1, Mode::Live));
    // Listed without the secret, with its last use.
    let listed = list(&w.endpoints_deps(), M1).await.unwrap();
    let v = serde_json::to_value(&listed).unwrap();
    assert!(!v.to_string().contains(&made.secret));
    assert!(v["data"][0].get("secret").is_none());
    assert_eq!(v["data"][0]["lastUsedAt"], json!(T0.to_iso8601()));
    assert_eq!(v["data"][0]["status"], "active");
    // Another merchant sees none of it.
    assert!(list(&w.endpoints_deps(), M2).await.unwrap().data.is_empty());
    // Two keys never share a secret.
    let other = issued(&w, "live").await;
    assert_ne!(other.secret, made.secret);
}

#[tokio::test]
async fn bad_bodies_and_unknown_merchants_or_keys_are_refused() {
    let w = World::new();
    let d = w.endpoints_deps();
    expect_err(
        create(&d, M1, &obj(json!({}))).await,
        400,
        "invalid_request",
        Some("mode"),
    );
    expect_err(
        create(&d, M1, &obj(json!({"mode": "prod"}))).await,
        400,
        "invalid_request",
        Some("mode"),
    );
    expect_err(
        create(
            &d,
            M1,
            &obj(json!({"mode": "test", "name": "x".repeat(101)})),
        )
        .await,
        400,
        "invalid_request",
        Some("name"),
    );
    expect_err(
        create(&d, M1, &obj(json!({"mode": "test", "x": 1}))).await,
        400,
        "invalid_request",
        Some("x"),
    );
    expect_err(
        create(&d, "mch_nobody", &obj(json!({"mode": "test"}))).await,
        404,
        "not_found",
        None,
    );
    let k = issued(&w, "test").await;
    for hours in [json!(0), json!(169), json!("24"), json!(1.5)] {
        expect_err(
            roll(&d, M1, &k.key.id, &obj(json!({"expiresInHours": hours}))).await,
            400,
            "invalid_request",
            Some("expiresInHours"),
        );
    }
    // Another merchant's key is not found, for a roll and for a revoke.
    expect_err(
        roll(&d, M2, &k.key.id, &obj(json!({}))).await,
        404,
        "not_found",
        None,
    );
    expect_err(revoke(&d, M2, &k.key.id).await, 404, "not_found", None);
    expect_err(revoke(&d, M1, "key_unknown").await, 404, "not_found", None);
    expect_err(revoke(&d, M1, "nonsense").await, 404, "not_found", None);
    assert!(
        auth(&w, &k.secret).await.is_ok(),
        "nothing above touched the key"
    );
}

#[tokio::test]
async fn a_rolled_key_works_until_its_expiry_and_the_new_one_at_once() {
    let w = World::new();
    let old = issued(&w, "test").await;
    w.clock.advance_millis(1_000);
    let new = roll(
        &w.endpoints_deps(),
        M1,
        &old.key.id,
        &obj(json!({"expiresInHours": 2})),
    )
    .await
    .unwrap();
    assert_ne!(new.key.id, old.key.id);
    assert_ne!(new.secret, old.secret);
    assert_eq!((new.key.mode, new.key.name.as_str()), (Mode::Test, "shop"));
    let expiry = T0.plus_millis(1_000 + 2 * HOUR);
    let listed = list(&w.endpoints_deps(), M1).await.unwrap().data;
    let old_view = listed.iter().find(|k| k.id == old.key.id).unwrap();
    assert_eq!(
        (old_view.status, old_view.expires_at),
        (KeyStatus::Expiring, Some(expiry))
    );
    // Both work until the expiry; then only the new one.
    assert!(auth(&w, &old.secret).await.is_ok());
    assert!(auth(&w, &new.secret).await.is_ok());
    w.clock.set(expiry);
    assert_eq!(auth(&w, &old.secret).await, Err(AuthError::Invalid));
    assert!(auth(&w, &new.secret).await.is_ok());
    let listed = list(&w.endpoints_deps(), M1).await.unwrap().data;
    assert_eq!(
        listed.iter().find(|k| k.id == old.key.id).unwrap().status,
        KeyStatus::Expired
    );
    // An expired key cannot be rolled again.
    expect_err(
        roll(&w.endpoints_deps(), M1, &old.key.id, &obj(json!({}))).await,
        409,
        "api_key_inactive",
        None,
    );
}

#[tokio::test]
async fn the_default_roll_is_24_hours_and_a_rolled_key_is_not_rolled_again() {
    let w = World::new();
    let old = issued(&w, "test").await;
    roll(&w.endpoints_deps(), M1, &old.key.id, &obj(json!({})))
        .await
        .unwrap();
    let hash = hash_api_key(&old.secret);
    let exp = || {
        w.keys
            .all()
            .into_iter()
            .find(|(h, _)| *h == hash)
            .unwrap()
            .1
            .expires_at
    };
    assert_eq!(exp(), Some(T0.plus_millis(24 * HOUR)));
    // Rolling the expiring key again mints nothing (before: a fresh key each time).
    expect_err(
        roll(
            &w.endpoints_deps(),
            M1,
            &old.key.id,
            &obj(json!({"expiresInHours": 168})),
        )
        .await,
        409,
        "api_key_already_rolled",
        None,
    );
    assert_eq!(exp(), Some(T0.plus_millis(24 * HOUR)));
    assert_eq!(w.keys.all().len(), 2);
}

#[tokio::test]
async fn a_roll_loop_stops_at_the_merchants_key_cap() {
    let w = World::new();
    let d = w.endpoints_deps();
    let mut key = issued(&w, "test").await;
    // Each roll of the newest key adds one key; the cap counts them like issued ones.
    for _ in 1..MAX_KEYS_PER_MERCHANT {
        key = roll(&d, M1, &key.key.id, &obj(json!({}))).await.unwrap();
    }
    assert_eq!(w.keys.all().len(), MAX_KEYS_PER_MERCHANT);
    expect_err(
        roll(&d, M1, &key.key.id, &obj(json!({}))).await,
        409,
        "api_key_limit_reached",
        None,
    );
    expect_err(
        create(&d, M1, &obj(json!({"mode": "test"}))).await,
        409,
        "api_key_limit_reached",
        None,
    );
    // The refused roll left the newest key as it was: active, no successor.
    assert_eq!(w.keys.all().len(), MAX_KEYS_PER_MERCHANT);
    let listed = list(&d, M1).await.unwrap().data;
    let newest = listed.iter().find(|k| k.id == key.key.id).unwrap();
    assert_eq!(
        (newest.status, newest.expires_at),
        (KeyStatus::Active, None)
    );
    assert!(auth(&w, &key.secret).await.is_ok());
}

#[tokio::test]
async fn revocation_is_immediate_and_idempotent() {
    let w = World::new();
    let k = issued(&w, "test").await;
    assert!(auth(&w, &k.secret).await.is_ok());
    w.clock.advance_millis(5);
    let revoked = revoke(&w.endpoints_deps(), M1, &k.key.id).await.unwrap();
    assert_eq!(revoked.status, KeyStatus::Revoked);
    assert_eq!(auth(&w, &k.secret).await, Err(AuthError::Invalid));
    let again = revoke(&w.endpoints_deps(), M1, &k.key.id).await.unwrap();
    assert_eq!(again, revoked);
    expect_err(
        roll(&w.endpoints_deps(), M1, &k.key.id, &obj(json!({}))).await,
        409,
        "api_key_inactive",
        None,
    );
}

#[tokio::test]
async fn a_lost_answer_or_a_lost_race_never_leaves_two_usable_new_keys_unexpired() {
    // The old key's expiry is written before the new key: a lost answer there is a 500
    // with the expiry set and no new key; a retried roll is then refused (the key is
    // expiring) and the caller issues a new key instead.
    let w = World::new();
    let old = issued(&w, "test").await;
    w.keys.lose_answers(1);
    expect_err(
        roll(&w.endpoints_deps(), M1, &old.key.id, &obj(json!({}))).await,
        500,
        "internal_error",
        None,
    );
    assert_eq!(w.keys.all().len(), 1);
    expect_err(
        roll(&w.endpoints_deps(), M1, &old.key.id, &obj(json!({}))).await,
        409,
        "api_key_already_rolled",
        None,
    );
    let retry = issued(&w, "test").await;
    assert!(auth(&w, &retry.secret).await.is_ok());
    let listed = list(&w.endpoints_deps(), M1).await.unwrap().data;
    let o = listed.iter().find(|k| k.id == old.key.id).unwrap();
    assert_eq!(o.expires_at, Some(T0.plus_millis(24 * HOUR)));
    // A revoke whose answer is lost is revoked all the same; the retry answers it.
    w.keys.lose_answers(1);
    expect_err(
        revoke(&w.endpoints_deps(), M1, &retry.key.id).await,
        500,
        "internal_error",
        None,
    );
    assert_eq!(auth(&w, &retry.secret).await, Err(AuthError::Invalid));
    assert_eq!(
        revoke(&w.endpoints_deps(), M1, &retry.key.id)
            .await
            .unwrap()
            .status,
        KeyStatus::Revoked
    );
}

#[tokio::test]
async fn a_roll_racing_another_on_the_same_key_is_a_conflict() {
    use paygate_domain::ports::ApiKeyAdmin;
    let w = World::new();
    let old = issued(&w, "test").await;
    let m = MerchantId::parse(M1).unwrap();
    let id = ApiKeyId::parse(&old.key.id).unwrap();
    // The read happened (no expiry); someone else's roll lands before the write.
    let read = w.keys.get_key(&m, &id).await.unwrap().unwrap();
    w.keys
        .set_key_expiry(&m, &id, T0.plus_millis(HOUR), None)
        .await
        .unwrap();
    assert!(matches!(
        w.keys
            .set_key_expiry(&m, &id, T0.plus_millis(24 * HOUR), read.expires_at)
            .await,
        Err(StoreError::Conflict { .. })
    ));
}
