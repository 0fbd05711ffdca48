//! `VPosMessageContract` documents, one URL per operation (`<endpointUrl>/<Operation>`).
//! Element names, order and which fields each request carries follow MEWS
//! `VakifKatilimPosRequestDataMapper` (account data first: `MerchantId`, `CustomerId`,
//! `UserName`, `SubMerchantId`; then the operation's fields; `HashData` last) and its
//! serializer (`<?xml version="1.0" encoding="ISO-8859-1"?>`, root `VPosMessageContract`,
//! posted as `text/xml; charset=UTF-8`). Amounts are kuruş digits (`1001` for 10.01 TL).
//!
//! Two additions of this crate, both for amounts the reference never sends (README): a
//! partial pre-authorization close carries `Amount` (the reference closes the whole hold), and
//! `PartialDrawBack` carries the refund's `Amount` (the reference sends the `DrawBack` fields
//! to the `PartialDrawBack` URL). Where `Amount` is sent it enters `HashData`.

use paygate_bankkit::{xml::XmlBuilder, BankRequest, Order, Refusal};

use crate::{
    config::ApiCredentials,
    hash::{hash_data_with_hashed_password, hashed_password, HashFields},
    response::Reply,
};

/// The request body's content type (MEWS `VakifKatilimPos::send`).
pub const CONTENT_TYPE: &str = "text/xml; charset=UTF-8";
/// The declared encoding of the documents (MEWS `VakifKatilimPosSerializer`). Every value
/// sent is ASCII ([`check_order_id`]), so the bytes are the same in UTF-8.
pub const ENCODING: &str = "ISO-8859-1";
/// The root element of every request.
pub const ROOT: &str = "VPosMessageContract";
/// `PaymentType` of a sale's reversal (MEWS `createCancelRequestData`).
pub const PAYMENT_TYPE: &str = "1";

/// A money request on an order the bank knows by its own `OrderId` (read first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnOrder<'a> {
    pub order: Order<'a>,
    /// The bank's `OrderId` of the order (from `SelectOrderByMerchantOrderId`).
    pub bank_order_id: String,
}

/// One API request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request<'a> {
    /// `PreAuthorizatenClose` (sic): closes the pre-authorization; `partial` sends the
    /// amount (otherwise the whole hold is closed, as in the reference).
    Close { on: OnOrder<'a>, partial: bool },
    /// `SaleReversal`: cancels a sale (or a closed pre-authorization) before the cut.
    SaleReversal(OnOrder<'a>),
    /// `PreAuthorizationReversal`: releases an open pre-authorization.
    PreAuthReversal(OnOrder<'a>),
    /// `DrawBack`: refunds the whole sale.
    DrawBack(OnOrder<'a>),
    /// `PartialDrawBack`: refunds the amount.
    PartialDrawBack(OnOrder<'a>),
    /// `SelectOrderByMerchantOrderId`: the order's record.
    Status { order_id: &'a str },
    /// `SelectOrder`: the transactions of a date range (`YYYY-MM-DD`, at most 90 days), one
    /// page: `LowerLimit` = the entries to skip, `UpperLimit` = the page's size (MEWS
    /// `createHistoryRequestData`: (page − 1) × size and size).
    History {
        start: &'a str,
        end: &'a str,
        lower: u32,
        limit: u32,
    },
}

impl Request<'_> {
    /// The operation's name: the last segment of its URL.
    pub fn operation(&self) -> &'static str {
        match self {
            Self::Close { .. } => "PreAuthorizatenClose",
            Self::SaleReversal(_) => "SaleReversal",
            Self::PreAuthReversal(_) => "PreAuthorizationReversal",
            Self::DrawBack(_) => "DrawBack",
            Self::PartialDrawBack(_) => "PartialDrawBack",
            Self::Status { .. } => "SelectOrderByMerchantOrderId",
            Self::History { .. } => "SelectOrder",
        }
    }

    /// The merchant's order id the request names (`""` for a history page).
    pub fn order_id(&self) -> &str {
        match self {
            Self::Close { on, .. }
            | Self::SaleReversal(on)
            | Self::PreAuthReversal(on)
            | Self::DrawBack(on)
            | Self::PartialDrawBack(on) => on.order.order_id,
            Self::Status { order_id } => order_id,
            Self::History { .. } => "",
        }
    }
}

impl BankRequest for Request<'_> {
    type Reply = Reply;

    fn kind(&self) -> &'static str {
        self.operation()
    }

    /// A money answer naming another order (its `MerchantOrderId`) settles nothing.
    fn answered_by(&self, reply: &Reply) -> bool {
        let named = reply.merchant_order_id();
        named.is_empty() || named == self.order_id()
    }
}

/// Order ids travel in an ISO-8859-1 document and enter the hash: printable ASCII only
/// (nothing is sent otherwise).
pub fn check_order_id(order_id: &str) -> Result<(), Refusal> {
    if !order_id.is_empty() && order_id.bytes().all(|b| b.is_ascii_graphic()) {
        Ok(())
    } else {
        Err(Refusal::new(
            "order_id",
            "the bank takes order ids of printable ASCII characters only",
        ))
    }
}

/// The document (ASCII text).
pub fn to_xml(creds: &ApiCredentials, req: &Request<'_>) -> String {
    let password = hashed_password(&creds.password);
    let doc = XmlBuilder::new(ROOT, ENCODING)
        .leaf("MerchantId", &creds.merchant_id)
        .leaf("CustomerId", &creds.customer_id)
        .leaf("UserName", &creds.user_name)
        .leaf("SubMerchantId", &creds.sub_merchant_id);
    let kurus = |o: &Order<'_>| o.amount.to_string();
    // (document, MerchantOrderId and Amount as hashed)
    let (doc, order_id, amount) = match req {
        Request::Close { on, partial } => {
            let doc = doc
                .leaf("HashPassword", &password)
                .leaf("MerchantOrderId", on.order.order_id)
                .leaf("OrderId", &on.bank_order_id);
            if *partial {
                let a = kurus(&on.order);
                (doc.leaf("Amount", &a), on.order.order_id, a)
            } else {
                (doc, on.order.order_id, String::new())
            }
        }
        Request::SaleReversal(on) => {
            let a = kurus(&on.order);
            let doc = doc
                .leaf("HashPassword", &password)
                .leaf("MerchantOrderId", on.order.order_id)
                .leaf("OrderId", &on.bank_order_id)
                .leaf("PaymentType", PAYMENT_TYPE)
                .leaf("Amount", &a);
            (doc, on.order.order_id, a)
        }
        Request::PreAuthReversal(on) => {
            let doc = doc
                .leaf("HashPassword", &password)
                .leaf("MerchantOrderId", on.order.order_id)
                .leaf("OrderId", &on.bank_order_id)
                .leaf("PaymentType", PAYMENT_TYPE);
            (doc, on.order.order_id, String::new())
        }
        Request::DrawBack(on) => {
            let doc = doc
                .leaf("HashPassword", &password)
                .leaf("MerchantOrderId", on.order.order_id)
                .leaf("OrderId", &on.bank_order_id);
            (doc, on.order.order_id, String::new())
        }
        Request::PartialDrawBack(on) => {
            let a = kurus(&on.order);
            let doc = doc
                .leaf("HashPassword", &password)
                .leaf("MerchantOrderId", on.order.order_id)
                .leaf("OrderId", &on.bank_order_id)
                .leaf("Amount", &a);
            (doc, on.order.order_id, a)
        }
        Request::Status { order_id } => (
            doc.leaf("MerchantOrderId", order_id),
            *order_id,
            String::new(),
        ),
        Request::History {
            start,
            end,
            lower,
            limit,
        } => {
            let doc = doc
                .leaf("StartDate", start)
                .leaf("EndDate", end)
                .leaf("LowerLimit", &lower.to_string())
                .leaf("UpperLimit", &limit.to_string())
                .leaf("ProvNumber", "")
                .leaf("OrderStatus", "")
                .leaf("TranResult", "")
                .leaf("OrderNo", "");
            (doc, "", String::new())
        }
    };
    let fields = HashFields {
        merchant_id: &creds.merchant_id,
        merchant_order_id: order_id,
        amount: &amount,
        ok_url: "",
        fail_url: "",
        user_name: &creds.user_name,
    };
    doc.leaf(
        "HashData",
        &hash_data_with_hashed_password(&fields, &password),
    )
    .finish()
}

/// The request body.
pub fn encode(creds: &ApiCredentials, req: &Request<'_>) -> Vec<u8> {
    to_xml(creds, req).into_bytes()
}
