//! The simulator's wire format: reading a `CC5Request` strictly (raw XML body or the
//! `DATA=` form field, declared charset honoured and checked) and writing `CC5Response`s in
//! ISO-8859-9.

use paygate_bankkit::{encoding, transport::form_decode, xml, xml::Element, xml::XmlBuilder};

use crate::response::{declared_encoding, Reply};

/// The answer's content type.
pub const CONTENT_TYPE: &str = "text/xml;charset=ISO-8859-9";

/// Why a request could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError(pub String);

/// Reads a request body: `DATA=<url-encoded xml>` or the XML itself.
pub fn read_request(content_type: Option<&str>, body: &[u8]) -> Result<Element, WireError> {
    let (doc, header_charset) = match body.strip_prefix(b"DATA=") {
        Some(rest) => {
            let value = rest.split(|b| *b == b'&').next().unwrap_or_default();
            let value = std::str::from_utf8(value)
                .map_err(|_| WireError("DATA is not url-encoded text".into()))?;
            // The form's charset says nothing about the document's bytes.
            (form_decode(value), None)
        }
        None => (body.to_vec(), content_type.and_then(charset_of)),
    };
    let text = decode(&doc, header_charset.as_deref())?;
    let root = xml::parse(&text).map_err(|e| WireError(e.to_string()))?;
    if root.name != "CC5Request" {
        return Err(WireError(format!(
            "root element is <{}>, not <CC5Request>",
            root.name
        )));
    }
    Ok(root)
}

fn charset_of(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| normalise(v.trim().trim_matches('"')))
    })
}

fn normalise(charset: &str) -> String {
    match charset.to_ascii_lowercase().as_str() {
        "utf8" => "utf-8".to_owned(),
        "iso8859-9" | "latin5" | "iso_8859-9" => "iso-8859-9".to_owned(),
        other => other.to_owned(),
    }
}

/// Decodes the document as it declares, refusing what can be detected as wrong: a charset
/// header contradicting the declaration, Latin-5 bytes in a UTF-8 document, UTF-8 multi-byte
/// sequences in an ISO-8859-9 document, any other charset.
fn decode(doc: &[u8], header_charset: Option<&str>) -> Result<String, WireError> {
    let declared = declared_encoding(doc)
        .map(|e| normalise(&e))
        .unwrap_or_else(|| "utf-8".to_owned());
    if let Some(h) = header_charset {
        if h != declared {
            return Err(WireError(format!(
                "charset {h} in the header, {declared} in the document"
            )));
        }
    }
    match declared.as_str() {
        "utf-8" => String::from_utf8(doc.to_vec())
            .map_err(|_| WireError("document declares UTF-8 but is not UTF-8".into())),
        "iso-8859-9" => {
            if !doc.is_ascii() && std::str::from_utf8(doc).is_ok() {
                return Err(WireError(
                    "UTF-8 text in a document declared ISO-8859-9".into(),
                ));
            }
            Ok(encoding::decode(doc))
        }
        other => Err(WireError(format!("unsupported encoding {other}"))),
    }
}

/// A `CC5Response` being written: the adapter's own reading of one ([`Reply`]).
pub type Answer = Reply;

/// Writing answers, as the simulated bank does.
impl Reply {
    /// An approved answer.
    pub fn approved(
        order_id: &str,
        auth_code: &str,
        rrn: &str,
        trans_id: &str,
        trxdate: &str,
    ) -> Self {
        Self {
            order_id: order_id.to_owned(),
            response: "Approved".to_owned(),
            auth_code: auth_code.to_owned(),
            host_ref_num: rrn.to_owned(),
            proc_return_code: "00".to_owned(),
            trans_id: trans_id.to_owned(),
            err_msg: String::new(),
            extra: vec![
                ("SETTLEID".into(), String::new()),
                ("TRXDATE".into(), trxdate.to_owned()),
                ("ERRORCODE".into(), String::new()),
                ("NUMCODE".into(), "00".into()),
            ],
        }
    }

    /// A refusal as Nestpay writes them: `ProcReturnCode 99`, the message in `ErrMsg`, the
    /// code in `Extra/ERRORCODE` and `NUMCODE` `99<digits>` (MEWS fixtures).
    pub fn refused(
        response: &'static str,
        order_id: &str,
        errorcode: &str,
        message: &str,
        trans_id: &str,
        trxdate: &str,
    ) -> Self {
        let digits: String = errorcode.chars().filter(char::is_ascii_digit).collect();
        Self {
            order_id: order_id.to_owned(),
            response: response.to_owned(),
            auth_code: String::new(),
            host_ref_num: String::new(),
            proc_return_code: "99".to_owned(),
            trans_id: trans_id.to_owned(),
            err_msg: message.to_owned(),
            extra: vec![
                ("SETTLEID".into(), String::new()),
                ("TRXDATE".into(), trxdate.to_owned()),
                ("ERRORCODE".into(), errorcode.to_owned()),
                ("NUMCODE".into(), format!("99{digits}")),
            ],
        }
    }

    pub fn with_extra(mut self, key: &str, value: impl Into<String>) -> Self {
        self.extra.push((key.to_owned(), value.into()));
        self
    }

    /// The document in ISO-8859-9.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut doc = XmlBuilder::new("CC5Response", "ISO-8859-9")
            .leaf("OrderId", &self.order_id)
            .leaf("GroupId", &self.order_id)
            .leaf("Response", &self.response)
            .leaf("AuthCode", &self.auth_code)
            .leaf("HostRefNum", &self.host_ref_num)
            .leaf("ProcReturnCode", &self.proc_return_code)
            .leaf("TransId", &self.trans_id)
            .leaf("ErrMsg", &self.err_msg)
            .open("Extra");
        for (k, v) in &self.extra {
            doc = doc.leaf(k, v);
        }
        encoding::encode(&doc.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "<?xml version=\"1.0\" encoding=\"ISO-8859-9\"?><CC5Request><Name>İşyeri</Name></CC5Request>";

    #[test]
    fn reads_raw_and_form_bodies() {
        let latin5 = encoding::encode(DOC);
        let el = read_request(Some("text/xml; charset=ISO-8859-9"), &latin5).unwrap();
        assert_eq!(el.text_at(&["Name"]), Some("İşyeri"));
        let form = format!("DATA={}", paygate_bankkit::transport::form_encode(&latin5));
        let el = read_request(Some("application/x-www-form-urlencoded"), form.as_bytes()).unwrap();
        assert_eq!(el.text_at(&["Name"]), Some("İşyeri"));
    }

    #[test]
    fn refuses_wrong_encodings_and_documents() {
        // UTF-8 bytes under an ISO-8859-9 declaration.
        assert!(read_request(None, DOC.as_bytes()).is_err());
        // Latin-5 bytes under a UTF-8 declaration.
        let lying = encoding::encode(&DOC.replace("ISO-8859-9", "UTF-8"));
        assert!(read_request(None, &lying).is_err());
        // Header and declaration disagree.
        assert!(read_request(Some("text/xml; charset=utf-8"), &encoding::encode(DOC)).is_err());
        assert!(read_request(None, b"<CC5Request><Name>x</CC5Request>").is_err());
        assert!(read_request(None, b"<Other/>").is_err());
        assert!(read_request(
            None,
            b"<?xml version=\"1.0\" encoding=\"UTF-16\"?><CC5Request/>"
        )
        .is_err());
        assert!(read_request(None, "<CC5Request><Name>ş</Name></CC5Request>".as_bytes()).is_ok());
    }
}
