//! JSON request bodies of `MerchantJSONAPI.svc`, each POSTed to `<endpointUrl>/<TransactionType>`
//! (MEWS `PosNetV1Pos::getApiURL`). Fields follow MEWS `PosNetV1PosRequestDataMapper`: every
//! body has `ApiType "JSON"`, `ApiVersion "V100"`, `MerchantNo`, `TerminalNo`, `MACParams`,
//! `MAC` and the unused `CipheredData`, `DealerData`, `IsEncrypted`, `PaymentFacilitatorData`
//! (`null`). Amounts are integers in kuruş (`11200`), currencies two letters (`TL`).
//!
//! Follow-up requests name the transaction they act on by its `ReferenceCode` (the bank's
//! `HostLogKey`, read from the order's inquiry) and its `TransactionType` (`Sale`, `Auth`,
//! `Capture`), with `OrderId` null (the MEWS `withReferenceCode` form, the one of the MAC
//! vector). A return always carries `Amount` and `CurrencyCode`: never "the rest".

use paygate_bankkit::{BankRequest, Refusal};
use paygate_domain::Currency;
use serde_json::{json, Value};

use crate::{config::Credentials, hash, response::Reply};

/// The request body's content type.
pub const CONTENT_TYPE: &str = "application/json";
/// The API version every body names.
pub const API_VERSION: &str = "V100";
/// The length of an order id in an inquiry, prefix included (MEWS `ORDER_ID_TOTAL_LENGTH`).
pub const ORDER_ID_LENGTH: usize = 24;

/// A transaction of an order, as the inquiry lists it (`TransactionType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Sale,
    Auth,
    Capture,
    Reverse,
    Return,
}

impl Kind {
    /// The bank's name of the kind (also the URL path of the request of that kind).
    pub fn name(self) -> &'static str {
        match self {
            Self::Sale => "Sale",
            Self::Auth => "Auth",
            Self::Capture => "Capture",
            Self::Reverse => "Reverse",
            Self::Return => "Return",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::Sale,
            Self::Auth,
            Self::Capture,
            Self::Reverse,
            Self::Return,
        ]
        .into_iter()
        .find(|k| k.name() == s)
    }
}

/// The transaction a follow-up request acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Its `HostLogKey`, sent as `ReferenceCode`.
    pub reference: String,
    pub kind: Kind,
}

/// One API request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Closes the authorization `auth` for the amount (`/Capture`).
    Capture {
        auth: Target,
        amount: i64,
        currency: Currency,
    },
    /// Reverses the transaction `of` (`/Reverse`), on its business day only.
    Reverse { of: Target },
    /// Returns `amount` of the sale or capture `of` (`/Return`), after its end of day.
    Return {
        of: Target,
        amount: i64,
        currency: Currency,
    },
    /// The order's transactions (`/TransactionInquiry`) under its bank order id
    /// ([`bank_order_id`]).
    Inquiry { order_id: String },
}

impl Request {
    /// The request's name for logs and the last segment of its URL.
    pub fn path(&self) -> &'static str {
        match self {
            Self::Capture { .. } => "Capture",
            Self::Reverse { .. } => "Reverse",
            Self::Return { .. } => "Return",
            Self::Inquiry { .. } => "TransactionInquiry",
        }
    }
}

impl BankRequest for Request {
    type Reply = Reply;

    fn kind(&self) -> &'static str {
        self.path()
    }
}

/// The bank's two-letter currency (MEWS `currencyMappings`).
pub fn currency_code(c: Currency) -> &'static str {
    match c {
        Currency::Try => "TL",
        Currency::Usd => "US",
        Currency::Eur => "EU",
        Currency::Gbp => "GB",
    }
}

/// The order id an inquiry names: `prefix` and the id left-padded with `0` to 24 characters
/// (MEWS `mapOrderIdToPrefixedOrderId`: `2020110828BC` → `0000000000002020110828BC`, with
/// `TDS_` → `TDS_000000002020110828BC`). An id that does not fit, or holds other than
/// letters, digits and `_`, is refused before anything is sent: never truncated, so two
/// orders never map to one.
pub fn bank_order_id(prefix: &str, order_id: &str) -> Result<String, Refusal> {
    let room = ORDER_ID_LENGTH.saturating_sub(prefix.len());
    let ok = |s: &str| s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if order_id.is_empty() || order_id.len() > room || !ok(order_id) || !ok(prefix) {
        return Err(Refusal::new(
            "order_id",
            format!(
                "the order id must be 1 to {room} letters, digits or `_` for the bank's \
                 {ORDER_ID_LENGTH}-character order id"
            ),
        ));
    }
    Ok(format!("{prefix}{order_id:0>room$}"))
}

/// The members every body starts with.
fn head(creds: &Credentials, mac_params: &str) -> serde_json::Map<String, Value> {
    let v = json!({
        "ApiType": "JSON",
        "ApiVersion": API_VERSION,
        "MerchantNo": creds.merchant_no,
        "TerminalNo": creds.terminal_no,
        "MACParams": mac_params,
        "CipheredData": null,
        "DealerData": null,
        "IsEncrypted": null,
        "PaymentFacilitatorData": null,
    });
    match v {
        Value::Object(m) => m,
        _ => serde_json::Map::new(),
    }
}

/// The body of `req`.
pub fn to_json(creds: &Credentials, req: &Request) -> String {
    let (m, n) = (creds.merchant_no.as_str(), creds.terminal_no.as_str());
    let body = match req {
        Request::Capture {
            auth,
            amount,
            currency,
        } => {
            let mut b = head(creds, hash::PARAMS_MERCHANT);
            b.insert("Amount".into(), json!(amount));
            b.insert("CurrencyCode".into(), json!(currency_code(*currency)));
            b.insert("ReferenceCode".into(), json!(auth.reference));
            b.insert("InstallmentCount".into(), json!("0"));
            b.insert("InstallmentType".into(), json!("N"));
            b.insert("MAC".into(), json!(hash::mac(&[m, n], &creds.enc_key)));
            b
        }
        Request::Reverse { of } | Request::Return { of, .. } => {
            let mut b = head(creds, hash::PARAMS_REFERENCE);
            b.insert("ReferenceCode".into(), json!(of.reference));
            b.insert("OrderId".into(), Value::Null);
            b.insert("TransactionType".into(), json!(of.kind.name()));
            if let Request::Return {
                amount, currency, ..
            } = req
            {
                b.insert("Amount".into(), json!(amount));
                b.insert("CurrencyCode".into(), json!(currency_code(*currency)));
            }
            let mac = hash::mac(&[m, n, &of.reference, ""], &creds.enc_key);
            b.insert("MAC".into(), json!(mac));
            b
        }
        Request::Inquiry { order_id } => {
            let mut b = head(creds, hash::PARAMS_MERCHANT);
            b.insert("IsEncrypted".into(), json!("N"));
            b.insert("OrderId".into(), json!(order_id));
            b.insert("MAC".into(), json!(hash::mac(&[m, n], &creds.enc_key)));
            b
        }
    };
    Value::Object(body).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_ids_are_padded_never_cut() {
        assert_eq!(
            bank_order_id("", "2020110828BC").unwrap(),
            "0000000000002020110828BC"
        );
        assert_eq!(
            bank_order_id("TDS_", "2020110828BC").unwrap(),
            "TDS_000000002020110828BC"
        );
        let gateway = "PGABCDEFGHIJKLMNOPQRST";
        assert_eq!(bank_order_id("", gateway).unwrap(), format!("00{gateway}"));
        for (prefix, bad) in [
            ("TDS_", gateway),
            ("", "a-b"),
            ("", ""),
            ("", &"9".repeat(25)),
        ] {
            assert_eq!(
                bank_order_id(prefix, bad).unwrap_err().code,
                "order_id",
                "{bad}"
            );
        }
    }

    #[test]
    fn kinds_round_trip() {
        for k in ["Sale", "Auth", "Capture", "Reverse", "Return"] {
            assert_eq!(Kind::parse(k).unwrap().name(), k);
        }
        assert_eq!(Kind::parse("PointUsage"), None);
    }
}
