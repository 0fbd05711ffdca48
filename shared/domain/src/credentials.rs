//! Per-account bank credentials. Each POS account has one secret in Secrets Manager, named
//! `<prefix><accountId>` (prefix from `BANK_SECRET_PREFIX`, e.g. `paygate/dev/banks/`), whose
//! value is a JSON object: `{"endpointUrl": "https://…", "<key>": "<value>", …}` with the
//! protocol's keys (client id, user, password, store key, terminal id, PROVRFN password…).
//! Values never reach a log: `Debug` shows the keys only.

use std::collections::BTreeMap;

use async_trait::async_trait;

use crate::{AccountId, StoreError};

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

    /// Parses the JSON document stored in Secrets Manager.
    pub fn from_json(text: &str) -> Result<Self, StoreError> {
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
