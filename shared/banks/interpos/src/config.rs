//! What an InterVPOS account's secret must hold (Secrets Manager `<prefix><accountId>`):
//!
//! | key | meaning |
//! |---|---|
//! | `endpointUrl` | the API URL, e.g. `https://inter-vpos.com.tr/mpi/Default.aspx` |
//! | `shopCode` | the merchant's shop code, `ShopCode` |
//! | `userCode` | the API user, `UserCode` |
//! | `userPass` | the API user's password, `UserPass` |
//! | `pointsInquiry` | optional: `bonus` where the bank lets the account ask `BonusInquiry` |

use paygate_bankkit::{AccountCredentials, BankConfig, TestOrderRoute};
use paygate_domain::StoreError;

/// The API path on an InterVPOS host (MEWS `config/pos_test.php`).
pub const API_PATH: &str = "/mpi/Default.aspx";

/// The API credentials of one account. `Debug` never shows the password.
#[derive(Clone, PartialEq, Eq)]
pub struct ShopCredentials {
    pub endpoint_url: String,
    pub shop_code: String,
    pub user_code: String,
    pub user_pass: String,
    /// Whether `BonusInquiry` is enabled (`pointsInquiry: bonus`).
    pub bonus_inquiry: bool,
}

impl BankConfig for ShopCredentials {
    /// Reads the keys above; the error names a missing key, never a value.
    fn from_account(creds: &AccountCredentials) -> Result<Self, StoreError> {
        Ok(Self {
            endpoint_url: creds.endpoint_url.clone(),
            shop_code: creds.require("shopCode")?.to_owned(),
            user_code: creds.require("userCode")?.to_owned(),
            user_pass: creds.require("userPass")?.to_owned(),
            bonus_inquiry: creds
                .get("pointsInquiry")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("bonus")),
        })
    }

    /// The simulator's admin route: `POST <endpoint host>/_sim/orders` with the shop code.
    fn test_order_route(&self) -> Option<TestOrderRoute> {
        TestOrderRoute::at(self.admin_base(), &[("shopCode", &self.shop_code)])
    }
}

impl ShopCredentials {
    /// The simulator's admin base: the endpoint without the API path.
    pub fn admin_base(&self) -> &str {
        self.endpoint_url
            .trim_end_matches('/')
            .trim_end_matches(API_PATH)
    }
}

impl std::fmt::Debug for ShopCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShopCredentials")
            .field("endpoint_url", &self.endpoint_url)
            .field("shop_code", &self.shop_code)
            .field("user_code", &self.user_code)
            .field("user_pass", &"***")
            .field("bonus_inquiry", &self.bonus_inquiry)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account(extra: &[(&str, &str)]) -> AccountCredentials {
        let mut values = vec![
            ("shopCode".to_owned(), "3123".to_owned()),
            ("userCode".to_owned(), "InterTestApi".to_owned()),
            ("userPass".to_owned(), "3".to_owned()),
        ];
        values.extend(
            extra
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        AccountCredentials::new("https://test.inter-vpos.com.tr/mpi/Default.aspx", values)
    }

    #[test]
    fn reads_keys_and_hides_the_password() {
        let c = ShopCredentials::from_account(&account(&[])).unwrap();
        assert!(!c.bonus_inquiry);
        assert_eq!(c.admin_base(), "https://test.inter-vpos.com.tr");
        assert!(!format!("{c:?}").contains("user_pass: \"3\""));
        let on = ShopCredentials::from_account(&account(&[("pointsInquiry", "Bonus")])).unwrap();
        assert!(on.bonus_inquiry);
        let odd =
            ShopCredentials::from_account(&account(&[("pointsInquiry", "maxipuan")])).unwrap();
        assert!(!odd.bonus_inquiry);
    }

    #[test]
    fn missing_key_is_named() {
        let c = AccountCredentials::new(
            "https://x/mpi/Default.aspx",
            [("shopCode".to_owned(), "1".to_owned())],
        );
        let err = ShopCredentials::from_account(&c).unwrap_err().to_string();
        assert!(err.contains("`userCode`"), "{err}");
    }
}
