//! The points per-card limit's HMAC key (`paygate_domain::throttle::card`) in Secrets
//! Manager: one secret per stack (the template's `CardKeySecret`, generated at deploy),
//! read on the first points inquiry of a function instance and kept for the instance's life.
//! A failed read is not kept: the next inquiry reads again (meanwhile inquiries fail closed).

use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use paygate_domain::{
    throttle::card::{CardKey, CardKeySource},
    StoreError,
};

use super::{unavailable, Client};

/// The key in the secret `secret_id` (name or ARN): the secret string's bytes, at least
/// 32 of them.
pub struct SecretsManagerCardKey {
    client: Client,
    secret_id: String,
    key: Mutex<Option<Arc<CardKey>>>,
}

impl SecretsManagerCardKey {
    pub fn new(client: Client, secret_id: impl Into<String>) -> Self {
        Self {
            client,
            secret_id: secret_id.into(),
            key: Mutex::new(None),
        }
    }

    /// Creates the secret with `value` unless it exists (the local stack's key; deployed,
    /// the template generates it). Returns whether it was created.
    pub async fn create_if_absent(&self, value: &str) -> Result<bool, StoreError> {
        let found = self
            .client
            .describe_secret()
            .secret_id(&self.secret_id)
            .send()
            .await;
        if found.is_ok() {
            return Ok(false);
        }
        self.client
            .create_secret()
            .name(&self.secret_id)
            .secret_string(value)
            .send()
            .await
            .map_err(|e| unavailable("CreateSecret", &self.secret_id, &e))?;
        Ok(true)
    }

    fn kept(&self) -> Option<Arc<CardKey>> {
        self.key
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

#[async_trait]
impl CardKeySource for SecretsManagerCardKey {
    async fn card_key(&self) -> Result<Arc<CardKey>, StoreError> {
        if let Some(k) = self.kept() {
            return Ok(k);
        }
        let out = self
            .client
            .get_secret_value()
            .secret_id(&self.secret_id)
            .send()
            .await
            .map_err(|e| unavailable("GetSecretValue", &self.secret_id, &e))?;
        let key = out
            .secret_string()
            .and_then(|s| CardKey::new(s.as_bytes()))
            .ok_or_else(|| {
                tracing::error!(
                    secret_id = %self.secret_id,
                    "the card key secret is not a string of at least 32 bytes"
                );
                StoreError::Unavailable("card key secret malformed".into())
            })?;
        let key = Arc::new(key);
        *self.key.lock().unwrap_or_else(PoisonError::into_inner) = Some(key.clone());
        Ok(key)
    }
}
