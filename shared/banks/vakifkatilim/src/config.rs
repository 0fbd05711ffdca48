//! What a Vakıf Katılım account's secret must hold (Secrets Manager `<prefix><accountId>`):
//!
//! | key | meaning |
//! |---|---|
//! | `endpointUrl` | the gateway's base, e.g. `https://boa.vakifkatilim.com.tr/VirtualPOS.Gateway/Home`; each request is POSTed to `<endpointUrl>/<Operation>` |
//! | `merchantId` | the store number, `<MerchantId>` |
//! | `customerId` | the merchant's customer number at the bank, `<CustomerId>` |
//! | `userName` | the API user, `<UserName>` |
//! | `password` | the API user's password: never sent, only hashed (`HashPassword`, `HashData`) |
//! | `subMerchantId` | optional, `<SubMerchantId>` (`0` when absent) |

use paygate_bankkit::{AccountCredentials, BankConfig, TestOrderRoute};
use paygate_domain::StoreError;

/// The API credentials of one account. `Debug` never shows the password.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiCredentials {
    pub endpoint_url: String,
    pub merchant_id: String,
    pub customer_id: String,
    pub user_name: String,
    pub password: String,
    pub sub_merchant_id: String,
}

impl ApiCredentials {
    /// The URL of one operation (`PreAuthorizatenClose`, `SaleReversal`, …).
    pub fn url(&self, operation: &str) -> String {
        format!("{}/{operation}", self.endpoint_url.trim_end_matches('/'))
    }
}

impl BankConfig for ApiCredentials {
    /// Reads the keys above; the error names a missing key, never a value.
    fn from_account(creds: &AccountCredentials) -> Result<Self, StoreError> {
        Ok(Self {
            endpoint_url: creds.endpoint_url.clone(),
            merchant_id: creds.require("merchantId")?.to_owned(),
            customer_id: creds.require("customerId")?.to_owned(),
            user_name: creds.require("userName")?.to_owned(),
            password: creds.require("password")?.to_owned(),
            sub_merchant_id: creds
                .get("subMerchantId")
                .filter(|s| !s.is_empty())
                .unwrap_or("0")
                .to_owned(),
        })
    }

    /// The simulator's admin route: `POST <endpointUrl>/_sim/orders` with the merchant id.
    fn test_order_route(&self) -> Option<TestOrderRoute> {
        TestOrderRoute::at(&self.endpoint_url, &[("merchantId", &self.merchant_id)])
    }
}

impl std::fmt::Debug for ApiCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiCredentials")
            .field("endpoint_url", &self.endpoint_url)
            .field("merchant_id", &self.merchant_id)
            .field("customer_id", &self.customer_id)
            .field("user_name", &self.user_name)
            .field("password", &"***")
            .field("sub_merchant_id", &self.sub_merchant_id)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn creds(extra: &[(&str, &str)]) -> AccountCredentials {
        let mut keys = vec![
            ("merchantId".to_owned(), "1".to_owned()),
            ("customerId".to_owned(), "11111".to_owned()),
            ("userName".to_owned(), "APIUSER".to_owned()),
            ("password".to_owned(), "kdsnsksl".to_owned()),
        ];
        keys.extend(
            extra
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        AccountCredentials::new("https://bank.example/VirtualPOS.Gateway/Home/", keys)
    }

    #[test]
    fn reads_keys_and_hides_the_password() {
        let c = ApiCredentials::from_account(&creds(&[])).unwrap();
        assert_eq!(
            (c.customer_id.as_str(), c.sub_merchant_id.as_str()),
            ("11111", "0")
        );
        assert_eq!(
            c.url("SaleReversal"),
            "https://bank.example/VirtualPOS.Gateway/Home/SaleReversal"
        );
        let shown = format!("{c:?}");
        assert!(!shown.contains("kdsnsksl"), "{shown}");
        let c = ApiCredentials::from_account(&creds(&[("subMerchantId", "7")])).unwrap();
        assert_eq!(c.sub_merchant_id, "7");
    }

    #[test]
    fn missing_key_is_named() {
        let c = AccountCredentials::new(
            "https://x/VirtualPOS.Gateway/Home",
            [("merchantId".to_owned(), "1".to_owned())],
        );
        let err = ApiCredentials::from_account(&c).unwrap_err().to_string();
        assert!(err.contains("`customerId`"), "{err}");
    }
}
