//! DynamoIdempotency against moto: the conditional writes agree with the domain's
//! decisions (take a free, expired or abandoned key; keep a running or finished one;
//! complete and release only while the lock is the caller's).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test crate: helpers may panic

use paygate_aws::dynamo::{create_tables, table_names, DynamoIdempotency};
use paygate_aws::moto::{unique_prefix, MotoServer};
use paygate_domain::{
    idempotency::{
        takeable, BeginOutcome, Fingerprint, IdempotencyKey, IdempotencyRecord, IdempotencyStore,
        RecordState, ScopedKey, StoredResponse, LEASE_MS,
    },
    MerchantId, Mode, Timestamp,
};

/// 2026-11-21T10:00:00.250Z (not on a whole second).
const T0: Timestamp = Timestamp::from_unix_millis(1_795_255_200_250);

async fn store(label: &str) -> DynamoIdempotency {
    let client = MotoServer::shared().expect("moto server starts").client();
    let prefix = unique_prefix(label);
    create_tables(&client, &prefix).await.expect("tables");
    DynamoIdempotency::new(client, table_names(&prefix).idempotency)
}

fn key(k: &str) -> ScopedKey {
    ScopedKey {
        merchant_id: MerchantId::parse("mch_a").unwrap(),
        mode: Mode::Test,
        key: IdempotencyKey::parse(k.as_bytes()).unwrap(),
    }
}

fn lock(k: &str, fp: &str, owner: &str, at: Timestamp) -> IdempotencyRecord {
    IdempotencyRecord::lock(key(k), Fingerprint::new(fp), owner.into(), at)
}

fn answer(status: u16) -> StoredResponse {
    StoredResponse {
        status,
        body: format!(r#"{{"status":{status}}}"#),
    }
}

#[tokio::test]
async fn a_key_is_taken_once_then_held_completed_and_replayed() {
    let s = store("idem-flow").await;
    let first = lock("k 1#x", "fp", "o1", T0);
    // GIVEN a free key WHEN a request takes it THEN it holds the lock
    assert_eq!(s.begin(&first, T0).await.unwrap(), BeginOutcome::Acquired);
    assert_eq!(s.get(&first.key).await.unwrap(), Some(first.clone()));
    // WHEN the same request comes during the lease THEN it finds the lock (read atomically)
    let second = lock("k 1#x", "fp", "o2", T0.plus_millis(1_000));
    assert_eq!(
        s.begin(&second, T0.plus_millis(1_000)).await.unwrap(),
        BeginOutcome::Existing(first.clone())
    );
    // AND only the owner completes it
    assert!(!s.complete(&first.key, "o2", &answer(200)).await.unwrap());
    assert!(s.complete(&first.key, "o1", &answer(422)).await.unwrap());
    // a retried complete of the same owner (its first answer lost) succeeds again
    assert!(s.complete(&first.key, "o1", &answer(422)).await.unwrap());
    let done = s.get(&first.key).await.unwrap().unwrap();
    assert_eq!(
        done.state,
        RecordState::Completed {
            owner: "o1".into(),
            response: answer(422)
        }
    );
    assert_eq!(done.expires_at, first.expires_at);
    // WHEN a request comes after the lease THEN the finished record still holds the key
    let late = T0.plus_millis(LEASE_MS * 10);
    match s
        .begin(&lock("k 1#x", "fp", "o3", late), late)
        .await
        .unwrap()
    {
        BeginOutcome::Existing(r) => assert_eq!(r, done),
        other => panic!("{other:?}"),
    }
    // AND a completed record is never released
    assert!(!s.release(&first.key, "o1").await.unwrap());
    // AND the key is separate per mode
    let mut live = lock("k 1#x", "fp", "o4", T0);
    live.key.mode = Mode::Live;
    assert_eq!(s.begin(&live, T0).await.unwrap(), BeginOutcome::Acquired);
}

#[tokio::test]
async fn an_abandoned_lock_is_taken_over_after_its_lease_by_the_same_request_only() {
    let s = store("idem-lease").await;
    let dead = lock("k", "fp", "o1", T0);
    s.begin(&dead, T0).await.unwrap();
    let at = T0.plus_millis(LEASE_MS - 1);
    let early = lock("k", "fp", "o2", at);
    assert!(!takeable(Some(&dead), &early.fingerprint, at));
    assert!(matches!(
        s.begin(&early, at).await.unwrap(),
        BeginOutcome::Existing(_)
    ));

    let at = T0.plus_millis(LEASE_MS);
    let other = lock("k", "other", "o2", at);
    assert!(matches!(
        s.begin(&other, at).await.unwrap(),
        BeginOutcome::Existing(_)
    ));
    let same = lock("k", "fp", "o2", at);
    assert!(takeable(Some(&dead), &same.fingerprint, at));
    assert_eq!(s.begin(&same, at).await.unwrap(), BeginOutcome::Acquired);
    // the dead request's late answer is not stored over the new owner's lock
    assert!(!s.complete(&dead.key, "o1", &answer(200)).await.unwrap());
    assert!(!s.release(&dead.key, "o1").await.unwrap());
    assert_eq!(s.get(&dead.key).await.unwrap(), Some(same));
}

#[tokio::test]
async fn an_expired_record_counts_as_absent_before_ttl_deletes_it() {
    let s = store("idem-ttl").await;
    let old = lock("k", "fp", "o1", T0);
    s.begin(&old, T0).await.unwrap();
    s.complete(&old.key, "o1", &answer(200)).await.unwrap();
    // one millisecond before expiry the key is held; at expiry it is free, for any request
    let before = old.expires_at.plus_millis(-1);
    let fresh = lock("k", "new", "o2", before);
    assert!(matches!(
        s.begin(&fresh, before).await.unwrap(),
        BeginOutcome::Existing(_)
    ));
    let at = old.expires_at;
    let fresh = lock("k", "new", "o2", at);
    assert_eq!(s.begin(&fresh, at).await.unwrap(), BeginOutcome::Acquired);
    assert_eq!(s.get(&old.key).await.unwrap(), Some(fresh));
}

#[tokio::test]
async fn a_lock_is_released_by_its_owner_only() {
    let s = store("idem-release").await;
    let l = lock("k", "fp", "o1", T0);
    s.begin(&l, T0).await.unwrap();
    assert!(!s.release(&l.key, "o2").await.unwrap());
    assert!(s.release(&l.key, "o1").await.unwrap());
    assert_eq!(s.get(&l.key).await.unwrap(), None);
    // a retried release (its first answer lost) finds nothing to delete
    assert!(!s.release(&l.key, "o1").await.unwrap());
    assert_eq!(s.begin(&l, T0).await.unwrap(), BeginOutcome::Acquired);
}
