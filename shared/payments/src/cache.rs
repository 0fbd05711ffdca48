//! Per-container read caches in front of two lookups every warm request made once per
//! request: the authorizer's API key and a money operation's POS account. Each saves one
//! DynamoDB read per request (issue 20, "AWS round trips").
//!
//! Both keep only what was found, for a short time read from the injected clock, and only
//! in this function instance (a Lambda container):
//!
//! - [`CachedKeys`] (the authorizer): a found key for [`KEY_CACHE_TTL_MS`] (30 s). Expiry is
//!   still checked on every request against the cached `expiresAt`, so a rolled key stops
//!   at its expiry as before; a **revocation** (or a roll's new expiry) reaches a container
//!   that cached the key within the TTL. An unknown key is read every time (nothing is
//!   cached for it). `lastUsedAt` is still written at most once a minute per key and
//!   container (the cached record remembers the write).
//! - [`CachedAccounts`] (capture, cancel, refund, query): a found POS account for
//!   [`ACCOUNT_CACHE_TTL_MS`] (60 s). Accounts have no version and no disabled flag; they are
//!   changed by hand (seed, operations), and a change (provider, supported operations,
//!   mode) reaches every container within the TTL — less than the bank credentials' own
//!   cache (`PAYGATE_BANK_CREDENTIALS_CACHE_SECS`, five minutes). Whatever the cache says,
//!   the rules that keep money safe run on every request: the account must serve the
//!   payment's mode, support the operation, and the reservation is a conditional write on
//!   the payment (which is never cached). A missing account is read every time.
//!
//! Each cache is bounded ([`MAX_ENTRIES`]): when full it starts again empty.

use std::{collections::HashMap, sync::Arc, sync::Mutex};

use async_trait::async_trait;
use paygate_domain::{
    ports::{AccountLookup, ApiKeyLookup, Clock},
    AccountId, ApiKeyRecord, MerchantId, PosAccount, StoreError, Timestamp,
};

/// How long a container reuses a found API key (the revocation delay).
pub const KEY_CACHE_TTL_MS: i64 = 30_000;
/// How long a container reuses a found POS account.
pub const ACCOUNT_CACHE_TTL_MS: i64 = 60_000;
/// Most entries one cache holds before it is emptied.
pub const MAX_ENTRIES: usize = 4096;

/// Values by key, each reused for `ttl_ms` of the clock after it was read.
struct ClockCache<K, V> {
    ttl_ms: i64,
    clock: Arc<dyn Clock>,
    entries: Mutex<HashMap<K, (Timestamp, V)>>,
}

impl<K: Eq + std::hash::Hash, V: Clone> ClockCache<K, V> {
    fn new(ttl_ms: i64, clock: Arc<dyn Clock>) -> Self {
        Self {
            ttl_ms,
            clock,
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn get(&self, key: &K) -> Option<V> {
        let now = self.clock.now().unix_millis();
        let entries = self.entries.lock().ok()?;
        let (at, v) = entries.get(key)?;
        let age = now - at.unix_millis();
        // A clock that went backwards does not extend an entry's life either.
        ((0..self.ttl_ms).contains(&age)).then(|| v.clone())
    }

    fn insert(&self, key: K, value: V) {
        let now = self.clock.now();
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
            entries.insert(key, (now, value));
        }
    }

    /// Changes a cached value in place, keeping when it was read.
    fn update(&self, key: &K, f: impl FnOnce(&mut V)) {
        if let Ok(mut entries) = self.entries.lock() {
            if let Some((_, v)) = entries.get_mut(key) {
                f(v);
            }
        }
    }
}

/// The authorizer's key lookup with found keys reused for [`KEY_CACHE_TTL_MS`]. See the
/// module documentation.
pub struct CachedKeys {
    inner: Arc<dyn ApiKeyLookup>,
    cache: ClockCache<String, ApiKeyRecord>,
}

impl CachedKeys {
    pub fn new(inner: Arc<dyn ApiKeyLookup>, clock: Arc<dyn Clock>) -> Self {
        Self {
            inner,
            cache: ClockCache::new(KEY_CACHE_TTL_MS, clock),
        }
    }
}

#[async_trait]
impl ApiKeyLookup for CachedKeys {
    async fn find_key(&self, key_sha256_hex: &str) -> Result<Option<ApiKeyRecord>, StoreError> {
        let hash = key_sha256_hex.to_owned();
        if let Some(hit) = self.cache.get(&hash) {
            return Ok(Some(hit));
        }
        let found = self.inner.find_key(key_sha256_hex).await?;
        if let Some(record) = &found {
            self.cache.insert(hash, record.clone());
        }
        Ok(found)
    }

    async fn touch_key(&self, key_sha256_hex: &str, now: Timestamp) -> Result<(), StoreError> {
        self.inner.touch_key(key_sha256_hex, now).await?;
        self.cache
            .update(&key_sha256_hex.to_owned(), |r| r.last_used_at = Some(now));
        Ok(())
    }
}

/// POS accounts with found ones reused for [`ACCOUNT_CACHE_TTL_MS`]. See the module
/// documentation.
pub struct CachedAccounts {
    inner: Arc<dyn AccountLookup>,
    cache: ClockCache<(MerchantId, AccountId), PosAccount>,
}

impl CachedAccounts {
    pub fn new(inner: Arc<dyn AccountLookup>, clock: Arc<dyn Clock>) -> Self {
        Self {
            inner,
            cache: ClockCache::new(ACCOUNT_CACHE_TTL_MS, clock),
        }
    }
}

#[async_trait]
impl AccountLookup for CachedAccounts {
    async fn get_account(
        &self,
        merchant: &MerchantId,
        id: &AccountId,
    ) -> Result<Option<PosAccount>, StoreError> {
        let key = (merchant.clone(), id.clone());
        if let Some(hit) = self.cache.get(&key) {
            return Ok(Some(hit));
        }
        let found = self.inner.get_account(merchant, id).await?;
        if let Some(account) = &found {
            self.cache.insert(key, account.clone());
        }
        Ok(found)
    }

    /// Not cached: listing is not on a money operation's path.
    async fn list_accounts(&self, merchant: &MerchantId) -> Result<Vec<PosAccount>, StoreError> {
        self.inner.list_accounts(merchant).await
    }
}

#[cfg(test)]
mod tests;
