//! What a Tosla account's secret must hold (Secrets Manager `<prefix><accountId>`):
//!
//! | key | meaning |
//! |---|---|
//! | `endpointUrl` | the API base, `https://entegrasyon.tosla.com/api/Payment` (test: `https://prepentegrasyon.tosla.com/api/Payment`); requests go to `<endpointUrl>/postAuth`, `/void`, `/refund`, `/inquiry` |
//! | `clientId` | the API customer number (`clientId`, digits) |
//! | `apiUser` | the API user name (`apiUser`) |
//! | `apiPass` | the API password: the first part of every request's `hash` (never sent) |

use paygate_bankkit::{AccountCredentials, BankConfig, TestOrderRoute};
use paygate_domain::StoreError;

/// The API credentials of one account. `Debug` never shows the password.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiCredentials {
    pub endpoint_url: String,
    /// Digits only (the API types it `long`; it is sent as a JSON number).
    pub client_id: String,
    pub api_user: String,
    pub api_pass: String,
}

impl BankConfig for ApiCredentials {
    /// Reads the keys above; the error names a missing or malformed key, never a value.
    fn from_account(creds: &AccountCredentials) -> Result<Self, StoreError> {
        let client_id = creds.require("clientId")?.trim().to_owned();
        if client_id.is_empty()
            || client_id.len() > 18
            || !client_id.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(StoreError::Corrupt(
                "bank credentials: `clientId` must be the digits of the API customer number"
                    .to_owned(),
            ));
        }
        Ok(Self {
            endpoint_url: creds.endpoint_url.trim_end_matches('/').to_owned(),
            client_id,
            api_user: creds.require("apiUser")?.to_owned(),
            api_pass: creds.require("apiPass")?.to_owned(),
        })
    }

    /// The simulator's admin route: `POST <endpointUrl>/_sim/orders` with the client id.
    fn test_order_route(&self) -> Option<TestOrderRoute> {
        TestOrderRoute::at(&self.endpoint_url, &[("clientId", &self.client_id)])
    }
}

impl ApiCredentials {
    /// Where the request of `path` (`postAuth`, `void`, …) goes.
    pub fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.endpoint_url)
    }
}

impl std::fmt::Debug for ApiCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiCredentials")
            .field("endpoint_url", &self.endpoint_url)
            .field("client_id", &self.client_id)
            .field("api_user", &self.api_user)
            .field("api_pass", &"***")
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> Result<ApiCredentials, StoreError> {
        ApiCredentials::from_account(&AccountCredentials::new(
            "https://entegrasyon.tosla.com/api/Payment/",
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        ))
    }

    #[test]
    fn reads_keys_and_hides_the_password() {
        let c = read(&[
            ("clientId", "1000000494"),
            ("apiUser", "POS_ENT_Test_001"),
            ("apiPass", "POS_ENT_Test_001!*!*"),
        ])
        .unwrap();
        assert_eq!(
            c.url("postAuth"),
            "https://entegrasyon.tosla.com/api/Payment/postAuth"
        );
        assert!(!format!("{c:?}").contains("!*!*"));
        let err = read(&[("clientId", "1")]).unwrap_err().to_string();
        assert!(err.contains("`apiUser`"), "{err}");
        let err = read(&[("clientId", "10x"), ("apiUser", "u"), ("apiPass", "p")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("`clientId`") && !err.contains("10x"), "{err}");
    }
}
