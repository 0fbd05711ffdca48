#![allow(clippy::unwrap_used)]

use std::sync::atomic::{AtomicU32, Ordering};

use paygate_domain::{
    ids::ApiKeyId,
    ports::ApiKeyAdmin,
    testkit::{ManualClock, MemoryAccounts, MemoryKeys, T0},
    Mode, OperationSet,
};

use super::*;
use crate::auth::{authenticate, hash_api_key, AuthError};

const KEY: &str = "sk_test_0123456789abcdefABCDEF";

/// Counts the reads that reach the store behind a cache.
#[derive(Default)]
struct Counted<T> {
    inner: T,
    reads: AtomicU32,
}

impl<T> Counted<T> {
    fn reads(&self) -> u32 {
        self.reads.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl ApiKeyLookup for Counted<MemoryKeys> {
    async fn find_key(&self, h: &str) -> Result<Option<ApiKeyRecord>, StoreError> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        self.inner.find_key(h).await
    }
    async fn touch_key(&self, h: &str, now: Timestamp) -> Result<(), StoreError> {
        self.inner.touch_key(h, now).await
    }
}

#[async_trait]
impl AccountLookup for Counted<MemoryAccounts> {
    async fn get_account(
        &self,
        m: &MerchantId,
        id: &AccountId,
    ) -> Result<Option<PosAccount>, StoreError> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        self.inner.get_account(m, id).await
    }
    async fn list_accounts(&self, m: &MerchantId) -> Result<Vec<PosAccount>, StoreError> {
        self.inner.list_accounts(m).await
    }
}

fn keys() -> (Arc<Counted<MemoryKeys>>, Arc<ManualClock>, CachedKeys) {
    let store = Arc::new(Counted::<MemoryKeys>::default());
    store.inner.insert(
        &hash_api_key(KEY),
        ApiKeyRecord {
            key_id: ApiKeyId::parse("key_1").unwrap(),
            merchant_id: MerchantId::parse("mch_1").unwrap(),
            mode: Mode::Test,
            active: true,
            expires_at: None,
            last_used_at: None,
        },
    );
    let clock = Arc::new(ManualClock::at(T0));
    let cached = CachedKeys::new(store.clone(), clock.clone());
    (store, clock, cached)
}

#[tokio::test]
async fn a_found_key_is_read_once_per_ttl_and_a_revocation_lands_within_it() {
    let (store, clock, cached) = keys();
    let bearer = format!("Bearer {KEY}");
    for _ in 0..3 {
        authenticate(&cached, Some(&bearer), clock.now())
            .await
            .unwrap();
    }
    assert_eq!(store.reads(), 1, "a warm request reads no key");
    // lastUsedAt: written by the first request only (the cache remembers it).
    assert_eq!(store.inner.all()[0].1.last_used_at, Some(T0));

    let m = MerchantId::parse("mch_1").unwrap();
    let id = ApiKeyId::parse("key_1").unwrap();
    store.inner.revoke_key(&m, &id, clock.now()).await.unwrap();
    clock.advance_millis(KEY_CACHE_TTL_MS - 1);
    assert!(
        authenticate(&cached, Some(&bearer), clock.now())
            .await
            .is_ok(),
        "the documented revocation delay"
    );
    clock.advance_millis(1);
    assert_eq!(
        authenticate(&cached, Some(&bearer), clock.now()).await,
        Err(AuthError::Invalid)
    );
    assert_eq!(store.reads(), 2);
    // The revoked record is what is cached now: refused without another read.
    assert_eq!(
        authenticate(&cached, Some(&bearer), clock.now()).await,
        Err(AuthError::Invalid)
    );
    assert_eq!(store.reads(), 2);
}

#[tokio::test]
async fn a_cached_key_still_expires_at_its_expiry_and_unknown_keys_are_not_cached() {
    let (store, clock, cached) = keys();
    let bearer = format!("Bearer {KEY}");
    let m = MerchantId::parse("mch_1").unwrap();
    let id = ApiKeyId::parse("key_1").unwrap();
    let exp = T0.plus_millis(10_000);
    store
        .inner
        .set_key_expiry(&m, &id, exp, None)
        .await
        .unwrap();
    authenticate(&cached, Some(&bearer), clock.now())
        .await
        .unwrap();
    clock.advance_millis(10_000);
    assert_eq!(
        authenticate(&cached, Some(&bearer), clock.now()).await,
        Err(AuthError::Invalid),
        "expiry is checked on the cached record"
    );
    assert_eq!(store.reads(), 1);
    let unknown = "Bearer sk_test_0123456789abcdefXXXXXX";
    let _ = authenticate(&cached, Some(unknown), clock.now()).await;
    let _ = authenticate(&cached, Some(unknown), clock.now()).await;
    assert_eq!(store.reads(), 3);
}

#[tokio::test]
async fn a_found_account_is_read_once_per_ttl_and_a_missing_one_every_time() {
    let store = Arc::new(Counted::<MemoryAccounts>::default());
    let m = MerchantId::parse("mch_a").unwrap();
    let id = AccountId::parse("acc_1").unwrap();
    store.inner.insert(PosAccount {
        id: id.clone(),
        merchant_id: m.clone(),
        provider_code: "simulator".into(),
        bank_code: "0064".into(),
        bank_name: "Türkiye İş Bankası".into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: Mode::Test,
    });
    let clock = Arc::new(ManualClock::at(T0));
    let cached = CachedAccounts::new(store.clone(), clock.clone());
    for _ in 0..3 {
        assert!(cached.get_account(&m, &id).await.unwrap().is_some());
    }
    assert_eq!(store.reads(), 1);
    clock.advance_millis(ACCOUNT_CACHE_TTL_MS);
    assert!(cached.get_account(&m, &id).await.unwrap().is_some());
    assert_eq!(store.reads(), 2, "read again once the TTL is over");
    let missing = AccountId::parse("acc_2").unwrap();
    assert!(cached.get_account(&m, &missing).await.unwrap().is_none());
    assert!(cached.get_account(&m, &missing).await.unwrap().is_none());
    assert_eq!(store.reads(), 4);
    // Another merchant's id is its own entry (tenancy).
    let other = MerchantId::parse("mch_b").unwrap();
    assert!(cached.get_account(&other, &id).await.unwrap().is_none());
}
