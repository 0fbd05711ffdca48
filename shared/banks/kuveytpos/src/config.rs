//! What a Kuveyt Türk account's secret must hold (Secrets Manager `<prefix><accountId>`):
//!
//! | key | meaning |
//! |---|---|
//! | `endpointUrl` | the SOAP query service, e.g. `https://boa.kuveytturk.com.tr/BOA.Integration.WCFService/BOA.Integration.VirtualPos/VirtualPosService.svc/Basic` |
//! | `merchantId` | the store number (`MerchantId`, "Mağaza Kodu") |
//! | `customerId` | the merchant's customer number at the bank (`CustomerId`, "Müşteri Numarası") |
//! | `userName` | the API-role user created in the bank's merchant portal (`UserName`) |
//! | `password` | that user's password: it never travels, only `base64(SHA1(password))` enters `HashData` |

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
}

impl BankConfig for ApiCredentials {
    /// Reads the keys above; the error names a missing key, never a value.
    fn from_account(creds: &AccountCredentials) -> Result<Self, StoreError> {
        Ok(Self {
            endpoint_url: creds.endpoint_url.trim_end_matches('/').to_owned(),
            merchant_id: creds.require("merchantId")?.to_owned(),
            customer_id: creds.require("customerId")?.to_owned(),
            user_name: creds.require("userName")?.to_owned(),
            password: creds.require("password")?.to_owned(),
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
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_keys_and_hides_the_password() {
        let c = ApiCredentials::from_account(&AccountCredentials::new(
            "https://bank.example/VirtualPosService.svc/Basic/",
            [
                ("merchantId".to_owned(), "496".to_owned()),
                ("customerId".to_owned(), "400235".to_owned()),
                ("userName".to_owned(), "apitest".to_owned()),
                ("password".to_owned(), "api123".to_owned()),
            ],
        ))
        .unwrap();
        assert_eq!(
            (
                c.merchant_id.as_str(),
                c.customer_id.as_str(),
                c.endpoint_url.as_str()
            ),
            (
                "496",
                "400235",
                "https://bank.example/VirtualPosService.svc/Basic"
            )
        );
        let shown = format!("{c:?}");
        assert!(!shown.contains("api123"), "{shown}");
    }

    #[test]
    fn missing_key_is_named() {
        let c = AccountCredentials::new(
            "https://x/VirtualPosService.svc/Basic",
            [("merchantId".to_owned(), "496".to_owned())],
        );
        let err = ApiCredentials::from_account(&c).unwrap_err().to_string();
        assert!(err.contains("`customerId`"), "{err}");
    }
}
