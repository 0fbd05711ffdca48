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

/// An account's protocol configuration: its credentials read and parsed by `parse`. The
/// error ([`crate::CallError::Config`]) names what is wrong, never a value; nothing was
/// sent.
pub async fn account_config<T, E: std::fmt::Display>(
    store: &dyn CredentialStore,
    account: &AccountId,
    parse: impl FnOnce(&AccountCredentials) -> Result<T, E>,
) -> Result<T, crate::CallError> {
    let config = |e: &dyn std::fmt::Display| crate::CallError::Config(e.to_string());
    let creds = store.credentials(account).await.map_err(|e| config(&e))?;
    parse(&creds).map_err(|e| config(&e))
}
