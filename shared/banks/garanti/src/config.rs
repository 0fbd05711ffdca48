//! What a Garanti account's secret holds ([`keys`]), read into a [`GarantiConfig`], and the
//! URLs derived from its endpoint.

use paygate_bankkit::{AccountCredentials, BankConfig, TestOrderRoute};
use paygate_domain::{Currency, StoreError};

use crate::request::{Request, Signer, TxnType};

/// Keys of the account secret (besides `endpointUrl`).
pub mod keys {
    /// Terminal number (`Terminal/ID`), e.g. `30691298`.
    pub const TERMINAL_ID: &str = "terminalId";
    /// Merchant number (`Terminal/MerchantID`), e.g. `7000679`.
    pub const MERCHANT_ID: &str = "merchantId";
    /// Provisioning user for postauth and queries; optional, default `PROVAUT`.
    pub const PROV_USER_ID: &str = "provUserId";
    /// Its password.
    pub const PROV_PASSWORD: &str = "provPassword";
    /// Refund user for void and refund; optional, default `PROVRFN`.
    pub const REFUND_USER_ID: &str = "refundUserId";
    /// Its password.
    pub const REFUND_PASSWORD: &str = "refundPassword";
    /// `PROD` (default) or `TEST`.
    pub const MODE: &str = "mode";
    /// `Customer/IPAddress` sent on back-office operations; optional, default `127.0.0.1`.
    pub const IP_ADDRESS: &str = "ipAddress";
}

/// A GVPS terminal: its numbers and its two users with their passwords (PROVAUT signs
/// postauth and queries, PROVRFN void and refund). The adapter's settings, the simulator
/// and the local stack's seed read it the same way ([`Terminal::read`]). `Debug` never shows
/// a password.
#[derive(Clone, PartialEq, Eq)]
pub struct Terminal {
    pub terminal_id: String,
    pub merchant_id: String,
    pub prov_user_id: String,
    pub prov_password: String,
    pub refund_user_id: String,
    pub refund_password: String,
}

impl Terminal {
    /// Reads the terminal's keys of an account secret ([`keys`]): `required` for the
    /// numbers and passwords, `optional` for the user ids (`PROVAUT`, `PROVRFN` when absent
    /// or empty).
    pub fn read<'v, E>(
        required: impl Fn(&str) -> Result<&'v str, E>,
        optional: impl Fn(&str) -> Option<&'v str>,
    ) -> Result<Self, E> {
        let or = |key: &str, default: &str| {
            optional(key)
                .filter(|v| !v.is_empty())
                .unwrap_or(default)
                .to_owned()
        };
        Ok(Self {
            terminal_id: required(keys::TERMINAL_ID)?.to_owned(),
            merchant_id: required(keys::MERCHANT_ID)?.to_owned(),
            prov_user_id: or(keys::PROV_USER_ID, "PROVAUT"),
            prov_password: required(keys::PROV_PASSWORD)?.to_owned(),
            refund_user_id: or(keys::REFUND_USER_ID, "PROVRFN"),
            refund_password: required(keys::REFUND_PASSWORD)?.to_owned(),
        })
    }

    /// The user that signs `txn` and its password: PROVRFN for void and refund.
    pub fn user(&self, txn: TxnType) -> (&str, &str) {
        if txn.needs_refund_user() {
            (&self.refund_user_id, &self.refund_password)
        } else {
            (&self.prov_user_id, &self.prov_password)
        }
    }

    /// The terminal's keys of an account secret ([`keys`]).
    pub fn secret_values(&self) -> Vec<(String, String)> {
        [
            (keys::TERMINAL_ID, &self.terminal_id),
            (keys::MERCHANT_ID, &self.merchant_id),
            (keys::PROV_USER_ID, &self.prov_user_id),
            (keys::PROV_PASSWORD, &self.prov_password),
            (keys::REFUND_USER_ID, &self.refund_user_id),
            (keys::REFUND_PASSWORD, &self.refund_password),
        ]
        .map(|(k, v)| (k.to_owned(), v.clone()))
        .to_vec()
    }
}

impl std::fmt::Debug for Terminal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terminal")
            .field("terminal_id", &self.terminal_id)
            .field("merchant_id", &self.merchant_id)
            .field("prov_user_id", &self.prov_user_id)
            .field("refund_user_id", &self.refund_user_id)
            .field("passwords", &"[redacted]")
            .finish()
    }
}

/// An account's GVPS settings, read from its secret.
#[derive(Debug, Clone)]
pub struct GarantiConfig {
    pub endpoint_url: String,
    pub mode: String,
    pub terminal: Terminal,
    pub ip_address: String,
}

impl BankConfig for GarantiConfig {
    fn from_account(c: &AccountCredentials) -> Result<Self, StoreError> {
        let or = |key: &str, default: &str| {
            c.get(key)
                .filter(|v| !v.is_empty())
                .unwrap_or(default)
                .to_owned()
        };
        Ok(Self {
            endpoint_url: c.endpoint_url.clone(),
            mode: or(keys::MODE, "PROD").to_ascii_uppercase(),
            terminal: Terminal::read(|k| c.require(k), |k| c.get(k))?,
            ip_address: or(keys::IP_ADDRESS, "127.0.0.1"),
        })
    }

    /// The simulator's `POST /_sim/orders` beside the servlet, for the account's terminal.
    fn test_order_route(&self) -> Option<TestOrderRoute> {
        let t = &self.terminal;
        TestOrderRoute::at(
            &admin_url(&self.endpoint_url, ""),
            &[
                ("terminalId", &t.terminal_id),
                ("merchantId", &t.merchant_id),
            ],
        )
    }
}

impl GarantiConfig {
    pub(crate) fn signer(&self, txn: TxnType) -> Signer<'_> {
        let (user_id, password) = self.terminal.user(txn);
        Signer {
            mode: &self.mode,
            terminal: &self.terminal,
            user_id,
            password,
        }
    }

    pub(crate) fn request<'a>(
        &'a self,
        txn: TxnType,
        order_id: &'a str,
        amount: String,
        currency: Currency,
    ) -> Request<'a> {
        Request {
            signer: self.signer(txn),
            txn,
            ip_address: &self.ip_address,
            order_id,
            amount,
            currency_code: currency.numeric(),
            original_rrn: None,
            card: None,
            list: None,
        }
    }
}

/// `<endpoint>/VPServlet` (an endpoint that already ends in `/VPServlet` is kept).
pub fn servlet_url(endpoint: &str) -> String {
    let base = endpoint.trim_end_matches('/');
    if base.ends_with("/VPServlet") {
        base.to_owned()
    } else {
        format!("{base}/VPServlet")
    }
}

/// A route next to the servlet, e.g. the simulator's `/_sim/orders`.
pub fn admin_url(endpoint: &str, path: &str) -> String {
    let base = endpoint.trim_end_matches('/');
    let base = base.strip_suffix("/VPServlet").unwrap_or(base);
    format!("{base}{path}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(
            servlet_url("http://127.0.0.1:1"),
            "http://127.0.0.1:1/VPServlet"
        );
        assert_eq!(
            servlet_url("https://sanalposprovtest.garantibbva.com.tr/VPServlet/"),
            "https://sanalposprovtest.garantibbva.com.tr/VPServlet"
        );
        assert_eq!(
            admin_url("http://h:1/VPServlet", "/_sim/orders"),
            "http://h:1/_sim/orders"
        );
        assert_eq!(
            admin_url("http://h:1/", "/_sim/orders"),
            "http://h:1/_sim/orders"
        );
    }

    #[test]
    fn config_defaults_and_redaction() {
        let c = AccountCredentials::new(
            "http://h",
            [
                ("terminalId".to_owned(), "30691298".to_owned()),
                ("merchantId".to_owned(), "7000679".to_owned()),
                ("provPassword".to_owned(), "p1".to_owned()),
                ("refundPassword".to_owned(), "p2".to_owned()),
            ],
        );
        let cfg = GarantiConfig::from_account(&c).unwrap();
        assert_eq!(
            (
                cfg.terminal.prov_user_id.as_str(),
                cfg.terminal.refund_user_id.as_str(),
                cfg.mode.as_str()
            ),
            ("PROVAUT", "PROVRFN", "PROD")
        );
        assert_eq!(cfg.signer(TxnType::Refund).password, "p2");
        assert_eq!(cfg.signer(TxnType::Void).user_id, "PROVRFN");
        assert_eq!(cfg.signer(TxnType::PostAuth).password, "p1");
        assert_eq!(cfg.signer(TxnType::OrderInq).user_id, "PROVAUT");
        let shown = format!("{cfg:?}");
        assert!(!shown.contains("p1") && !shown.contains("p2"));
        let missing = AccountCredentials::new("http://h", []);
        assert!(GarantiConfig::from_account(&missing)
            .unwrap_err()
            .to_string()
            .contains("terminalId"));
    }
}
