//! Per-account bank credentials: the value and the port live in the domain
//! (`paygate_domain::credentials`), the Secrets Manager adapter in `paygate_aws::secrets`;
//! here, the in-memory store the protocol tests use.

use std::{collections::HashMap, sync::Mutex};

use async_trait::async_trait;
pub use paygate_domain::credentials::{AccountCredentials, CredentialStore};
use paygate_domain::{AccountId, StoreError};

/// Credentials in memory (tests).
#[derive(Default)]
pub struct MemoryCredentials(Mutex<HashMap<AccountId, AccountCredentials>>);

impl MemoryCredentials {
    pub fn insert(&self, account: AccountId, creds: AccountCredentials) {
        if let Ok(mut m) = self.0.lock() {
            m.insert(account, creds);
        }
    }
}

#[async_trait]
impl CredentialStore for MemoryCredentials {
    async fn credentials(&self, account: &AccountId) -> Result<AccountCredentials, StoreError> {
        self.0
            .lock()
            .ok()
            .and_then(|m| m.get(account).cloned())
            .ok_or_else(|| StoreError::Corrupt(format!("no bank credentials for {account}")))
    }
}
