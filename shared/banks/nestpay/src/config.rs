//! What a Nestpay account's secret must hold (Secrets Manager `<prefix><accountId>`):
//!
//! | key | meaning |
//! |---|---|
//! | `endpointUrl` | the API URL, e.g. `https://sanalpos.isbank.com.tr/fim/api` |
//! | `clientId` | store (merchant) number, `<ClientId>` |
//! | `name` | API user, `<Name>` |
//! | `password` | API user's password, `<Password>` |
//! | `pointsInquiry` | optional: `maxipuan` where the bank lets the account ask `MAXIPUANSORGU` (İşbank Maximum) |

use paygate_bankkit::{AccountCredentials, BankConfig, TestOrderRoute};
use paygate_domain::StoreError;

/// Points programmes an account may be enabled to query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointsInquiry {
    /// İşbank Maximum: `Extra/MAXIPUANSORGU`, answer in `Extra/MAXIPUAN`.
    MaxiPuan,
}

impl PointsInquiry {
    pub fn parse(s: &str) -> Option<Self> {
        s.trim()
            .eq_ignore_ascii_case("maxipuan")
            .then_some(Self::MaxiPuan)
    }
}

/// The API credentials of one account. `Debug` never shows the password.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiCredentials {
    pub endpoint_url: String,
    pub client_id: String,
    pub name: String,
    pub password: String,
    /// The raw `pointsInquiry` flag; see [`ApiCredentials::points_inquiry`].
    pub points_flag: Option<String>,
}

impl BankConfig for ApiCredentials {
    /// Reads the keys above; the error names a missing key, never a value.
    fn from_account(creds: &AccountCredentials) -> Result<Self, StoreError> {
        Ok(Self {
            endpoint_url: creds.endpoint_url.clone(),
            client_id: creds.require("clientId")?.to_owned(),
            name: creds.require("name")?.to_owned(),
            password: creds.require("password")?.to_owned(),
            points_flag: creds
                .get("pointsInquiry")
                .filter(|v| !v.trim().is_empty())
                .map(str::to_owned),
        })
    }

    /// The simulator's admin route: `POST <endpointUrl>/_sim/orders` with the client id.
    fn test_order_route(&self) -> Option<TestOrderRoute> {
        TestOrderRoute::at(&self.endpoint_url, &[("clientId", &self.client_id)])
    }
}

impl ApiCredentials {
    /// The points programme this account may query, if any. An unrecognised flag value
    /// enables nothing.
    pub fn points_inquiry(&self) -> Option<PointsInquiry> {
        self.points_flag.as_deref().and_then(PointsInquiry::parse)
    }
}

impl std::fmt::Debug for ApiCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiCredentials")
            .field("endpoint_url", &self.endpoint_url)
            .field("client_id", &self.client_id)
            .field("name", &self.name)
            .field("password", &"***")
            .field("points_flag", &self.points_flag)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account(extra: &[(&str, &str)]) -> AccountCredentials {
        let mut values = vec![
            ("clientId".to_owned(), "700655000200".to_owned()),
            ("name".to_owned(), "ISBANKAPI".to_owned()),
            ("password".to_owned(), "ISBANK07".to_owned()),
        ];
        values.extend(
            extra
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        AccountCredentials::new("https://bank.example/fim/api", values)
    }

    #[test]
    fn reads_keys_and_hides_the_password() {
        let c = ApiCredentials::from_account(&account(&[])).unwrap();
        assert_eq!(c.client_id, "700655000200");
        assert_eq!(c.points_inquiry(), None);
        let shown = format!("{c:?}");
        assert!(!shown.contains("ISBANK07"), "{shown}");
    }

    #[test]
    fn points_flag() {
        let on = ApiCredentials::from_account(&account(&[("pointsInquiry", "maxipuan")])).unwrap();
        assert_eq!(on.points_inquiry(), Some(PointsInquiry::MaxiPuan));
        let odd = ApiCredentials::from_account(&account(&[("pointsInquiry", "bonus")])).unwrap();
        assert_eq!(odd.points_inquiry(), None);
    }

    #[test]
    fn missing_key_is_named() {
        let c = AccountCredentials::new(
            "https://x/fim/api",
            [("clientId".to_owned(), "1".to_owned())],
        );
        let err = ApiCredentials::from_account(&c).unwrap_err().to_string();
        assert!(err.contains("`name`"), "{err}");
    }
}
