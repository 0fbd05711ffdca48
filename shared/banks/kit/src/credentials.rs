//! Per-account bank credentials. Each POS account has one secret in Secrets Manager, named
//! `<prefix><accountId>` (prefix from `BANK_SECRET_PREFIX`, e.g. `paygate/dev/banks/`), whose
//! value is a JSON object: `{"endpointUrl": "https://…", "<key>": "<value>", …}` with the
//! protocol's keys (client id, user, password, store key, terminal id, PROVRFN password…).
//! Values never reach a log: `Debug` shows the keys only.

use std::{
    collections::{BTreeMap, HashMap},
    sync::Mutex,
    time::{Duration, Instant},
};

use async_trait::async_trait;
use paygate_domain::{AccountId, StoreError};

/// An account's bank endpoint and credentials.
#[derive(Clone, PartialEq, Eq)]
pub struct AccountCredentials {
    pub endpoint_url: String,
    values: BTreeMap<String, String>,
}

impl AccountCredentials {
    pub fn new(
        endpoint_url: impl Into<String>,
        values: impl IntoIterator<Item = (String, String)>,
    ) -> Self {
        Self {
            endpoint_url: endpoint_url.into(),
            values: values.into_iter().collect(),
        }
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }

    /// A required value; the error names the key, never a value.
    pub fn require(&self, key: &str) -> Result<&str, StoreError> {
        self.get(key)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| StoreError::Corrupt(format!("bank credentials lack `{key}`")))
    }

    fn from_json(text: &str) -> Result<Self, StoreError> {
        let map: BTreeMap<String, serde_json::Value> = serde_json::from_str(text)
            .map_err(|_| StoreError::Corrupt("bank credentials are not a JSON object".into()))?;
        let mut endpoint = None;
        let mut values = BTreeMap::new();
        for (k, v) in map {
            let v = match v {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            if k == "endpointUrl" {
                endpoint = Some(v);
            } else {
                values.insert(k, v);
            }
        }
        let endpoint_url = endpoint
            .ok_or_else(|| StoreError::Corrupt("bank credentials lack `endpointUrl`".into()))?;
        Ok(Self {
            endpoint_url,
            values,
        })
    }

    /// The JSON document stored in Secrets Manager.
    pub fn to_json(&self) -> String {
        let mut m: BTreeMap<&str, &str> = self
            .values
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        m.insert("endpointUrl", &self.endpoint_url);
        serde_json::to_string(&m).unwrap_or_default()
    }
}

impl std::fmt::Debug for AccountCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccountCredentials")
            .field("endpoint_url", &self.endpoint_url)
            .field("keys", &self.values.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Where adapters get an account's credentials.
#[async_trait]
pub trait CredentialStore: Send + Sync {
    async fn credentials(&self, account: &AccountId) -> Result<AccountCredentials, StoreError>;
}

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

/// Credentials in Secrets Manager, cached in-process for `ttl`.
pub struct SecretsManagerCredentials {
    client: aws_sdk_secretsmanager::Client,
    prefix: String,
    ttl: Duration,
    cache: Mutex<HashMap<AccountId, (Instant, AccountCredentials)>>,
}

impl SecretsManagerCredentials {
    pub fn new(
        client: aws_sdk_secretsmanager::Client,
        prefix: impl Into<String>,
        ttl: Duration,
    ) -> Self {
        Self {
            client,
            prefix: prefix.into(),
            ttl,
            cache: Mutex::new(HashMap::new()),
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
        if let Ok(mut c) = self.cache.lock() {
            c.remove(account);
        }
        Ok(())
    }
}

#[async_trait]
impl CredentialStore for SecretsManagerCredentials {
    async fn credentials(&self, account: &AccountId) -> Result<AccountCredentials, StoreError> {
        if let Some(hit) = self.cache.lock().ok().and_then(|c| {
            c.get(account)
                .filter(|(at, _)| at.elapsed() < self.ttl)
                .map(|(_, v)| v.clone())
        }) {
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
        if let Ok(mut c) = self.cache.lock() {
            c.insert(account.clone(), (Instant::now(), creds.clone()));
        }
        Ok(creds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_keys_not_values() {
        let c = AccountCredentials::from_json(
            r#"{"endpointUrl":"https://bank.example/api","password":"s3cr3t","storeKey":"SK"}"#,
        )
        .unwrap();
        let shown = format!("{c:?}");
        assert!(
            shown.contains("password") && !shown.contains("s3cr3t") && !shown.contains("\"SK\"")
        );
        assert_eq!(c.require("password").unwrap(), "s3cr3t");
        assert!(c
            .require("missing")
            .unwrap_err()
            .to_string()
            .contains("missing"));
        assert_eq!(AccountCredentials::from_json(&c.to_json()).unwrap(), c);
    }
}
