//! `CC5Request` documents. Element names and order follow MEWS `EstPosRequestDataMapper`
//! (account data first: `Name`, `Password`, `ClientId`, then `Type`, `OrderId`, `Total`,
//! `Currency`, `Extra`) and the PARA request samples; see the crate README for where the
//! sources differ. Amounts are decimal TL with two decimals (`1.01`, `25.40`); currencies are
//! ISO 4217 numeric (`949`). The document declares and is encoded in ISO-8859-9.
//!
//! Nestpay's API requests carry no hash: the plain credentials authenticate them.

use paygate_bankkit::{amount, encoding, xml::XmlBuilder, BankRequest, Order};
use paygate_domain::Currency;

use crate::{config::ApiCredentials, response::Reply};

/// The request body's content type: the raw XML document, in its declared charset.
pub const CONTENT_TYPE: &str = "text/xml; charset=ISO-8859-9";
/// The charset every document declares.
pub const ENCODING: &str = "ISO-8859-9";

/// Card fields as the API wants them (the expiry `MM/YY`). `Debug` hides them.
pub use paygate_bankkit::CardFields;

/// One API request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request<'a> {
    /// Closes a pre-authorization for the order's amount (the full or a partial amount).
    PostAuth(Order<'a>),
    /// Cancels the order's sale or pre-authorization (before the end-of-day cut).
    Void { order_id: &'a str },
    /// Refunds the amount (full or partial) of a settled sale; always with `Total`, since an
    /// empty amount is refused (`CORE-2504`, mewebstudio/pos#20).
    Credit(Order<'a>),
    /// The order's current transaction (`Extra/ORDERSTATUS=QUERY`).
    OrderStatus { order_id: &'a str },
    /// Every transaction of the order (`Extra/ORDERHISTORY=QUERY`).
    OrderHistory { order_id: &'a str },
    /// İşbank Maximum points balance of a card (`Extra/MAXIPUANSORGU`).
    MaxiPuan {
        card: CardFields,
        currency: Currency,
    },
}

impl BankRequest for Request<'_> {
    type Reply = Reply;

    /// The `Type`, or the `Extra` query's name.
    fn kind(&self) -> &'static str {
        match self {
            Self::PostAuth(_) => "PostAuth",
            Self::Void { .. } => "Void",
            Self::Credit(_) => "Credit",
            Self::OrderStatus { .. } => "ORDERSTATUS",
            Self::OrderHistory { .. } => "ORDERHISTORY",
            Self::MaxiPuan { .. } => "MAXIPUANSORGU",
        }
    }
}

/// The document as text (what [`encode`] turns into ISO-8859-9 bytes).
pub fn to_xml(creds: &ApiCredentials, req: &Request<'_>) -> String {
    let doc = XmlBuilder::new("CC5Request", ENCODING)
        .leaf("Name", &creds.name)
        .leaf("Password", &creds.password)
        .leaf("ClientId", &creds.client_id);
    let doc = match req {
        Request::PostAuth(o) => doc
            .leaf("Type", req.kind())
            .leaf("OrderId", o.order_id)
            .leaf("Total", &amount::to_decimal(o.amount)),
        Request::Void { order_id } => doc.leaf("Type", req.kind()).leaf("OrderId", order_id),
        Request::Credit(o) => doc
            .leaf("Type", req.kind())
            .leaf("OrderId", o.order_id)
            .leaf("Total", &amount::to_decimal(o.amount))
            .leaf("Currency", o.currency.numeric()),
        Request::OrderStatus { order_id } => doc
            .leaf("OrderId", order_id)
            .open("Extra")
            .leaf("ORDERSTATUS", "QUERY"),
        Request::OrderHistory { order_id } => doc
            .leaf("OrderId", order_id)
            .open("Extra")
            .leaf("ORDERHISTORY", "QUERY"),
        Request::MaxiPuan { card, currency } => doc
            .leaf("Number", &card.number)
            .leaf("Expires", &card.expiry_mm_yy())
            .leaf("Cvv2Val", &card.cvv)
            .leaf("Currency", currency.numeric())
            .open("Extra")
            .leaf("MAXIPUANSORGU", "MAXIPUANSORGU"),
    };
    doc.finish()
}

/// The request body: the document in ISO-8859-9.
pub fn encode(creds: &ApiCredentials, req: &Request<'_>) -> Vec<u8> {
    encoding::encode(&to_xml(creds, req))
}
