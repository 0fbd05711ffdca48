//! The simulator's wire format: reading a `VPosMessageContract` strictly (XML, the raw body,
//! ASCII or UTF-8) and writing the bank's answers the way MEWS's fixtures show them (a money
//! answer with the request echoed in `VPosMessage`; order data as `VPosOrderData/
//! OrderContract` entries), declared `utf-16` over UTF-8 bytes like the bank's.

use paygate_bankkit::{xml, xml::Element, xml::XmlBuilder};

/// The answer's content type.
pub const CONTENT_TYPE: &str = "text/xml; charset=utf-8";

/// Why a request could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError(pub String);

/// Reads a request body: a `VPosMessageContract` document.
pub fn read_request(body: &[u8]) -> Result<Element, WireError> {
    let text =
        std::str::from_utf8(body).map_err(|_| WireError("the request is not UTF-8".into()))?;
    let root = xml::parse(text).map_err(|e| WireError(e.to_string()))?;
    if root.name != crate::request::ROOT {
        return Err(WireError(format!(
            "root element is <{}>, not <VPosMessageContract>",
            root.name
        )));
    }
    Ok(root)
}

/// One flat list of fields being written.
#[derive(Debug, Clone, Default)]
pub struct Fields(pub Vec<(&'static str, String)>);

impl Fields {
    pub fn with(mut self, key: &'static str, value: impl Into<String>) -> Self {
        self.0.push((key, value.into()));
        self
    }

    pub fn get(&self, key: &str) -> &str {
        self.0
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    }
}

/// An answer being written.
#[derive(Debug, Clone)]
pub enum Answer {
    /// A money answer: the request's echo (`VPosMessage`) and the transaction's fields.
    Money { echo: Fields, fields: Fields },
    /// A query answer: `VPosOrderData` entries and the answer's own fields.
    Orders {
        entries: Vec<Fields>,
        fields: Fields,
    },
}

impl Answer {
    /// A money answer: `(code, message)`, the order, and the approved transaction's
    /// `(ProvisionNumber, RRN, Stan, OrderId)`.
    pub fn money(
        (code, message): (&str, &str),
        order: &str,
        approved: Option<(&str, &str, &str, &str)>,
    ) -> Self {
        let (prov, rrn, stan, bank_id) = approved.unwrap_or(("", "", "", "0"));
        let echo = Fields::default()
            .with("MerchantOrderId", order)
            .with("OrderId", bank_id);
        let fields = Fields::default()
            .with("IsEnrolled", "true")
            .with("IsVirtual", "false")
            .with("ProvisionNumber", prov)
            .with("RRN", rrn)
            .with("Stan", stan)
            .with("ResponseCode", code)
            .with("ResponseMessage", message)
            .with("OrderId", bank_id)
            .with("TransactionTime", "2024-07-01T13:54:45.1721751")
            .with("MerchantOrderId", order)
            .with("BusinessKey", "0");
        Self::Money { echo, fields }
    }

    /// A query answer.
    pub fn orders((code, message): (&str, &str), order: &str, entries: Vec<Fields>) -> Self {
        let fields = Fields::default()
            .with("ResponseCode", code)
            .with("ResponseMessage", message)
            .with("MerchantOrderId", order);
        Self::Orders { entries, fields }
    }

    /// The answer's `ResponseCode`.
    pub fn code(&self) -> &str {
        match self {
            Self::Money { fields, .. } | Self::Orders { fields, .. } => fields.get("ResponseCode"),
        }
    }

    /// The document in UTF-8 (declared `utf-16`, like the bank's).
    pub fn to_bytes(&self) -> Vec<u8> {
        let leafs = |mut b: XmlBuilder, f: &Fields| {
            for (k, v) in &f.0 {
                b = b.leaf(k, v);
            }
            b
        };
        let doc = match self {
            Self::Money { echo, fields } => {
                let b = XmlBuilder::new("VPosTransactionResponseContract", "utf-16")
                    .open("VPosMessage");
                leafs(leafs(b, echo).close(), fields).finish()
            }
            Self::Orders { entries, fields } => {
                let mut b = XmlBuilder::new("VPosOrderDataResponseContract", "utf-16")
                    .open("VPosOrderData");
                for e in entries {
                    b = leafs(b.open("OrderContract"), e).close();
                }
                leafs(b.close(), fields).finish()
            }
        };
        doc.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paygate_bankkit::BankReply;

    #[test]
    fn reads_requests_strictly() {
        let ok = read_request(b"<VPosMessageContract><UserName>a</UserName></VPosMessageContract>")
            .unwrap();
        assert_eq!(ok.text_at(&["UserName"]), Some("a"));
        assert!(read_request(
            b"<VPosMessageContract><UserName>\xfe</UserName></VPosMessageContract>"
        )
        .is_err());
        assert!(read_request(b"<PayforRequest/>").is_err());
        assert!(read_request(b"<VPosMessageContract>").is_err());
    }

    #[test]
    fn answers_read_back() {
        let a = Answer::money(
            ("00", "İşlem onaylandı"),
            "O1",
            Some(("100001", "600000000001", "000001", "1")),
        );
        let r = crate::response::Reply::decode(&a.to_bytes()).unwrap();
        assert_eq!(
            (r.fields.get("RRN"), r.merchant_order_id()),
            ("600000000001", "O1")
        );
        let o = Answer::orders(
            ("00", ""),
            "O1",
            vec![Fields::default().with("OrderStatus", "1")],
        );
        let r = crate::response::Reply::decode(&o.to_bytes()).unwrap();
        assert_eq!(r.orders.len(), 1);
        assert!(r.order_data);
    }
}
