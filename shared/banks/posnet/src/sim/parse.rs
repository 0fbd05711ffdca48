//! The simulator's reading of a request: form field, charset, XML, the `posnetRequest`
//! envelope and the one operation element in it, as strictly as the bank's schema check
//! (`0002 XNIException …`) and field checks (`0150 PAKET HATALI (FIELD)`).

use paygate_bankkit::xml::{self, Element};

use crate::{codes, wire};

/// An operation the simulator serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Sale,
    Auth,
    Capt,
    Reverse,
    Return,
    Agreement,
    PointInquiry,
}

impl Op {
    /// Whether the operation moves money (the fault plan applies to these only).
    pub fn moves_money(self) -> bool {
        matches!(
            self,
            Op::Sale | Op::Auth | Op::Capt | Op::Reverse | Op::Return
        )
    }

    /// The element name (case-sensitive, as the schema has it).
    pub fn element(self) -> &'static str {
        match self {
            Self::Sale => "sale",
            Self::Auth => "auth",
            Self::Capt => "capt",
            Self::Reverse => "reverse",
            Self::Return => "return",
            Self::Agreement => "agreement",
            Self::PointInquiry => "pointInquiry",
        }
    }

    const ALL: [Op; 7] = [
        Self::Sale,
        Self::Auth,
        Self::Capt,
        Self::Reverse,
        Self::Return,
        Self::Agreement,
        Self::PointInquiry,
    ];

    /// The operation an element name (case-sensitive) stands for.
    pub fn from_element(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|op| op.element() == name)
    }

    /// Children the operation element must have, and those it may have besides.
    fn schema(self) -> (&'static [&'static str], &'static [&'static str]) {
        const PAYMENT: &[&str] = &[
            "ccno",
            "expDate",
            "cvc",
            "amount",
            "currencyCode",
            "orderID",
        ];
        match self {
            Self::Sale | Self::Auth => (
                PAYMENT,
                &["installment", "extraPoint", "multiplePoint", "koiCode"],
            ),
            Self::Capt => (
                &["hostLogKey", "amount", "currencyCode"],
                &["authCode", "installment", "extraPoint", "multiplePoint"],
            ),
            Self::Reverse => (&["transaction"], &["hostLogKey", "orderID", "authCode"]),
            Self::Return => (
                &["amount", "currencyCode"],
                &["hostLogKey", "orderID", "transaction"],
            ),
            Self::Agreement => (&["orderID"], &[]),
            Self::PointInquiry => (&["ccno", "expDate"], &[]),
        }
    }
}

/// A well-formed request.
#[derive(Debug, Clone)]
pub struct Request {
    pub mid: String,
    pub tid: String,
    pub op: Op,
    /// The operation element.
    pub body: Element,
    pub tran_date_required: bool,
}

impl Request {
    /// A child of the operation element (`""` when absent).
    pub fn field(&self, name: &str) -> &str {
        self.body.text_at(&[name]).unwrap_or_default()
    }

    pub fn has(&self, name: &str) -> bool {
        self.body.child(name).is_some()
    }
}

/// A request the bank refuses before looking at any order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub code: &'static str,
    pub text: String,
}

fn xni(detail: impl std::fmt::Display) -> Rejection {
    Rejection {
        code: codes::MALFORMED,
        text: format!("XNIException: {detail}"),
    }
}

/// `0150 PAKET HATALI (FIELD)`: a present but unusable field.
pub fn bad_field(field: &str) -> Rejection {
    Rejection {
        code: codes::BAD_PACKET,
        text: format!(
            "{} ({})",
            codes::text(codes::BAD_PACKET),
            field.to_ascii_uppercase()
        ),
    }
}

/// The operation the raw body names, for fault scoping (`None` if unreadable).
pub fn peek_op(body: &[u8]) -> Option<Op> {
    let doc = wire::form_field(body)?;
    let text = wire::decode_document(&doc).ok()?;
    let root = xml::parse(&text).ok()?;
    root.children.iter().find_map(|c| Op::from_element(&c.name))
}

/// Reads a request body (`content_type` as sent).
pub fn parse(content_type: &str, body: &[u8]) -> Result<Request, Rejection> {
    let form = content_type.split(';').next().is_some_and(|t| {
        t.trim()
            .eq_ignore_ascii_case("application/x-www-form-urlencoded")
    });
    let doc = form
        .then(|| wire::form_field(body))
        .flatten()
        .filter(|d| !d.is_empty())
        .ok_or_else(|| xni("Premature end of file."))?;
    let text = wire::decode_document(&doc).map_err(|e| match e {
        wire::DecodeError::UnsupportedEncoding(label) => {
            xni(format!("Encoding '{label}' is not supported."))
        }
        wire::DecodeError::InvalidBytes(detail) => xni(detail),
    })?;
    let root = xml::parse(&text).map_err(xni)?;
    if root.name != "posnetRequest" {
        return Err(xni(format!(
            "cvc-elt.1: Cannot find the declaration of element '{}'.",
            root.name
        )));
    }
    let mut op = None;
    for child in &root.children {
        match child.name.as_str() {
            "mid" | "tid" | "username" | "password" | "tranDateRequired" => {}
            name => match Op::from_element(name) {
                Some(found) if op.is_none() => op = Some((found, child.clone())),
                _ => return Err(invalid_content(name)),
            },
        }
    }
    let (op, body) = op.ok_or_else(|| {
        xni("cvc-complex-type.2.4.b: The content of element 'posnetRequest' is not complete.")
    })?;
    let (required, optional) = op.schema();
    if let Some(stray) = body.children.iter().find(|c| {
        let name = c.name.as_str();
        !required.contains(&name) && !optional.contains(&name)
    }) {
        return Err(invalid_content(&stray.name));
    }
    if let Some(missing) = required.iter().find(|r| body.child(r).is_none()) {
        return Err(bad_field(missing));
    }
    let text_of = |name: &str| root.text_at(&[name]).unwrap_or_default().to_owned();
    let tran_date = text_of("tranDateRequired");
    if !matches!(tran_date.as_str(), "" | "0" | "1") {
        return Err(bad_field("tranDateRequired"));
    }
    Ok(Request {
        mid: text_of("mid"),
        tid: text_of("tid"),
        op,
        body,
        tran_date_required: tran_date == "1",
    })
}

/// The schema's complaint about an element it does not expect there (the bank answers in
/// Turkish, e.g. paranoia#64: "'Sale' öğesiyle başlayan geçersiz içerik saptandı").
fn invalid_content(name: &str) -> Rejection {
    xni(format!(
        "cvc-complex-type.2.4.a: '{name}' öğesiyle başlayan geçersiz içerik saptandı."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORM: &str = "application/x-www-form-urlencoded";

    fn body(xml: &str) -> Vec<u8> {
        wire::form_body(xml)
    }

    #[test]
    fn reads_a_well_formed_request() {
        let xml = "<?xml version=\"1.0\" encoding=\"ISO-8859-9\"?><posnetRequest><mid>1</mid><tid>2</tid>\
                   <tranDateRequired>1</tranDateRequired><capt><hostLogKey>K</hostLogKey><amount>5</amount>\
                   <currencyCode>TL</currencyCode><installment>00</installment></capt></posnetRequest>";
        let r = parse(FORM, &body(xml)).unwrap();
        assert_eq!(
            (r.mid.as_str(), r.tid.as_str(), r.op, r.tran_date_required),
            ("1", "2", Op::Capt, true)
        );
        assert_eq!(r.field("hostLogKey"), "K");
        assert_eq!(peek_op(&body(xml)), Some(Op::Capt));
    }

    #[test]
    fn rejects_what_the_bank_rejects() {
        let code = |ct: &str, b: &[u8]| parse(ct, b).unwrap_err().code;
        assert_eq!(code(FORM, b""), "0002");
        assert_eq!(code("text/xml", &body("<posnetRequest/>")), "0002");
        assert_eq!(code(FORM, &body("<posnetRequest><mid>1</mid>")), "0002");
        assert_eq!(code(FORM, &body("<CC5Request/>")), "0002");
        // Element names are case-sensitive.
        let e = parse(
            FORM,
            &body("<posnetRequest><mid>1</mid><tid>2</tid><Sale/></posnetRequest>"),
        )
        .unwrap_err();
        assert!(
            e.text.contains("'Sale' öğesiyle başlayan geçersiz içerik"),
            "{}",
            e.text
        );
        assert_eq!(code(FORM, &body("<posnetRequest><agreement><orderID>x</orderID><x/></agreement></posnetRequest>")), "0002");
        assert_eq!(
            code(
                FORM,
                &body("<posnetRequest><agreement/><agreement/></posnetRequest>")
            ),
            "0002"
        );
        assert_eq!(
            code(FORM, &body("<posnetRequest><mid>1</mid></posnetRequest>")),
            "0002"
        );
        let missing = parse(FORM, &body("<posnetRequest><capt><amount>1</amount><currencyCode>TL</currencyCode></capt></posnetRequest>")).unwrap_err();
        assert_eq!(
            (missing.code, missing.text.as_str()),
            ("0150", "PAKET HATALI (HOSTLOGKEY)")
        );
        // Declared UTF-8 but sent as ISO-8859-9 bytes: detectable, refused.
        let lying = format!(
            "xmldata={}",
            paygate_bankkit::transport::form_encode(&paygate_bankkit::encoding::encode(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?><posnetRequest><agreement><orderID>ş</orderID></agreement></posnetRequest>"
            ))
        );
        assert_eq!(code(FORM, lying.as_bytes()), "0002");
        assert_eq!(
            code(
                FORM,
                &body("<?xml version=\"1.0\" encoding=\"KOI8-R\"?><posnetRequest/>")
            ),
            "0002"
        );
    }
}
