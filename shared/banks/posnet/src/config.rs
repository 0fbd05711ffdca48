//! What a Posnet account's secret holds ([`keys`]), read into a [`PosnetConfig`].

use paygate_bankkit::{AccountCredentials, BankConfig, TestOrderRoute};
use paygate_domain::{Currency, StoreError};

use crate::{request::Terminal, wire};

/// Credential keys of the account secret (besides `endpointUrl`).
pub mod keys {
    /// Merchant number, 10 digits (required).
    pub const MID: &str = "mid";
    /// Terminal number, 8 digits (required).
    pub const TID: &str = "tid";
    /// Posnet id (optional; sent as `X-POSNET-ID`; the 3-D flow's `posnetid`).
    pub const POSNET_ID: &str = "posnetId";
    /// Prefix the bank put before the order id (optional; `TDSC` for 3-D Secure orders).
    pub const ORDER_ID_PREFIX: &str = "orderIdPrefix";
    /// Currency letters for TRY: `TL` (default) or `YT` (old terminals).
    pub const TRY_CURRENCY: &str = "currencyCodeTry";
}

/// An account's Posnet settings, read from its secret.
pub struct PosnetConfig {
    pub(crate) endpoint: String,
    pub(crate) mid: String,
    pub(crate) tid: String,
    pub(crate) posnet_id: Option<String>,
    pub(crate) prefix: String,
    pub(crate) try_code: String,
}

impl BankConfig for PosnetConfig {
    fn from_account(c: &AccountCredentials) -> Result<Self, StoreError> {
        let header_safe = |key: &str, v: &str| {
            if v.bytes().all(|b| b.is_ascii_alphanumeric()) {
                Ok(v.to_owned())
            } else {
                Err(StoreError::Corrupt(format!(
                    "bank credential `{key}` must be letters and digits"
                )))
            }
        };
        let required = |key: &str| c.require(key).and_then(|v| header_safe(key, v));
        let try_code = c.get(keys::TRY_CURRENCY).unwrap_or("TL").to_owned();
        if try_code != "TL" && try_code != "YT" {
            return Err(StoreError::Corrupt(format!(
                "bank credential `{}` must be TL or YT",
                keys::TRY_CURRENCY
            )));
        }
        Ok(Self {
            endpoint: c.endpoint_url.clone(),
            mid: required(keys::MID)?,
            tid: required(keys::TID)?,
            posnet_id: c
                .get(keys::POSNET_ID)
                .filter(|v| !v.is_empty())
                .map(|v| header_safe(keys::POSNET_ID, v))
                .transpose()?,
            prefix: c.get(keys::ORDER_ID_PREFIX).unwrap_or_default().to_owned(),
            try_code,
        })
    }

    /// The simulator's `POST <origin>/_sim/orders`, for the account's merchant number and
    /// order id prefix.
    fn test_order_route(&self) -> Option<TestOrderRoute> {
        TestOrderRoute::at(
            self.admin_base(),
            &[("mid", &self.mid), ("orderIdPrefix", &self.prefix)],
        )
    }
}

impl PosnetConfig {
    pub(crate) fn terminal(&self) -> Terminal<'_> {
        Terminal {
            mid: &self.mid,
            tid: &self.tid,
        }
    }

    pub(crate) fn currency(&self, c: Currency) -> &str {
        wire::currency_code(c, &self.try_code)
    }

    /// Where the simulator's admin routes live: the endpoint without the service path.
    pub(crate) fn admin_base(&self) -> &str {
        let e = self.endpoint.trim_end_matches('/');
        e.strip_suffix(wire::SERVICE_PATH).unwrap_or(e)
    }
}

impl std::fmt::Debug for PosnetConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PosnetConfig")
            .field("mid", &self.mid)
            .field("tid", &self.tid)
            .finish_non_exhaustive()
    }
}
