//! `VposRequest` and `SearchRequest` documents. Element names and order follow MEWS
//! `PayFlexV4PosRequestDataMapper` and its serializer test: account data first (`MerchantId`,
//! `Password`, `TerminalNo` on captures only), then `TransactionType`,
//! `ReferenceTransactionId`, `CurrencyAmount` (decimal TL, two decimals), `CurrencyCode` (ISO
//! 4217 numeric), `ClientIp`. Back-office operations address the bank's **transaction id** of
//! the original (`ReferenceTransactionId`), never the order id, so the adapter looks it up in
//! the search service first (see the crate root).
//!
//! Transport: `application/x-www-form-urlencoded`, one field `prmstr=<the XML>` (MEWS
//! `PayFlexV4Pos::send`), UTF-8. The `VposRequest` has no XML declaration, the
//! `SearchRequest` has one (MEWS serializer test vectors).

use paygate_bankkit::{amount, form::Form, xml::XmlBuilder, BankRequest};
use paygate_domain::Currency;

use crate::{config::MerchantCredentials, response::Reply};

/// The request body's content type.
pub const CONTENT_TYPE: &str = paygate_bankkit::form::FORM_CONTENT_TYPE;
/// The form field that carries the XML.
pub const FIELD: &str = "prmstr";

/// One request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request<'a> {
    /// Closes the pre-authorization `reference` for `amount` (full or partial).
    Capture {
        reference: &'a str,
        amount: i64,
        currency: Currency,
    },
    /// Cancels the transaction `reference` (same business day only).
    Cancel { reference: &'a str },
    /// Refunds `amount` (full or partial) of the sale or capture `reference`.
    Refund { reference: &'a str, amount: i64 },
    /// The order's transactions at the search service.
    Search { order_id: &'a str },
}

impl BankRequest for Request<'_> {
    type Reply = Reply;

    /// The `TransactionType`, or `Search`.
    fn kind(&self) -> &'static str {
        match self {
            Self::Capture { .. } => "Capture",
            Self::Cancel { .. } => "Cancel",
            Self::Refund { .. } => "Refund",
            Self::Search { .. } => "Search",
        }
    }
}

impl Request<'_> {
    /// Whether it goes to the search service (else the VPOS endpoint).
    pub fn is_search(&self) -> bool {
        matches!(self, Self::Search { .. })
    }
}

/// The XML document.
pub fn to_xml(c: &MerchantCredentials, req: &Request<'_>) -> String {
    match req {
        Request::Search { order_id } => XmlBuilder::new("SearchRequest", "UTF-8")
            .open("MerchantCriteria")
            .leaf("HostMerchantId", &c.merchant_id)
            .leaf("MerchantPassword", &c.password)
            .close()
            .open("TransactionCriteria")
            .leaf("TransactionId", "")
            .leaf("OrderId", order_id)
            .leaf("AuthCode", "")
            .finish(),
        _ => {
            let doc = vpos(c, req);
            // MEWS sends the VposRequest without a declaration.
            match doc.find("?>") {
                Some(at) if doc.starts_with("<?xml") => doc[at + 2..].to_owned(),
                _ => doc,
            }
        }
    }
}

fn vpos(c: &MerchantCredentials, req: &Request<'_>) -> String {
    let doc = XmlBuilder::new("VposRequest", "UTF-8")
        .leaf("MerchantId", &c.merchant_id)
        .leaf("Password", &c.password);
    match req {
        Request::Capture {
            reference,
            amount,
            currency,
        } => doc
            .leaf("TerminalNo", &c.terminal_no)
            .leaf("TransactionType", "Capture")
            .leaf("ReferenceTransactionId", reference)
            .leaf("CurrencyAmount", &amount::to_decimal(*amount))
            .leaf("CurrencyCode", currency.numeric())
            .leaf("ClientIp", &c.client_ip),
        Request::Cancel { reference } => doc
            .leaf("TransactionType", "Cancel")
            .leaf("ReferenceTransactionId", reference)
            .leaf("ClientIp", &c.client_ip),
        Request::Refund { reference, amount } => doc
            .leaf("TransactionType", "Refund")
            .leaf("ReferenceTransactionId", reference)
            .leaf("ClientIp", &c.client_ip)
            .leaf("CurrencyAmount", &amount::to_decimal(*amount)),
        Request::Search { .. } => doc,
    }
    .finish()
}

/// The request body: `prmstr=<url-encoded XML>`.
pub fn encode(c: &MerchantCredentials, req: &Request<'_>) -> Vec<u8> {
    Form::new().field(FIELD, to_xml(c, req)).encode()
}

/// Where the request goes.
pub fn url<'c>(c: &'c MerchantCredentials, req: &Request<'_>) -> &'c str {
    if req.is_search() {
        &c.search_url
    } else {
        &c.endpoint_url
    }
}
