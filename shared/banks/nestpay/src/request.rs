//! `CC5Request` documents. Element names and order follow MEWS `EstPosRequestDataMapper`
//! (account data first: `Name`, `Password`, `ClientId`, then `Type`, `OrderId`, `Total`,
//! `Currency`, `Extra`) and the PARA request samples; see the crate README for where the
//! sources differ. Amounts are decimal TL with two decimals (`1.01`, `25.40`); currencies are
//! ISO 4217 numeric (`949`). The document declares and is encoded in ISO-8859-9.
//!
//! Nestpay's API requests carry no hash: the plain credentials authenticate them.

use paygate_bankkit::{amount, encoding, xml::XmlBuilder};
use paygate_domain::{CardDetails, Currency};

use crate::config::ApiCredentials;

/// The request body's content type: the raw XML document, in its declared charset.
pub const CONTENT_TYPE: &str = "text/xml; charset=ISO-8859-9";
/// The charset every document declares.
pub const ENCODING: &str = "ISO-8859-9";

/// Card fields as the API wants them.
#[derive(Clone, PartialEq, Eq)]
pub struct CardFields {
    pub number: String,
    /// `MM/YY`.
    pub expires: String,
    pub cvv: String,
}

impl CardFields {
    /// Formats a card for the API; `None` when the expiry is not a month and a year.
    pub fn from_card(card: &CardDetails) -> Option<Self> {
        let month: u8 = card.exp_month.trim().parse().ok()?;
        let year = card.exp_year.trim();
        if !(1..=12).contains(&month)
            || !matches!(year.len(), 2 | 4)
            || !year.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        Some(Self {
            number: card.number.chars().filter(|c| !c.is_whitespace()).collect(),
            expires: format!("{month:02}/{}", &year[year.len() - 2..]),
            cvv: card.cvv.trim().to_owned(),
        })
    }
}

impl std::fmt::Debug for CardFields {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CardFields(***)")
    }
}

/// One API request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request<'a> {
    /// Closes a pre-authorization for `amount` (the full or a partial amount).
    PostAuth { order_id: &'a str, amount: i64 },
    /// Cancels the order's sale or pre-authorization (before the end-of-day cut).
    Void { order_id: &'a str },
    /// Refunds `amount` (full or partial) of a settled sale; always with `Total`, since an
    /// empty amount is refused (`CORE-2504`, mewebstudio/pos#20).
    Credit {
        order_id: &'a str,
        amount: i64,
        currency: Currency,
    },
    /// The order's current transaction (`Extra/ORDERSTATUS=QUERY`).
    OrderStatus { order_id: &'a str },
    /// Every transaction of the order (`Extra/ORDERHISTORY=QUERY`).
    OrderHistory { order_id: &'a str },
    /// İşbank Maximum points balance of a card (`Extra/MAXIPUANSORGU`).
    MaxiPuan {
        card: &'a CardFields,
        currency: Currency,
    },
}

impl Request<'_> {
    /// A short name for logs (never the body).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::PostAuth { .. } => "PostAuth",
            Self::Void { .. } => "Void",
            Self::Credit { .. } => "Credit",
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
        Request::PostAuth { order_id, amount } => doc
            .leaf("Type", "PostAuth")
            .leaf("OrderId", order_id)
            .leaf("Total", &amount::to_decimal(*amount)),
        Request::Void { order_id } => doc.leaf("Type", "Void").leaf("OrderId", order_id),
        Request::Credit {
            order_id,
            amount,
            currency,
        } => doc
            .leaf("Type", "Credit")
            .leaf("OrderId", order_id)
            .leaf("Total", &amount::to_decimal(*amount))
            .leaf("Currency", currency.numeric()),
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
            .leaf("Expires", &card.expires)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn card(month: &str, year: &str) -> CardDetails {
        CardDetails {
            number: "5406 6755 2911 3814".into(),
            exp_month: month.into(),
            exp_year: year.into(),
            cvv: "000".into(),
            holder: "x".into(),
        }
    }

    #[test]
    fn card_fields() {
        let c = CardFields::from_card(&card("3", "2030")).unwrap();
        assert_eq!(
            (c.number.as_str(), c.expires.as_str()),
            ("5406675529113814", "03/30")
        );
        assert_eq!(
            CardFields::from_card(&card("12", "30")).unwrap().expires,
            "12/30"
        );
        for (m, y) in [
            ("13", "2030"),
            ("0", "30"),
            ("1", "203"),
            ("x", "30"),
            ("1", "20a0"),
        ] {
            assert!(CardFields::from_card(&card(m, y)).is_none(), "{m}/{y}");
        }
        assert!(!format!("{c:?}").contains("5406"));
    }
}
