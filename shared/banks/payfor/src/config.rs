//! What a PayFor account's secret must hold (Secrets Manager `<prefix><accountId>`):
//!
//! | key | meaning |
//! |---|---|
//! | `endpointUrl` | the XML API URL, e.g. `https://vpos.qnbfinansbank.com/Gateway/XMLGate.aspx` |
//! | `mbrId` | the institution: `5` QNB Finansbank (and Enpara), `12` Ziraat Katılım |
//! | `merchantId` | the store number, `<MerchantId>` |
//! | `userCode` | the API user, `<UserCode>` |
//! | `userPass` | the API user's password, `<UserPass>` |

use paygate_bankkit::{AccountCredentials, BankConfig, TestOrderRoute};
use paygate_domain::StoreError;

/// The API credentials of one account. `Debug` never shows the password.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiCredentials {
    pub endpoint_url: String,
    pub mbr_id: String,
    pub merchant_id: String,
    pub user_code: String,
    pub user_pass: String,
}

impl BankConfig for ApiCredentials {
    /// Reads the keys above; the error names a missing key, never a value.
    fn from_account(creds: &AccountCredentials) -> Result<Self, StoreError> {
        Ok(Self {
            endpoint_url: creds.endpoint_url.clone(),
            mbr_id: creds.require("mbrId")?.to_owned(),
            merchant_id: creds.require("merchantId")?.to_owned(),
            user_code: creds.require("userCode")?.to_owned(),
            user_pass: creds.require("userPass")?.to_owned(),
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
            .field("mbr_id", &self.mbr_id)
            .field("merchant_id", &self.merchant_id)
            .field("user_code", &self.user_code)
            .field("user_pass", &"***")
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_keys_and_hides_the_password() {
        let c = ApiCredentials::from_account(&AccountCredentials::new(
            "https://bank.example/Gateway/XMLGate.aspx",
            [
                ("mbrId".to_owned(), "5".to_owned()),
                ("merchantId".to_owned(), "085300000009704".to_owned()),
                ("userCode".to_owned(), "QNB_API_KULLANICI_3DPAY".to_owned()),
                ("userPass".to_owned(), "UcBN0".to_owned()),
            ],
        ))
        .unwrap();
        assert_eq!(
            (c.mbr_id.as_str(), c.merchant_id.as_str()),
            ("5", "085300000009704")
        );
        let shown = format!("{c:?}");
        assert!(!shown.contains("UcBN0"), "{shown}");
    }

    #[test]
    fn missing_key_is_named() {
        let c = AccountCredentials::new(
            "https://x/Gateway/XMLGate.aspx",
            [("mbrId".to_owned(), "5".to_owned())],
        );
        let err = ApiCredentials::from_account(&c).unwrap_err().to_string();
        assert!(err.contains("`merchantId`"), "{err}");
    }
}
