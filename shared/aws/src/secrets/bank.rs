//! Per-account bank credentials in Secrets Manager (`<prefix><accountId>`), cached
//! in-process.

use std::time::Duration;

use async_trait::async_trait;
use paygate_domain::{
    credentials::{AccountCredentials, CredentialStore},
    AccountId, StoreError,
};

use super::Client;
use crate::cache::TtlCache;

/// Credentials in Secrets Manager, cached in-process for `ttl`.
pub struct SecretsManagerCredentials {
    client: Client,
    prefix: String,
    cache: TtlCache<AccountId, AccountCredentials>,
}

impl SecretsManagerCredentials {
    pub fn new(client: Client, prefix: impl Into<String>, ttl: Duration) -> Self {
        Self {
            client,
            prefix: prefix.into(),
            cache: TtlCache::new(ttl),
        }
    }

    /// The secret name of an account.
    pub fn secret_name(&self, account: &AccountId) -> String {
        format!("{}{}", self.prefix, account)
    }

    /// Stores an account's credentials (seeding, operations tooling).
    pub async fn put(
        &self,
        account: &AccountId,
        creds: &AccountCredentials,
    ) -> Result<(), StoreError> {
        let name = self.secret_name(account);
        let created = self
            .client
            .create_secret()
            .name(&name)
            .secret_string(creds.to_json())
            .send()
            .await;
        if created.is_err() {
            self.client
                .put_secret_value()
                .secret_id(&name)
                .secret_string(creds.to_json())
                .send()
                .await
                .map_err(|e| {
                    tracing::warn!(secret = %name, error = %e, "storing bank credentials failed");
                    StoreError::Unavailable("secrets manager PutSecretValue failed".into())
                })?;
        }
        self.cache.remove(account);
        Ok(())
    }
}

#[async_trait]
impl CredentialStore for SecretsManagerCredentials {
    async fn credentials(&self, account: &AccountId) -> Result<AccountCredentials, StoreError> {
        if let Some(hit) = self.cache.get(account) {
            return Ok(hit);
        }
        let name = self.secret_name(account);
        let out = self
            .client
            .get_secret_value()
            .secret_id(&name)
            .send()
            .await
            .map_err(|e| {
                tracing::warn!(secret = %name, error = %e, "reading bank credentials failed");
                StoreError::Unavailable("secrets manager GetSecretValue failed".into())
            })?;
        let creds = AccountCredentials::from_json(out.secret_string().unwrap_or_default())?;
        self.cache.insert(account.clone(), creds.clone());
        Ok(creds)
    }
}
