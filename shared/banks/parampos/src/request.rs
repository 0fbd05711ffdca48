//! TurkPOS SOAP 1.1 requests. The envelope and element names follow dev.param.com.tr (the
//! `TP_Islem_Iptal_Iade_Kismi2` sample) and MEWS `ParamPosRequestDataMapper` /
//! `ParamPosSerializer`: `soap:Envelope` / `soap:Body` / `<Method xmlns="https://turkpos.com.tr/">`,
//! the `G` object and `GUID` first, then the method's fields. Amounts: `Prov_Tutar` (a string)
//! is decimal TL with a comma (`1,10`, MEWS `formatAmount`; Param's `-112` "do not use dot");
//! `Tutar` is an `xs:double`, written with a dot (`1.02`). Param's post-payment methods carry
//! no hash ([`crate::hash`]).

use paygate_bankkit::{amount, xml, BankRequest, Order};

use crate::{config::ApiCredentials, response::Reply};

/// The request body's content type (SOAP 1.1; MEWS `ParamPos::send` sends `text/xml`).
pub const CONTENT_TYPE: &str = "text/xml; charset=utf-8";
/// The service namespace of every method.
pub const NAMESPACE: &str = "https://turkpos.com.tr/";

/// One API request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request<'a> {
    /// Closes the order's pre-authorization for the amount (`TP_Islem_Odeme_OnProv_Kapa`).
    Capture(Order<'a>),
    /// Releases an open pre-authorization (`TP_Islem_Iptal_OnProv`).
    CancelPreauth { order_id: &'a str },
    /// Cancels a sale on its own day (`TP_Islem_Iptal_Iade_Kismi2`, `Durum IPTAL`): the whole
    /// amount only.
    Cancel(Order<'a>),
    /// Refunds the amount (full or partial) after the sale's day (`TP_Islem_Iptal_Iade_Kismi2`,
    /// `Durum IADE`).
    Refund(Order<'a>),
    /// The order's state (`TP_Islem_Sorgulama4`).
    Status { order_id: &'a str },
    /// Every transaction of the merchant between two times (`TP_Islem_Izleme`,
    /// `dd.MM.yyyy HH:mm:ss`, MEWS `formatRequestDateTime`).
    Monitor { start: &'a str, end: &'a str },
}

impl Request<'_> {
    /// The SOAP method.
    pub fn method(&self) -> &'static str {
        match self {
            Self::Capture(_) => "TP_Islem_Odeme_OnProv_Kapa",
            Self::CancelPreauth { .. } => "TP_Islem_Iptal_OnProv",
            Self::Cancel(_) | Self::Refund(_) => "TP_Islem_Iptal_Iade_Kismi2",
            Self::Status { .. } => "TP_Islem_Sorgulama4",
            Self::Monitor { .. } => "TP_Islem_Izleme",
        }
    }

    /// The `SOAPAction` header's value.
    pub fn soap_action(&self) -> String {
        format!("\"{NAMESPACE}{}\"", self.method())
    }

    /// The order the request names.
    pub fn order_id(&self) -> &str {
        match self {
            Self::Capture(o) | Self::Cancel(o) | Self::Refund(o) => o.order_id,
            Self::CancelPreauth { order_id } | Self::Status { order_id } => order_id,
            Self::Monitor { .. } => "",
        }
    }
}

impl BankRequest for Request<'_> {
    type Reply = Reply;

    /// The SOAP method (`IPTAL`/`IADE` told apart for logs).
    fn kind(&self) -> &'static str {
        match self {
            Self::Cancel(_) => "TP_Islem_Iptal_Iade_Kismi2:IPTAL",
            Self::Refund(_) => "TP_Islem_Iptal_Iade_Kismi2:IADE",
            other => other.method(),
        }
    }

    /// An answer of another method (or, for a status, about another order) settles nothing.
    fn answered_by(&self, reply: &Reply) -> bool {
        if reply.fault.is_some() {
            return true;
        }
        reply.method == self.method()
            && (!matches!(self, Self::Status { .. })
                || reply.dt.is_none()
                || reply.dt.as_ref().map(|d| d.get("Siparis_ID")) == Some(self.order_id()))
    }
}

fn leaf(out: &mut String, name: &str, text: &str) {
    out.push_str(&format!("<{name}>{}</{name}>", xml::escape(text)));
}

/// Decimal TL with a comma: `110` → `1,10`.
pub fn comma_amount(minor: i64) -> String {
    amount::to_decimal(minor).replace('.', ",")
}

/// The document (UTF-8 text).
pub fn to_xml(creds: &ApiCredentials, req: &Request<'_>) -> String {
    let method = req.method();
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><soap:Envelope \
         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
         xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" \
         xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body>",
    );
    out.push_str(&format!("<{method} xmlns=\"{NAMESPACE}\"><G>"));
    leaf(&mut out, "CLIENT_CODE", &creds.client_code);
    leaf(&mut out, "CLIENT_USERNAME", &creds.client_username);
    leaf(&mut out, "CLIENT_PASSWORD", &creds.client_password);
    out.push_str("</G>");
    leaf(&mut out, "GUID", &creds.guid);
    match req {
        Request::Capture(o) => {
            leaf(&mut out, "Prov_ID", "");
            leaf(&mut out, "Prov_Tutar", &comma_amount(o.amount));
            leaf(&mut out, "Siparis_ID", o.order_id);
        }
        Request::CancelPreauth { order_id } => {
            leaf(&mut out, "Prov_ID", "");
            leaf(&mut out, "Siparis_ID", order_id);
        }
        Request::Cancel(o) | Request::Refund(o) => {
            let durum = if matches!(req, Request::Cancel(_)) {
                "IPTAL"
            } else {
                "IADE"
            };
            leaf(&mut out, "Durum", durum);
            leaf(&mut out, "Siparis_ID", o.order_id);
            leaf(&mut out, "Tutar", &amount::to_decimal(o.amount));
        }
        Request::Status { order_id } => leaf(&mut out, "Siparis_ID", order_id),
        Request::Monitor { start, end } => {
            leaf(&mut out, "Tarih_Bas", start);
            leaf(&mut out, "Tarih_Bit", end);
        }
    }
    out.push_str(&format!("</{method}></soap:Body></soap:Envelope>"));
    out
}

/// Whether `t` is a time as `TP_Islem_Izleme` takes it: `dd.MM.yyyy HH:mm:ss`.
pub fn is_monitor_time(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() == 19
        && b.iter().enumerate().all(|(i, c)| match i {
            2 | 5 => *c == b'.',
            10 => *c == b' ',
            13 | 16 => *c == b':',
            _ => c.is_ascii_digit(),
        })
}

/// The request body: the document in UTF-8.
pub fn encode(creds: &ApiCredentials, req: &Request<'_>) -> Vec<u8> {
    to_xml(creds, req).into_bytes()
}
