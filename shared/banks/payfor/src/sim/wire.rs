//! The simulator's wire format: reading a `PayforRequest` strictly (UTF-8 XML, the raw body)
//! and writing `PayforResponse` / `TxnHistoryReport` documents in UTF-8, shaped like the MEWS
//! fixtures (`PayForPosSerializerTest`, `test_data/payfor/history/*`).

use paygate_bankkit::{xml, xml::Element, xml::XmlBuilder};

/// The answer's content type.
pub const CONTENT_TYPE: &str = "text/xml; charset=utf-8";

/// Why a request could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError(pub String);

/// Reads a request body: a UTF-8 `PayforRequest` document.
pub fn read_request(body: &[u8]) -> Result<Element, WireError> {
    let text =
        std::str::from_utf8(body).map_err(|_| WireError("the request is not UTF-8".into()))?;
    let root = xml::parse(text).map_err(|e| WireError(e.to_string()))?;
    if root.name != "PayforRequest" {
        return Err(WireError(format!(
            "root element is <{}>, not <PayforRequest>",
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
    /// `<PayforResponse>` with these fields.
    Flat(Fields),
    /// `<TxnHistoryReport>` with one `PaymentRequest` per entry.
    History(Vec<Fields>),
}

impl Answer {
    /// A money answer (MEWS cancel/refund fixtures: `AuthCode`, `HostRefNum`,
    /// `ProcReturnCode`, `TransId`, `ErrMsg`).
    pub fn money(code: &str, message: &str, order_id: &str, auth_code: &str, rrn: &str) -> Self {
        Self::Flat(
            Fields::default()
                .with("AuthCode", auth_code)
                .with("HostRefNum", rrn)
                .with("ProcReturnCode", code)
                .with("TransId", order_id)
                .with("ErrMsg", message)
                .with("BankInternalResponseMessage", "")
                .with("PAYFORFROMXMLREQUEST", "1"),
        )
    }

    /// The code of a flat answer (`""` for a report).
    pub fn code(&self) -> &str {
        match self {
            Self::Flat(f) => f.get("ProcReturnCode"),
            Self::History(_) => "",
        }
    }

    /// The document in UTF-8; empty elements padded with CR LF and spaces like the bank's.
    pub fn to_bytes(&self) -> Vec<u8> {
        let leafs = |mut b: XmlBuilder, f: &Fields| {
            for (k, v) in &f.0 {
                b = if v.is_empty() {
                    b.leaf(k, "\r\n    ")
                } else {
                    b.leaf(k, v)
                };
            }
            b
        };
        let doc = match self {
            Self::Flat(f) => leafs(XmlBuilder::new("PayforResponse", "utf-8"), f).finish(),
            Self::History(entries) => {
                let mut b = XmlBuilder::new("TxnHistoryReport", "utf-8");
                for e in entries {
                    b = leafs(b.open("PaymentRequestExtended").open("PaymentRequest"), e)
                        .close()
                        .close();
                }
                b.finish()
            }
        };
        doc.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_requests_strictly() {
        let ok = read_request("<PayforRequest><UserCode>ş</UserCode></PayforRequest>".as_bytes())
            .unwrap();
        assert_eq!(ok.text_at(&["UserCode"]), Some("ş"));
        assert!(read_request(b"<PayforRequest><UserCode>\xfe</UserCode></PayforRequest>").is_err());
        assert!(read_request(b"<CC5Request/>").is_err());
        assert!(read_request(b"<PayforRequest>").is_err());
    }

    #[test]
    fn answers_read_back() {
        let a = Answer::money("00", "Onaylandı", "O1", "S1", "");
        let r =
            <crate::response::Reply as paygate_bankkit::BankReply>::decode(&a.to_bytes()).unwrap();
        assert_eq!(
            (r.fields.get("ProcReturnCode"), r.fields.get("HostRefNum")),
            ("00", "")
        );
        let h = Answer::History(vec![Fields::default().with("TxnType", "Auth")]);
        let r =
            <crate::response::Reply as paygate_bankkit::BankReply>::decode(&h.to_bytes()).unwrap();
        assert_eq!(r.history.len(), 1);
    }
}
