//! What a Param account's secret must hold (Secrets Manager `<prefix><accountId>`):
//!
//! | key | meaning |
//! |---|---|
//! | `endpointUrl` | the TurkPOS SOAP service, e.g. `https://posws.param.com.tr/turkpos.ws/service_turkpos_prod.asmx` (test: `https://testposws.param.com.tr/turkpos.ws/service_turkpos_test.asmx`) |
//! | `clientCode` | the terminal number, `G/CLIENT_CODE` |
//! | `clientUsername` | the API user, `G/CLIENT_USERNAME` |
//! | `clientPassword` | the API user's password, `G/CLIENT_PASSWORD` |
//! | `guid` | the merchant's key, `GUID` (36 characters) |

use paygate_bankkit::{AccountCredentials, BankConfig, TestOrderRoute};
use paygate_domain::StoreError;

/// The API credentials of one account. `Debug` never shows the password or the GUID.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiCredentials {
    pub endpoint_url: String,
    pub client_code: String,
    pub client_username: String,
    pub client_password: String,
    pub guid: String,
}

impl BankConfig for ApiCredentials {
    /// Reads the keys above; the error names a missing key, never a value.
    fn from_account(creds: &AccountCredentials) -> Result<Self, StoreError> {
        Ok(Self {
            endpoint_url: creds.endpoint_url.clone(),
            client_code: creds.require("clientCode")?.to_owned(),
            client_username: creds.require("clientUsername")?.to_owned(),
            client_password: creds.require("clientPassword")?.to_owned(),
            guid: creds.require("guid")?.to_owned(),
        })
    }

    /// The simulator's admin route: `POST <endpointUrl>/_sim/orders` with the client code.
    fn test_order_route(&self) -> Option<TestOrderRoute> {
        TestOrderRoute::at(&self.endpoint_url, &[("clientCode", &self.client_code)])
    }
}

impl std::fmt::Debug for ApiCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiCredentials")
            .field("endpoint_url", &self.endpoint_url)
            .field("client_code", &self.client_code)
            .field("client_username", &self.client_username)
            .field("client_password", &"***")
            .field("guid", &"***")
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_keys_and_hides_the_secrets() {
        let c = ApiCredentials::from_account(&AccountCredentials::new(
            "https://testposws.param.com.tr/turkpos.ws/service_turkpos_test.asmx",
            [
                ("clientCode".to_owned(), "10738".to_owned()),
                ("clientUsername".to_owned(), "Test1".to_owned()),
                ("clientPassword".to_owned(), "Pa55-Test2".to_owned()),
                (
                    "guid".to_owned(),
                    "0c13d406-873b-403b-9c09-a5766840d98c".to_owned(),
                ),
            ],
        ))
        .unwrap();
        assert_eq!(
            (c.client_code.as_str(), c.client_username.as_str()),
            ("10738", "Test1")
        );
        let shown = format!("{c:?}");
        assert!(
            !shown.contains("Pa55-Test2") && !shown.contains("0c13d406"),
            "{shown}"
        );
    }

    #[test]
    fn missing_key_is_named() {
        let c = AccountCredentials::new(
            "https://x/turkpos.ws/service_turkpos_prod.asmx",
            [("clientCode".to_owned(), "10738".to_owned())],
        );
        let err = ApiCredentials::from_account(&c).unwrap_err().to_string();
        assert!(err.contains("`clientUsername`"), "{err}");
    }
}
