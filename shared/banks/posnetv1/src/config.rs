//! What an Albaraka (PosNet V1) account's secret must hold (Secrets Manager
//! `<prefix><accountId>`):
//!
//! | key | meaning |
//! |---|---|
//! | `endpointUrl` | the JSON service, e.g. `https://epos.albarakaturk.com.tr/ALBMerchantService/MerchantJSONAPI.svc` (test `https://epostest.albarakaturk.com.tr/…`); each request goes to `<endpointUrl>/<TransactionType>` |
//! | `merchantNo` | `MerchantNo`, the 10-digit merchant number |
//! | `terminalNo` | `TerminalNo`, the 8-digit terminal number |
//! | `encKey` | the encryption key (`10,10,10,10,10,10,10,10` on the test terminal): appended to the MAC input |
//! | `orderIdPrefix` | optional: what precedes the zero-padded order id in an inquiry (`TDS_` for orders paid through 3-D Secure, MEWS `mapOrderIdToPrefixedOrderId`); default empty |
//!
//! The 16-digit `PosnetID` only belongs to the 3-D form, which the gateway does not post.

use paygate_bankkit::{AccountCredentials, BankConfig, TestOrderRoute};
use paygate_domain::StoreError;

/// The credentials of one account. `Debug` never shows the key.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub endpoint_url: String,
    pub merchant_no: String,
    pub terminal_no: String,
    pub enc_key: String,
    pub order_id_prefix: String,
}

impl BankConfig for Credentials {
    /// Reads the keys above; the error names a missing key, never a value.
    fn from_account(creds: &AccountCredentials) -> Result<Self, StoreError> {
        Ok(Self {
            endpoint_url: creds.endpoint_url.trim_end_matches('/').to_owned(),
            merchant_no: creds.require("merchantNo")?.to_owned(),
            terminal_no: creds.require("terminalNo")?.to_owned(),
            enc_key: creds.require("encKey")?.to_owned(),
            order_id_prefix: creds.get("orderIdPrefix").unwrap_or("").trim().to_owned(),
        })
    }

    /// The simulator's admin route: `POST <endpointUrl>/_sim/orders` with the terminal.
    fn test_order_route(&self) -> Option<TestOrderRoute> {
        TestOrderRoute::at(&self.endpoint_url, &[("terminalNo", &self.terminal_no)])
    }
}

impl Credentials {
    /// Where a request of `transaction_type` (`Capture`, `Reverse`, …) goes.
    pub fn url(&self, transaction_type: &str) -> String {
        format!("{}/{transaction_type}", self.endpoint_url)
    }
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("endpoint_url", &self.endpoint_url)
            .field("merchant_no", &self.merchant_no)
            .field("terminal_no", &self.terminal_no)
            .field("enc_key", &"***")
            .field("order_id_prefix", &self.order_id_prefix)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_keys_and_hides_the_key() {
        let c = Credentials::from_account(&AccountCredentials::new(
            "https://epos.albarakaturk.com.tr/ALBMerchantService/MerchantJSONAPI.svc/",
            [
                ("merchantNo".to_owned(), "6700950031".to_owned()),
                ("terminalNo".to_owned(), "67540050".to_owned()),
                ("encKey".to_owned(), "10,10,10,10,10,10,10,10".to_owned()),
            ],
        ))
        .unwrap();
        assert_eq!(
            c.url("Reverse"),
            "https://epos.albarakaturk.com.tr/ALBMerchantService/MerchantJSONAPI.svc/Reverse"
        );
        assert_eq!(c.order_id_prefix, "");
        assert!(!format!("{c:?}").contains("10,10"));
        let err = Credentials::from_account(&AccountCredentials::new("https://x", []))
            .unwrap_err()
            .to_string();
        assert!(err.contains("`merchantNo`"), "{err}");
    }
}
