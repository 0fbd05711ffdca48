//! What an Akbank (new POS) account's secret must hold (Secrets Manager `<prefix><accountId>`):
//!
//! | key | meaning |
//! |---|---|
//! | `endpointUrl` | the API base, e.g. `https://api.akbank.com/api/v1/payment/virtualpos` (requests go to `<endpointUrl>/transaction/process`) |
//! | `merchantSafeId` | the merchant's safe id, `terminal.merchantSafeId` |
//! | `terminalSafeId` | the terminal's safe id, `terminal.terminalSafeId` |
//! | `secretKey` | the terminal's secret key: the `auth-hash` HMAC key |
//! | `customerIp` | optional: the `customer.ipAddress` a post-authorization carries |

use paygate_bankkit::{AccountCredentials, BankConfig, TestOrderRoute};
use paygate_domain::StoreError;

/// The API credentials of one account. `Debug` never shows the secret key.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiCredentials {
    pub endpoint_url: String,
    pub merchant_safe_id: String,
    pub terminal_safe_id: String,
    pub secret_key: String,
    pub customer_ip: Option<String>,
}

impl BankConfig for ApiCredentials {
    /// Reads the keys above; the error names a missing key, never a value.
    fn from_account(creds: &AccountCredentials) -> Result<Self, StoreError> {
        Ok(Self {
            endpoint_url: creds.endpoint_url.trim_end_matches('/').to_owned(),
            merchant_safe_id: creds.require("merchantSafeId")?.to_owned(),
            terminal_safe_id: creds.require("terminalSafeId")?.to_owned(),
            secret_key: creds.require("secretKey")?.to_owned(),
            customer_ip: creds
                .get("customerIp")
                .filter(|v| !v.trim().is_empty())
                .map(str::to_owned),
        })
    }

    /// The simulator's admin route: `POST <endpointUrl>/_sim/orders` with the terminal.
    fn test_order_route(&self) -> Option<TestOrderRoute> {
        TestOrderRoute::at(
            &self.endpoint_url,
            &[("terminalSafeId", &self.terminal_safe_id)],
        )
    }
}

impl ApiCredentials {
    /// Where every request of the API goes.
    pub fn process_url(&self) -> String {
        format!("{}{}", self.endpoint_url, crate::PROCESS_PATH)
    }

    /// Where the date-range report goes (the daily reconciliation).
    pub fn report_url(&self) -> String {
        format!("{}{}", self.endpoint_url, crate::REPORT_PATH)
    }
}

impl std::fmt::Debug for ApiCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiCredentials")
            .field("endpoint_url", &self.endpoint_url)
            .field("merchant_safe_id", &self.merchant_safe_id)
            .field("terminal_safe_id", &self.terminal_safe_id)
            .field("secret_key", &"***")
            .field("customer_ip", &self.customer_ip)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_keys_and_hides_the_secret() {
        let c = ApiCredentials::from_account(&AccountCredentials::new(
            "https://api.akbank.com/api/v1/payment/virtualpos/",
            [
                ("merchantSafeId".to_owned(), "M1".to_owned()),
                ("terminalSafeId".to_owned(), "T1".to_owned()),
                ("secretKey".to_owned(), "s3cr3tkey".to_owned()),
            ],
        ))
        .unwrap();
        assert_eq!(
            c.process_url(),
            "https://api.akbank.com/api/v1/payment/virtualpos/transaction/process"
        );
        assert!(!format!("{c:?}").contains("s3cr3tkey"));
        let err = ApiCredentials::from_account(&AccountCredentials::new("https://x", []))
            .unwrap_err()
            .to_string();
        assert!(err.contains("`merchantSafeId`"), "{err}");
    }
}
