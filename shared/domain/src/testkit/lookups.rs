//! Read-mostly lookups: API keys, POS accounts (and the merchant directory over them), BINs.

use std::{collections::HashMap, sync::Mutex};

use crate::{
    ports::{AccountLookup, ApiKeyLookup, BinLookup, MerchantDirectory},
    AccountId, ApiKeyRecord, BinInfo, MerchantId, PosAccount, StoreError,
};
use async_trait::async_trait;

/// API keys by hash.
#[derive(Default)]
pub struct MemoryKeys(Mutex<HashMap<String, ApiKeyRecord>>);

impl MemoryKeys {
    pub fn insert(&self, hash: &str, rec: ApiKeyRecord) {
        self.0.lock().unwrap().insert(hash.to_owned(), rec);
    }
}

#[async_trait]
impl ApiKeyLookup for MemoryKeys {
    async fn find_key(&self, hash: &str) -> Result<Option<ApiKeyRecord>, StoreError> {
        Ok(self.0.lock().unwrap().get(hash).cloned())
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
