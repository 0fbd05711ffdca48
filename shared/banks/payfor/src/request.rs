//! `PayforRequest` documents. Element names and order follow MEWS
//! `PayForPosRequestDataMapper` (account data first: `MerchantId`, `UserCode`, `UserPass`,
//! `MbrId`, then the operation's fields) and its serializer test (`<?xml … encoding="UTF-8"?>`,
//! root `PayforRequest`). Amounts are decimal TL (`PurchAmount 100.01`); currencies ISO 4217
//! numeric (`949`); card expiry `MMYY`. PayFor's API requests carry no hash ([`crate::hash`]).

use paygate_bankkit::{amount, xml::XmlBuilder};
use paygate_domain::Currency;

use crate::config::ApiCredentials;

/// The request body's content type (MEWS `PayForPosHttpClient`).
pub const CONTENT_TYPE: &str = "text/xml; charset=UTF-8";
/// The language of the bank's messages.
pub const LANG: &str = "tr";

/// Card fields as the API wants them (the expiry `MMYY`). `Debug` hides them.
pub use paygate_bankkit::CardFields;

/// One API request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request<'a> {
    /// Closes the order's pre-authorization for `amount`.
    PostAuth {
        order_id: &'a str,
        amount: i64,
        currency: Currency,
    },
    /// Reverses the order's latest transaction (same business day only).
    Void {
        order_id: &'a str,
        currency: Currency,
    },
    /// Refunds `amount` (full or partial) of a settled sale.
    Refund {
        order_id: &'a str,
        amount: i64,
        currency: Currency,
    },
    /// The order's main transaction (`SecureType=Inquiry`, `TxnType=OrderInquiry`).
    OrderInquiry { order_id: &'a str },
    /// Every transaction of the order (`SecureType=Report`, `TxnType=TxnHistory`).
    TxnHistory { order_id: &'a str },
    /// A card's ParaPuan balance (`SecureType=Inquiry`, `TxnType=ParaPuanInquiry`).
    ParaPuan { card: &'a CardFields },
}

impl Request<'_> {
    /// A short name for logs (never the body).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::PostAuth { .. } => "PostAuth",
            Self::Void { .. } => "Void",
            Self::Refund { .. } => "Refund",
            Self::OrderInquiry { .. } => "OrderInquiry",
            Self::TxnHistory { .. } => "TxnHistory",
            Self::ParaPuan { .. } => "ParaPuanInquiry",
        }
    }

    /// Whether the request can move money (the simulator's fault plan applies to these).
    pub fn moves_money(&self) -> bool {
        matches!(
            self,
            Self::PostAuth { .. } | Self::Void { .. } | Self::Refund { .. }
        )
    }
}

/// The document (UTF-8 text).
pub fn to_xml(creds: &ApiCredentials, req: &Request<'_>) -> String {
    let doc = XmlBuilder::new("PayforRequest", "UTF-8")
        .leaf("MerchantId", &creds.merchant_id)
        .leaf("UserCode", &creds.user_code)
        .leaf("UserPass", &creds.user_pass)
        .leaf("MbrId", &creds.mbr_id);
    let doc = match req {
        Request::PostAuth {
            order_id,
            amount,
            currency,
        } => doc
            .leaf("OrgOrderId", order_id)
            .leaf("SecureType", "NonSecure")
            .leaf("TxnType", "PostAuth")
            .leaf("PurchAmount", &amount::to_decimal(*amount))
            .leaf("Currency", currency.numeric())
            .leaf("Lang", LANG),
        Request::Void { order_id, currency } => doc
            .leaf("OrgOrderId", order_id)
            .leaf("SecureType", "NonSecure")
            .leaf("TxnType", "Void")
            .leaf("Currency", currency.numeric())
            .leaf("Lang", LANG),
        Request::Refund {
            order_id,
            amount,
            currency,
        } => doc
            .leaf("SecureType", "NonSecure")
            .leaf("Lang", LANG)
            .leaf("OrgOrderId", order_id)
            .leaf("TxnType", "Refund")
            .leaf("PurchAmount", &amount::to_decimal(*amount))
            .leaf("Currency", currency.numeric()),
        Request::OrderInquiry { order_id } => doc
            .leaf("OrgOrderId", order_id)
            .leaf("SecureType", "Inquiry")
            .leaf("Lang", LANG)
            .leaf("TxnType", "OrderInquiry"),
        Request::TxnHistory { order_id } => doc
            .leaf("SecureType", "Report")
            .leaf("OrderId", order_id)
            .leaf("TxnType", "TxnHistory")
            .leaf("Lang", LANG),
        Request::ParaPuan { card } => doc
            .leaf("SecureType", "Inquiry")
            .leaf("TxnType", "ParaPuanInquiry")
            .leaf("Pan", &card.number)
            .leaf("Expiry", &card.expiry_mmyy())
            .leaf("Cvv2", &card.cvv),
    };
    doc.finish()
}

/// The request body: the document in UTF-8.
pub fn encode(creds: &ApiCredentials, req: &Request<'_>) -> Vec<u8> {
    to_xml(creds, req).into_bytes()
}
