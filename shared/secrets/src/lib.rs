//! Webhook signing secrets in Secrets Manager, cached in-process with a TTL.
//!
//! One secret per endpoint, its value a JSON document:
//! `{"current": "whsec_…", "previous": [{"secret": "whsec_…", "expiresAt": "<ISO 8601>"}]}`.
//! During a rotation's grace period the previous secret still signs (a second `v1=`).
//! Secret values never reach a log: errors carry the secret's id only.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

use async_trait::async_trait;
use aws_sdk_secretsmanager::config::{retry::RetryConfig, BehaviorVersion, Credentials, Region};
pub use aws_sdk_secretsmanager::Client;
use paygate_domain::{ports::SigningSecrets, StoreError, Timestamp};
use serde::{Deserialize, Serialize};

/// How long a read secret is reused before Secrets Manager is asked again. A rotation is
/// picked up by every sender within this time; the old secret keeps signing meanwhile.
pub const DEFAULT_TTL: Duration = Duration::from_secs(300);

/// The stored document.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretDoc {
    pub current: String,
    #[serde(default)]
    pub previous: Vec<PreviousSecret>,
}

#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreviousSecret {
    pub secret: String,
    pub expires_at: Timestamp,
}

impl std::fmt::Debug for SecretDoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretDoc")
            .field("current", &"[redacted]")
            .field("previous", &self.previous.len())
            .finish()
    }
}

impl SecretDoc {
    /// The secrets that sign at `now`: the current one, then unexpired previous ones.
    pub fn valid_at(&self, now: Timestamp) -> Vec<String> {
        let mut v = vec![self.current.clone()];
        v.extend(
            self.previous
                .iter()
                .filter(|p| p.expires_at > now)
                .map(|p| p.secret.clone()),
        );
        v
    }

    /// The document after rotating to `new`: the old current secret keeps signing until
    /// `now + grace` (not at all with a zero grace); expired ones are dropped.
    pub fn rotated(&self, new: String, now: Timestamp, grace_ms: i64) -> Self {
        let mut previous: Vec<PreviousSecret> = self
            .previous
            .iter()
            .filter(|p| p.expires_at > now)
            .cloned()
            .collect();
        if grace_ms > 0 {
            previous.insert(
                0,
                PreviousSecret {
                    secret: self.current.clone(),
                    expires_at: now.plus_millis(grace_ms),
                },
            );
        }
        Self {
            current: new,
            previous,
        }
    }
}

/// A client for a local endpoint (moto, the dev server): static test credentials and the
/// deployed functions' retries (standard mode, three attempts, as the SDK default).
pub fn client_for_endpoint(endpoint: &str, region: &str) -> Client {
    let conf = aws_sdk_secretsmanager::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(endpoint)
        .region(Region::new(region.to_owned()))
        .credentials_provider(Credentials::new("test", "test", None, None, "static"))
        .retry_config(RetryConfig::standard().with_max_attempts(3))
        .build();
    Client::from_conf(conf)
}

pub async fn client_from_env() -> Client {
    let conf = aws_config::load_defaults(BehaviorVersion::latest()).await;
    Client::new(&conf)
}

fn unavailable(op: &str, id: &str, e: &impl std::fmt::Display) -> StoreError {
    tracing::warn!(op, secret_id = id, error = %e, "secrets manager call failed");
    StoreError::Unavailable(format!("secrets manager {op} failed"))
}

/// Signing secrets from Secrets Manager with an in-process TTL cache.
pub struct SecretsManagerSigning {
    client: Client,
    ttl: Duration,
    cache: Mutex<HashMap<String, (Instant, SecretDoc)>>,
}

impl SecretsManagerSigning {
    pub fn new(client: Client, ttl: Duration) -> Self {
        Self {
            client,
            ttl,
            cache: Mutex::new(HashMap::new()),
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
        if let Ok(mut c) = self.cache.lock() {
            c.remove(secret_id);
        }
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
        if let Ok(mut c) = self.cache.lock() {
            c.remove(secret_id);
        }
        Ok(())
    }
}

#[async_trait]
impl SigningSecrets for SecretsManagerSigning {
    async fn signing_secrets(
        &self,
        secret_id: &str,
        now: Timestamp,
    ) -> Result<Vec<String>, StoreError> {
        let cached = self.cache.lock().ok().and_then(|c| {
            c.get(secret_id)
                .filter(|(at, _)| at.elapsed() < self.ttl)
                .map(|(_, d)| d.clone())
        });
        let doc = match cached {
            Some(d) => d,
            None => {
                let d = self.read(secret_id).await?;
                if let Ok(mut c) = self.cache.lock() {
                    c.insert(secret_id.to_owned(), (Instant::now(), d.clone()));
                }
                d
            }
        };
        Ok(doc.valid_at(now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: Timestamp = Timestamp::from_unix_millis(1_795_251_600_000);

    #[test]
    fn rotation_keeps_the_old_secret_for_the_grace_period_only() {
        let doc = SecretDoc {
            current: "whsec_a".into(),
            previous: vec![],
        };
        let r = doc.rotated("whsec_b".into(), T0, 86_400_000);
        assert_eq!(r.valid_at(T0), ["whsec_b", "whsec_a"]);
        assert_eq!(r.valid_at(T0.plus_millis(86_400_001)), ["whsec_b"]);
        let now = doc.rotated("whsec_c".into(), T0, 0);
        assert_eq!(now.valid_at(T0), ["whsec_c"]);
    }

    #[test]
    fn debug_never_shows_secrets() {
        let doc = SecretDoc {
            current: "whsec_topsecret".into(),
            previous: vec![],
        };
        assert!(!format!("{doc:?}").contains("topsecret"));
    }
}
