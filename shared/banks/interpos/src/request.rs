//! InterVPOS requests: `application/x-www-form-urlencoded` bodies. Field names and order
//! follow MEWS `InterPosRequestDataMapper` (account data first: `UserCode`, `UserPass`,
//! `ShopCode`; back-office operations address the order by `orgOrderId`; MEWS's `OrderId`
//! is null there, which PHP's `http_build_query` leaves out) and, for `BonusInquiry`, the LNK
//! `IvpBonusInquiryRequest` (`ShopCode`, `TxnType`, `OrderId`, `UserCode`, `UserPass`,
//! `SecureType`, `Lang`, `Currency`, `Pan`, `Expiry`, `Cvv2`). Amounts are decimal TL with
//! two decimals (`PurchAmount=10.00`; MEWS passes PHP's float text, `10`); currencies ISO
//! 4217 numeric; `Expiry` is `MMYY`.

use paygate_bankkit::{amount, form::Form, BankRequest, Order};
use paygate_domain::Currency;

use crate::{config::ShopCredentials, response::Reply};

/// The request body's content type.
pub const CONTENT_TYPE: &str = paygate_bankkit::form::FORM_CONTENT_TYPE;
/// `SecureType` of every back-office request.
pub const NON_SECURE: &str = "NonSecure";
/// `Lang`.
pub const LANG: &str = "TR";

/// Card fields as the API wants them (the expiry `MMYY`). `Debug` hides them.
pub use paygate_bankkit::CardFields;

/// One request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request<'a> {
    /// Closes the order's pre-authorization for the amount.
    PostAuth(Order<'a>),
    /// Cancels the order's last transaction (before the end-of-day cut).
    Void { order_id: &'a str },
    /// Refunds the amount (full or partial) of a settled sale.
    Refund(Order<'a>),
    /// The order's status (`StatusHistory`).
    Status { order_id: &'a str },
    /// The card's Bonus balance.
    Bonus {
        card: CardFields,
        currency: Currency,
    },
}

impl BankRequest for Request<'_> {
    type Reply = Reply;

    /// The `TxnType` (also the name logs use).
    fn kind(&self) -> &'static str {
        match self {
            Self::PostAuth(_) => "PostAuth",
            Self::Void { .. } => "Void",
            Self::Refund(_) => "Refund",
            Self::Status { .. } => "StatusHistory",
            Self::Bonus { .. } => "BonusInquiry",
        }
    }
}

/// The form.
pub fn form(c: &ShopCredentials, req: &Request<'_>) -> Form {
    if let Request::Bonus { card, currency } = req {
        return Form::new()
            .field("ShopCode", &c.shop_code)
            .field("TxnType", req.kind())
            .field("OrderId", "")
            .field("UserCode", &c.user_code)
            .field("UserPass", &c.user_pass)
            .field("SecureType", NON_SECURE)
            .field("Lang", LANG)
            .field("Currency", currency.numeric())
            .field("Pan", &card.number)
            .field("Expiry", card.expiry_mmyy())
            .field("Cvv2", &card.cvv);
    }
    let f = Form::new()
        .field("UserCode", &c.user_code)
        .field("UserPass", &c.user_pass)
        .field("ShopCode", &c.shop_code);
    match req {
        Request::PostAuth(o) => f
            .field("TxnType", req.kind())
            .field("SecureType", NON_SECURE)
            .field("orgOrderId", o.order_id)
            .field("PurchAmount", amount::to_decimal(o.amount))
            .field("Currency", o.currency.numeric())
            .field("MOTO", "0"),
        Request::Void { order_id } | Request::Status { order_id } => f
            .field("orgOrderId", *order_id)
            .field("TxnType", req.kind())
            .field("SecureType", NON_SECURE)
            .field("Lang", LANG),
        Request::Refund(o) => f
            .field("orgOrderId", o.order_id)
            .field("PurchAmount", amount::to_decimal(o.amount))
            .field("TxnType", req.kind())
            .field("SecureType", NON_SECURE)
            .field("Lang", LANG)
            .field("MOTO", "0"),
        Request::Bonus { .. } => f,
    }
}

/// The request body.
pub fn encode(c: &ShopCredentials, req: &Request<'_>) -> Vec<u8> {
    form(c, req).encode()
}
