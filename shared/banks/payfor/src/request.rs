//! `PayforRequest` documents. Element names and order follow MEWS
//! `PayForPosRequestDataMapper` (account data first: `MerchantId`, `UserCode`, `UserPass`,
//! `MbrId`, then the operation's fields) and its serializer test (`<?xml … encoding="UTF-8"?>`,
//! root `PayforRequest`). Amounts are decimal TL (`PurchAmount 100.01`); currencies ISO 4217
//! numeric (`949`); card expiry `MMYY`. PayFor's API requests carry no hash ([`crate::hash`]).

use paygate_bankkit::{amount, xml::XmlBuilder, BankRequest, Order};

use crate::{config::ApiCredentials, response::Reply};

/// The request body's content type (MEWS `PayForPosHttpClient`).
pub const CONTENT_TYPE: &str = "text/xml; charset=UTF-8";
/// The language of the bank's messages.
pub const LANG: &str = "tr";

/// Card fields as the API wants them (the expiry `MMYY`). `Debug` hides them.
pub use paygate_bankkit::CardFields;

/// `SecureType` of the requests that can move money.
pub const NON_SECURE: &str = "NonSecure";

/// One API request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request<'a> {
    /// Closes the order's pre-authorization for the amount.
    PostAuth(Order<'a>),
    /// Reverses the order's latest transaction (same business day only).
    Void(Order<'a>),
    /// Refunds the amount (full or partial) of a settled sale.
    Refund(Order<'a>),
    /// The order's main transaction (`SecureType=Inquiry`, `TxnType=OrderInquiry`).
    OrderInquiry { order_id: &'a str },
    /// Every transaction of the order (`SecureType=Report`, `TxnType=TxnHistory`).
    TxnHistory { order_id: &'a str },
    /// Every transaction of one day (`SecureType=Report`, `TxnType=TxnHistory`, `ReqDate`
    /// `YYYYMMDD`): the day history of the reconciliation ([`crate::history`]).
    DayHistory { req_date: String },
    /// A card's ParaPuan balance (`SecureType=Inquiry`, `TxnType=ParaPuanInquiry`).
    ParaPuan { card: CardFields },
}

impl Request<'_> {
    /// The request's `TxnType` and `SecureType` (`NonSecure` for the requests that can move
    /// money: the simulator's fault plan applies to these).
    pub fn txn(&self) -> (&'static str, &'static str) {
        match self {
            Self::PostAuth(_) => ("PostAuth", NON_SECURE),
            Self::Void(_) => ("Void", NON_SECURE),
            Self::Refund(_) => ("Refund", NON_SECURE),
            Self::OrderInquiry { .. } => ("OrderInquiry", "Inquiry"),
            Self::TxnHistory { .. } | Self::DayHistory { .. } => ("TxnHistory", "Report"),
            Self::ParaPuan { .. } => ("ParaPuanInquiry", "Inquiry"),
        }
    }
}

impl BankRequest for Request<'_> {
    type Reply = Reply;

    /// The `TxnType`.
    fn kind(&self) -> &'static str {
        self.txn().0
    }
}

/// The document (UTF-8 text).
pub fn to_xml(creds: &ApiCredentials, req: &Request<'_>) -> String {
    let doc = XmlBuilder::new("PayforRequest", "UTF-8")
        .leaf("MerchantId", &creds.merchant_id)
        .leaf("UserCode", &creds.user_code)
        .leaf("UserPass", &creds.user_pass)
        .leaf("MbrId", &creds.mbr_id);
    let (txn, secure) = req.txn();
    let doc = match req {
        Request::PostAuth(o) => doc
            .leaf("OrgOrderId", o.order_id)
            .leaf("SecureType", secure)
            .leaf("TxnType", txn)
            .leaf("PurchAmount", &amount::to_decimal(o.amount))
            .leaf("Currency", o.currency.numeric())
            .leaf("Lang", LANG),
        Request::Void(o) => doc
            .leaf("OrgOrderId", o.order_id)
            .leaf("SecureType", secure)
            .leaf("TxnType", txn)
            .leaf("Currency", o.currency.numeric())
            .leaf("Lang", LANG),
        Request::Refund(o) => doc
            .leaf("SecureType", secure)
            .leaf("Lang", LANG)
            .leaf("OrgOrderId", o.order_id)
            .leaf("TxnType", txn)
            .leaf("PurchAmount", &amount::to_decimal(o.amount))
            .leaf("Currency", o.currency.numeric()),
        Request::OrderInquiry { order_id } => doc
            .leaf("OrgOrderId", order_id)
            .leaf("SecureType", secure)
            .leaf("Lang", LANG)
            .leaf("TxnType", txn),
        Request::TxnHistory { order_id } => doc
            .leaf("SecureType", secure)
            .leaf("OrderId", order_id)
            .leaf("TxnType", txn)
            .leaf("Lang", LANG),
        Request::DayHistory { req_date } => doc
            .leaf("SecureType", secure)
            .leaf("ReqDate", req_date)
            .leaf("TxnType", txn)
            .leaf("Lang", LANG),
        Request::ParaPuan { card } => doc
            .leaf("SecureType", secure)
            .leaf("TxnType", txn)
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
