//! Read-mostly lookups: API keys, POS accounts (and the merchant directory over them), BINs.

use std::{collections::HashMap, sync::Mutex};

use crate::{
    apikey::ApiKey,
    ids::ApiKeyId,
    ports::{AccountLookup, ApiKeyAdmin, ApiKeyLookup, BinLookup, MerchantDirectory},
    AccountId, ApiKeyRecord, BinInfo, MerchantId, PosAccount, StoreError, Timestamp,
};
use async_trait::async_trait;

/// API keys by hash, with the adapter's conditions.
#[derive(Default)]
pub struct MemoryKeys {
    keys: Mutex<HashMap<String, ApiKey>>,
    /// Upcoming writes (create, expiry, revoke) that are made but answer an error.
    lost_answers: Mutex<u32>,
    /// Touches that fail (the store is down for them).
    failing_touches: Mutex<bool>,
}

impl MemoryKeys {
    /// Stores a key record (seeding): a key with no name, created at the epoch.
    pub fn insert(&self, hash: &str, rec: ApiKeyRecord) {
        let key = ApiKey {
            id: rec.key_id,
            merchant_id: rec.merchant_id,
            mode: rec.mode,
            name: String::new(),
            last4: String::new(),
            created_at: Timestamp::from_unix_millis(0),
            expires_at: rec.expires_at,
            last_used_at: rec.last_used_at,
            revoked_at: (!rec.active).then(|| Timestamp::from_unix_millis(0)),
        };
        self.keys.lock().unwrap().insert(hash.to_owned(), key);
    }

    /// Every stored key with its hash.
    pub fn all(&self) -> Vec<(String, ApiKey)> {
        self.keys
            .lock()
            .unwrap()
            .iter()
            .map(|(h, k)| (h.clone(), k.clone()))
            .collect()
    }

    /// The next `n` writes are made but their answer is lost (an error).
    pub fn lose_answers(&self, n: u32) {
        *self.lost_answers.lock().unwrap() = n;
    }

    /// Makes every `touch_key` fail (or work again).
    pub fn fail_touches(&self, failing: bool) {
        *self.failing_touches.lock().unwrap() = failing;
    }

    fn answer<T>(&self, v: T) -> Result<T, StoreError> {
        let mut lost = self.lost_answers.lock().unwrap();
        if *lost > 0 {
            *lost -= 1;
            return Err(StoreError::Unavailable("injected lost answer".into()));
        }
        Ok(v)
    }
}

#[async_trait]
impl ApiKeyLookup for MemoryKeys {
    async fn find_key(&self, hash: &str) -> Result<Option<ApiKeyRecord>, StoreError> {
        Ok(self.keys.lock().unwrap().get(hash).map(ApiKey::record))
    }

    async fn touch_key(&self, hash: &str, now: Timestamp) -> Result<(), StoreError> {
        if *self.failing_touches.lock().unwrap() {
            return Err(StoreError::Unavailable("injected touch failure".into()));
        }
        if let Some(k) = self.keys.lock().unwrap().get_mut(hash) {
            if k.record().needs_touch(now) {
                k.last_used_at = Some(now);
            }
        }
        Ok(())
    }
}

#[async_trait]
impl ApiKeyAdmin for MemoryKeys {
    async fn create_key(&self, hash: &str, key: &ApiKey) -> Result<(), StoreError> {
        {
            let mut keys = self.keys.lock().unwrap();
            if keys.contains_key(hash) {
                return Err(StoreError::AlreadyExists);
            }
            keys.insert(hash.to_owned(), key.clone());
        }
        self.answer(())
    }

    async fn list_keys(&self, merchant: &MerchantId) -> Result<Vec<ApiKey>, StoreError> {
        let mut v: Vec<ApiKey> = self
            .keys
            .lock()
            .unwrap()
            .values()
            .filter(|k| &k.merchant_id == merchant)
            .cloned()
            .collect();
        v.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        Ok(v)
    }

    async fn get_key(
        &self,
        merchant: &MerchantId,
        id: &ApiKeyId,
    ) -> Result<Option<ApiKey>, StoreError> {
        Ok(self
            .keys
            .lock()
            .unwrap()
            .values()
            .find(|k| &k.merchant_id == merchant && &k.id == id)
            .cloned())
    }

    async fn set_key_expiry(
        &self,
        merchant: &MerchantId,
        id: &ApiKeyId,
        expires_at: Timestamp,
        expected: Option<Timestamp>,
    ) -> Result<(), StoreError> {
        {
            let mut keys = self.keys.lock().unwrap();
            match keys
                .values_mut()
                .find(|k| &k.merchant_id == merchant && &k.id == id)
            {
                Some(k) if k.revoked_at.is_none() && k.expires_at == expected => {
                    k.expires_at = Some(expires_at);
                }
                _ => return Err(StoreError::Conflict { current: None }),
            }
        }
        self.answer(())
    }

    async fn revoke_key(
        &self,
        merchant: &MerchantId,
        id: &ApiKeyId,
        at: Timestamp,
    ) -> Result<Option<ApiKey>, StoreError> {
        let out = {
            let mut keys = self.keys.lock().unwrap();
            keys.values_mut()
                .find(|k| &k.merchant_id == merchant && &k.id == id)
                .map(|k| {
                    if k.revoked_at.is_none() {
                        k.revoked_at = Some(at);
                    }
                    k.clone()
                })
        };
        self.answer(out)
    }
}

/// POS accounts.
#[derive(Default)]
pub struct MemoryAccounts(Mutex<Vec<PosAccount>>);

impl MemoryAccounts {
    pub fn insert(&self, a: PosAccount) {
        self.0.lock().unwrap().push(a);
    }
}

#[async_trait]
impl AccountLookup for MemoryAccounts {
    async fn get_account(
        &self,
        merchant: &MerchantId,
        id: &AccountId,
    ) -> Result<Option<PosAccount>, StoreError> {
        Ok(self
            .0
            .lock()
            .unwrap()
            .iter()
            .find(|a| &a.merchant_id == merchant && &a.id == id)
            .cloned())
    }

    async fn list_accounts(&self, merchant: &MerchantId) -> Result<Vec<PosAccount>, StoreError> {
        let mut v: Vec<_> = self
            .0
            .lock()
            .unwrap()
            .iter()
            .filter(|a| &a.merchant_id == merchant)
            .cloned()
            .collect();
        v.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(v)
    }
}

#[async_trait]
impl crate::daily::AllAccounts for MemoryAccounts {
    async fn all_accounts(&self) -> Result<Vec<PosAccount>, StoreError> {
        let mut v = self.0.lock().unwrap().clone();
        v.sort_by(|a, b| (&a.merchant_id, &a.id).cmp(&(&b.merchant_id, &b.id)));
        Ok(v)
    }
}

/// A merchant exists when it has a POS account, as with the DynamoDB adapter.
#[async_trait]
impl MerchantDirectory for MemoryAccounts {
    async fn merchant_exists(&self, merchant: &MerchantId) -> Result<bool, StoreError> {
        Ok(self
            .0
            .lock()
            .unwrap()
            .iter()
            .any(|a| &a.merchant_id == merchant))
    }
}

/// The BIN table.
#[derive(Default)]
pub struct MemoryBins(Mutex<HashMap<String, BinInfo>>);

impl MemoryBins {
    pub fn insert(&self, b: BinInfo) {
        self.0.lock().unwrap().insert(b.bin.clone(), b);
    }
}

#[async_trait]
impl BinLookup for MemoryBins {
    async fn find_bin(&self, bin: &str) -> Result<Option<BinInfo>, StoreError> {
        Ok(self.0.lock().unwrap().get(bin).cloned())
    }
}
