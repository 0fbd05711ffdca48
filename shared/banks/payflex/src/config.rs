//! What a PayFlex account's secret must hold (Secrets Manager `<prefix><accountId>`):
//!
//! | key | meaning |
//! |---|---|
//! | `endpointUrl` | the VPOS URL, e.g. `https://onlineodeme.vakifbank.com.tr:4443/VposService/v3/Vposreq.aspx` |
//! | `merchantId` | the merchant number, `<MerchantId>` / `<HostMerchantId>` |
//! | `password` | the merchant password, `<Password>` / `<MerchantPassword>` |
//! | `terminalNo` | the virtual terminal, `<TerminalNo>` (sent on captures, as MEWS does) |
//! | `searchUrl` | optional: the search service (status); default: the endpoint's host + [`SEARCH_PATH`] |
//! | `clientIp` | optional: the `<ClientIp>` sent on back-office requests (default `127.0.0.1`) |

use paygate_bankkit::{AccountCredentials, BankConfig, TestOrderRoute};
use paygate_domain::StoreError;

/// The VPOS path on a VakıfBank host (MEWS `config/pos_test.php`).
pub const VPOS_PATH: &str = "/VposService/v3/Vposreq.aspx";
/// The search (status) service path on the same host.
pub const SEARCH_PATH: &str = "/UIService/Search.aspx";

/// The credentials of one account. `Debug` never shows the password.
#[derive(Clone, PartialEq, Eq)]
pub struct MerchantCredentials {
    pub endpoint_url: String,
    pub search_url: String,
    pub merchant_id: String,
    pub password: String,
    pub terminal_no: String,
    pub client_ip: String,
}

impl BankConfig for MerchantCredentials {
    /// Reads the keys above; the error names a missing key, never a value.
    fn from_account(creds: &AccountCredentials) -> Result<Self, StoreError> {
        let search_url = match creds.get("searchUrl").filter(|v| !v.trim().is_empty()) {
            Some(url) => {
                paygate_bankkit::credentials::check_endpoint(url)
                    .map_err(|why| StoreError::Corrupt(format!("`searchUrl`: {why}")))?;
                url.to_owned()
            }
            None => default_search_url(&creds.endpoint_url).ok_or_else(|| {
                StoreError::Corrupt(
                    "`searchUrl` missing and not derivable from `endpointUrl`".into(),
                )
            })?,
        };
        Ok(Self {
            endpoint_url: creds.endpoint_url.clone(),
            search_url,
            merchant_id: creds.require("merchantId")?.to_owned(),
            password: creds.require("password")?.to_owned(),
            terminal_no: creds.require("terminalNo")?.to_owned(),
            client_ip: creds
                .get("clientIp")
                .filter(|v| !v.trim().is_empty())
                .unwrap_or("127.0.0.1")
                .to_owned(),
        })
    }

    /// The simulator's admin route: `POST <origin>/_sim/orders` with the merchant id.
    fn test_order_route(&self) -> Option<TestOrderRoute> {
        TestOrderRoute::at(&self.origin(), &[("merchantId", &self.merchant_id)])
    }
}

impl MerchantCredentials {
    /// The scheme, host and port of the VPOS endpoint (where the simulator's admin routes are).
    pub fn origin(&self) -> String {
        origin(&self.endpoint_url).unwrap_or_else(|| self.endpoint_url.clone())
    }
}

/// `scheme://host[:port]` of a URL: the part before the first `/` after `://`.
fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split(['/', '?', '#']).next()?;
    (!scheme.is_empty() && !host.is_empty()).then(|| format!("{scheme}://{host}"))
}

/// The search service on the VPOS endpoint's host.
pub fn default_search_url(endpoint_url: &str) -> Option<String> {
    origin(endpoint_url).map(|o| format!("{o}{SEARCH_PATH}"))
}

impl std::fmt::Debug for MerchantCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MerchantCredentials")
            .field("endpoint_url", &self.endpoint_url)
            .field("search_url", &self.search_url)
            .field("merchant_id", &self.merchant_id)
            .field("password", &"***")
            .field("terminal_no", &self.terminal_no)
            .field("client_ip", &self.client_ip)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account(endpoint: &str, extra: &[(&str, &str)]) -> AccountCredentials {
        let mut values = vec![
            ("merchantId".to_owned(), "000000000111111".to_owned()),
            ("password".to_owned(), "3XTgER89as".to_owned()),
            ("terminalNo".to_owned(), "VP999999".to_owned()),
        ];
        values.extend(
            extra
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        AccountCredentials::new(endpoint, values)
    }

    #[test]
    fn reads_keys_derives_the_search_url_and_hides_the_password() {
        let c = MerchantCredentials::from_account(&account(
            "https://onlineodemetest.vakifbank.com.tr:4443/VposService/v3/Vposreq.aspx",
            &[],
        ))
        .unwrap();
        assert_eq!(
            c.search_url,
            "https://onlineodemetest.vakifbank.com.tr:4443/UIService/Search.aspx"
        );
        assert_eq!(c.client_ip, "127.0.0.1");
        assert_eq!(c.origin(), "https://onlineodemetest.vakifbank.com.tr:4443");
        let shown = format!("{c:?}");
        assert!(!shown.contains("3XTgER89as"), "{shown}");
    }

    #[test]
    fn an_explicit_search_url_must_be_https() {
        let ok = MerchantCredentials::from_account(&account(
            "https://bank.example/VposService/v3/Vposreq.aspx",
            &[("searchUrl", "https://search.example/UIService/Search.aspx")],
        ))
        .unwrap();
        assert_eq!(
            ok.search_url,
            "https://search.example/UIService/Search.aspx"
        );
        let bad = MerchantCredentials::from_account(&account(
            "https://bank.example/x",
            &[("searchUrl", "http://search.example/?password=x")],
        ))
        .unwrap_err()
        .to_string();
        assert!(
            bad.contains("searchUrl") && !bad.contains("password=x"),
            "{bad}"
        );
    }

    #[test]
    fn missing_key_is_named() {
        let c = AccountCredentials::new(
            "https://x/VposService/v3/Vposreq.aspx",
            [("merchantId".to_owned(), "1".to_owned())],
        );
        let err = MerchantCredentials::from_account(&c)
            .unwrap_err()
            .to_string();
        assert!(err.contains("`password`"), "{err}");
    }
}
