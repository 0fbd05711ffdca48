//! Webhook signing secrets in Secrets Manager, cached in-process with a TTL.

use std::time::Duration;

use async_trait::async_trait;
use paygate_domain::{
    ports::SigningSecrets,
    secret::{SecretDoc, SecretVault},
    StoreError, Timestamp,
};

use super::{unavailable, Client};
use crate::cache::TtlCache;

/// Signing secrets from Secrets Manager with an in-process TTL cache.
pub struct SecretsManagerSigning {
    client: Client,
    cache: TtlCache<String, SecretDoc>,
}

impl SecretsManagerSigning {
    pub fn new(client: Client, ttl: Duration) -> Self {
        Self {
            client,
            cache: TtlCache::new(ttl),
        }
    }

    /// Reads the document (bypassing the cache).
    pub async fn read(&self, secret_id: &str) -> Result<SecretDoc, StoreError> {
        let out = self
            .client
            .get_secret_value()
            .secret_id(secret_id)
            .send()
            .await
            .map_err(|e| unavailable("GetSecretValue", secret_id, &e))?;
        let text = out
            .secret_string()
            .ok_or_else(|| StoreError::Corrupt(format!("secret {secret_id} has no string")))?;
        serde_json::from_str(text).map_err(|_| {
            StoreError::Corrupt(format!(
                "secret {secret_id} is not a signing secret document"
            ))
        })
    }

    /// Creates the secret for a new endpoint; returns its id (the ARN).
    pub async fn create(&self, name: &str, doc: &SecretDoc) -> Result<String, StoreError> {
        let body = serde_json::to_string(doc).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let out = self
            .client
            .create_secret()
            .name(name)
            .secret_string(body)
            .send()
            .await
            .map_err(|e| {
                let exists = e
                    .as_service_error()
                    .is_some_and(|se| se.is_resource_exists_exception());
                if exists {
                    StoreError::AlreadyExists
                } else {
                    unavailable("CreateSecret", name, &e)
                }
            })?;
        Ok(out.arn().unwrap_or(name).to_owned())
    }

    /// Replaces the document (rotation) and drops the cached copy.
    pub async fn put(&self, secret_id: &str, doc: &SecretDoc) -> Result<(), StoreError> {
        let body = serde_json::to_string(doc).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        self.client
            .put_secret_value()
            .secret_id(secret_id)
            .secret_string(body)
            .send()
            .await
            .map_err(|e| unavailable("PutSecretValue", secret_id, &e))?;
        self.cache.remove(secret_id);
        Ok(())
    }

    /// Deletes an endpoint's secret (no recovery window: the endpoint is gone).
    pub async fn delete(&self, secret_id: &str) -> Result<(), StoreError> {
        self.client
            .delete_secret()
            .secret_id(secret_id)
            .force_delete_without_recovery(true)
            .send()
            .await
            .map_err(|e| unavailable("DeleteSecret", secret_id, &e))?;
        self.cache.remove(secret_id);
        Ok(())
    }
}

#[async_trait]
impl SigningSecrets for SecretsManagerSigning {
    async fn signing_secrets(
        &self,
        secret_id: &str,
        version: u64,
        now: Timestamp,
    ) -> Result<Vec<String>, StoreError> {
        // A cached copy older than the endpoint's secret version is never used: the rotation
        // reaches the very next delivery, whatever the TTL. (A document still older than
        // `version` after the read is a rotation not yet written: its secrets are the ones
        // the merchant holds until the rotation answers.)
        let doc = match self.cache.get(secret_id).filter(|d| d.version >= version) {
            Some(d) => d,
            None => {
                let d = self.read(secret_id).await?;
                self.cache.insert(secret_id.to_owned(), d.clone());
                d
            }
        };
        Ok(doc.valid_at(now))
    }
}

/// The admin API's vault. The endpoint stores the secret's *name*: the deliver function's
/// IAM policy grants `paygate/<stage>/webhooks/*` by name.
#[async_trait]
impl SecretVault for SecretsManagerSigning {
    async fn create_secret(&self, name: &str, doc: &SecretDoc) -> Result<String, StoreError> {
        self.create(name, doc).await?;
        Ok(name.to_owned())
    }

    async fn read_secret(&self, id: &str) -> Result<SecretDoc, StoreError> {
        self.read(id).await
    }

    async fn put_secret(&self, id: &str, doc: &SecretDoc) -> Result<(), StoreError> {
        self.put(id, doc).await
    }

    async fn delete_secret(&self, id: &str) -> Result<(), StoreError> {
        self.delete(id).await
    }
}
