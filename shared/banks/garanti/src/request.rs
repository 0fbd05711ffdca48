//! Request encoding: the `GVPSRequest` document of each operation, element for element in
//! the order of the MEWS request-mapper samples (postauth, void, refund, orderinq,
//! orderhistoryinq, orderlistinq) and of Garanti's own sample code (`rewardinq`).

use paygate_bankkit::{xml::XmlBuilder, BankRequest};
use paygate_domain::CardDetails;

use crate::{
    hash::{hash_data, HashInput},
    response::GvpsResponse,
    Terminal,
};

/// API version sent in `Version`: the SHA-512 hash rule.
pub const API_VERSION: &str = "512";
/// The amount void, orderinq and orderhistoryinq carry (1.00 TL): the bank ignores it but
/// the field is mandatory and enters the hash (MEWS sends `100`; see README).
pub const FIXED_AMOUNT: &str = "100";
/// The amount `rewardinq` carries (Garanti's sample code and DTGP send `1`).
pub const REWARD_INQUIRY_AMOUNT: &str = "1";
/// Content type of requests.
pub const CONTENT_TYPE: &str = "text/xml; charset=utf-8";

/// The operations this adapter sends (`Transaction/Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxnType {
    PostAuth,
    Void,
    Refund,
    OrderInq,
    OrderHistoryInq,
    /// The terminal's transactions of a date range, 500 a page (the daily reconciliation).
    OrderListInq,
    RewardInq,
}

impl TxnType {
    pub fn wire(self) -> &'static str {
        match self {
            Self::PostAuth => "postauth",
            Self::Void => "void",
            Self::Refund => "refund",
            Self::OrderInq => "orderinq",
            Self::OrderHistoryInq => "orderhistoryinq",
            Self::OrderListInq => "orderlistinq",
            Self::RewardInq => "rewardinq",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::PostAuth,
            Self::Void,
            Self::Refund,
            Self::OrderInq,
            Self::OrderHistoryInq,
            Self::OrderListInq,
            Self::RewardInq,
        ]
        .into_iter()
        .find(|t| t.wire() == s)
    }

    /// Void and refund are signed by the PROVRFN user with its own password.
    pub fn needs_refund_user(self) -> bool {
        matches!(self, Self::Void | Self::Refund)
    }
}

/// Who signs: the terminal and one of its users.
#[derive(Clone)]
pub struct Signer<'a> {
    /// `TEST` or `PROD`.
    pub mode: &'a str,
    pub terminal: &'a Terminal,
    pub user_id: &'a str,
    pub password: &'a str,
}

/// The range and page of an `orderlistinq` (`Order/StartDate`, `EndDate`, `ListPageNum`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListRange {
    /// `dd/MM/yyyy HH:mm`, Istanbul time.
    pub start: String,
    pub end: String,
    /// From 1.
    pub page: u32,
}

/// One request, before encoding.
pub struct Request<'a> {
    pub signer: Signer<'a>,
    pub txn: TxnType,
    pub ip_address: &'a str,
    pub order_id: &'a str,
    /// `Transaction/Amount` exactly as sent (integer kuruş, or a fixed amount).
    pub amount: String,
    /// ISO 4217 numeric code (`949`).
    pub currency_code: &'a str,
    /// The rrn of the transaction a void targets.
    pub original_rrn: Option<&'a str>,
    /// The card of a `rewardinq`.
    pub card: Option<&'a CardDetails>,
    /// The range and page of an `orderlistinq`.
    pub list: Option<ListRange>,
}

/// `MMYY` from the card's month and (two- or four-digit) year.
pub fn expire_date(card: &CardDetails) -> String {
    let month = format!("{:0>2}", card.exp_month.trim());
    let year: Vec<char> = card.exp_year.trim().chars().collect();
    let yy: String = year[year.len().saturating_sub(2)..].iter().collect();
    format!("{month}{yy:0>2}")
}

impl BankRequest for Request<'_> {
    type Reply = GvpsResponse;

    /// The `Transaction/Type`.
    fn kind(&self) -> &'static str {
        self.txn.wire()
    }

    /// An answer naming another order settles nothing.
    fn answered_by(&self, reply: &GvpsResponse) -> bool {
        reply.order_id.is_empty() || reply.order_id == self.order_id
    }
}

impl Request<'_> {
    /// The `HashData` of this request.
    pub fn hash(&self) -> String {
        hash_data(
            &HashInput {
                order_id: self.order_id,
                terminal_id: &self.signer.terminal.terminal_id,
                card_number: self.card.map_or("", |c| c.number.as_str()),
                amount: &self.amount,
                currency_code: self.currency_code,
            },
            self.signer.password,
        )
    }

    /// The XML document (UTF-8). Contains the card number for `rewardinq`: never log it.
    pub fn to_xml(&self) -> String {
        let s = &self.signer;
        let mut b = XmlBuilder::new("GVPSRequest", "UTF-8")
            .leaf("Mode", s.mode)
            .leaf("Version", API_VERSION)
            .open("Terminal")
            .leaf("ProvUserID", s.user_id)
            .leaf("UserID", s.user_id)
            .leaf("HashData", &self.hash())
            .leaf("ID", &s.terminal.terminal_id)
            .leaf("MerchantID", &s.terminal.merchant_id)
            .close()
            .open("Customer")
            .leaf("IPAddress", self.ip_address)
            .close();
        if let Some(card) = self.card {
            b = b
                .open("Card")
                .leaf("Number", &card.number)
                .leaf("ExpireDate", &expire_date(card))
                .leaf("CVV2", &card.cvv)
                .close();
        }
        b = b.open("Order").leaf("OrderID", self.order_id);
        if let Some(l) = &self.list {
            b = b
                .leaf("GroupID", "")
                .leaf("Description", "")
                .leaf("StartDate", &l.start)
                .leaf("EndDate", &l.end)
                .leaf("ListPageNum", &l.page.to_string());
        }
        b = b.close().open("Transaction").leaf("Type", self.txn.wire());
        b = match self.txn {
            TxnType::PostAuth => b
                .leaf("Amount", &self.amount)
                .leaf("CurrencyCode", self.currency_code),
            TxnType::RewardInq => b
                .leaf("Amount", &self.amount)
                .leaf("CurrencyCode", self.currency_code)
                .leaf("CardholderPresentCode", "0")
                .leaf("MotoInd", "H"),
            TxnType::OrderListInq => b
                .leaf("Amount", &self.amount)
                .leaf("CurrencyCode", self.currency_code)
                .leaf("CardholderPresentCode", "0")
                .leaf("MotoInd", "N"),
            _ => b
                .leaf("InstallmentCnt", "")
                .leaf("Amount", &self.amount)
                .leaf("CurrencyCode", self.currency_code)
                .leaf("CardholderPresentCode", "0")
                .leaf("MotoInd", "N"),
        };
        if let Some(rrn) = self.original_rrn {
            b = b.leaf("OriginalRetrefNum", rrn);
        }
        b.finish()
    }
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
