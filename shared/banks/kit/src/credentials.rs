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
    let config = |e: &dyn std::fmt::Display| {
        tracing::warn!(account_id = %account, error = %e, "bank account configuration unusable");
        crate::CallError::Config(e.to_string())
    };
    let creds = store.credentials(account).await.map_err(|e| config(&e))?;
    check_endpoint(&creds.endpoint_url).map_err(|e| config(&e))?;
    parse(&creds).map_err(|e| config(&e))
}

/// A bank endpoint must be HTTPS (card data and credentials travel in the body). Plain
/// HTTP is accepted only on a loopback host (`localhost`, `127.0.0.0/8`, `[::1]`): the
/// local stack's in-process protocol simulators. The error never repeats the URL (it may
/// carry a query with credentials).
pub fn check_endpoint(url: &str) -> Result<(), &'static str> {
    let parsed = reqwest::Url::parse(url).map_err(|_| "the bank endpoint is not a URL")?;
    let host = parsed
        .host_str()
        .filter(|h| !h.is_empty())
        .ok_or("the bank endpoint has no host")?;
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = bare.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        _ => Err("the bank endpoint must be https (plain http only on loopback)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bank_endpoints_are_https_except_loopback_simulators() {
        for ok in [
            "https://sanalposprov.garanti.com.tr/VPServlet",
            "https://entegrasyon.asseco-see.com.tr/fim/api",
            "http://127.0.0.1:18080/fim/api",
            "http://127.3.2.1/x",
            "http://localhost:9000/",
            "http://[::1]:9000/",
            "https://127.0.0.1:8443/",
        ] {
            assert_eq!(check_endpoint(ok), Ok(()), "{ok}");
        }
        for bad in [
            "http://sanalposprov.garanti.com.tr/VPServlet",
            "http://10.0.0.5/api",
            "http://localhost.example.com/",
            "http://127.0.0.1.nip.io/",
            "ftp://127.0.0.1/",
            "file:///etc/passwd",
            "https://",
            "not a url",
            "",
        ] {
            assert!(check_endpoint(bad).is_err(), "{bad}");
        }
    }

    #[tokio::test]
    async fn an_account_with_a_plain_http_bank_is_a_config_error_and_nothing_is_sent() {
        let store = MemoryCredentials::default();
        let account = AccountId::parse("acc_plain").unwrap();
        store.insert(
            account.clone(),
            AccountCredentials::new(
                "http://bank.example.com/api?password=hunter2",
                [("clientId".to_owned(), "1".to_owned())],
            ),
        );
        let parsed = std::sync::atomic::AtomicBool::new(false);
        let r = account_config(&store, &account, |_| {
            parsed.store(true, std::sync::atomic::Ordering::SeqCst);
            Ok::<_, String>(())
        })
        .await;
        let Err(e) = r else { panic!("accepted") };
        assert_eq!(e.code(), "config");
        assert!(!e.detail().contains("hunter2"));
        assert!(!parsed.load(std::sync::atomic::Ordering::SeqCst));
    }
}
