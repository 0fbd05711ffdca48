//! The simulator's wire: reading a SOAP request (its method, the `SOAPAction` that must
//! name it, the `VPosMessage`'s user and `HashData`) and writing the service's answers.
//! An unreadable envelope or a wrong `SOAPAction` is HTTP 500 with a SOAP fault, as WCF
//! answers (nothing applied); an unknown user or a wrong hash is the service's own refusal
//! (`ApiUserNotDefined`, `HashDataError`).

use paygate_bankkit::{
    boa::{self, HashFields},
    xml::{self, escape, Element},
};

use super::SimClient;
use crate::{
    request::{soap_action, API_VERSION, SERVICE_NS, SOAP_NS},
    response::{local, Fields},
};

/// The answer's content type.
pub const CONTENT_TYPE: &str = "text/xml; charset=utf-8";

/// Why a request was refused before its method ran: a fault (HTTP 500) or the service's
/// refusal (an answer of the method).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WireError {
    Fault(String),
    Refused {
        method: String,
        code: &'static str,
        message: &'static str,
    },
}

/// A readable request: its method, the `request` element's fields and its `VPosMessage`'s.
#[derive(Debug, Clone)]
pub struct SoapRequest {
    pub method: String,
    pub fields: Fields,
    pub message: Fields,
}

fn child<'a>(e: &'a Element, name: &str) -> Option<&'a Element> {
    e.children.iter().find(|c| local(&c.name) == name)
}

fn flat(e: &Element) -> Fields {
    Fields(
        e.children
            .iter()
            .filter(|c| c.children.is_empty())
            .map(|c| (local(&c.name).to_owned(), c.text.clone()))
            .collect(),
    )
}

/// Reads and authenticates a request; returns its user and the request.
pub fn read_request<'a>(
    users: &'a [SimClient],
    action: Option<&str>,
    body: &[u8],
) -> Result<(&'a SimClient, SoapRequest), WireError> {
    let fault = |why: &str| WireError::Fault(why.to_owned());
    let text = std::str::from_utf8(body).map_err(|_| fault("the body is not UTF-8"))?;
    let root = xml::parse(text).map_err(|e| fault(&e.to_string()))?;
    if local(&root.name) != "Envelope" {
        return Err(fault("not a SOAP envelope"));
    }
    let call = child(&root, "Body")
        .and_then(|b| b.children.first())
        .ok_or_else(|| fault("an envelope without a body"))?;
    let method = local(&call.name).to_owned();
    if action.map(|a| a.trim_matches('"')) != Some(soap_action(&method).as_str()) {
        return Err(fault(
            "ActionNotSupported: the SOAPAction does not name the body's method",
        ));
    }
    let request = child(call, "request").ok_or_else(|| fault("no request element"))?;
    let vpos = child(request, "VPosMessage").ok_or_else(|| fault("no VPosMessage"))?;
    let req = SoapRequest {
        method: method.clone(),
        fields: flat(request),
        message: flat(vpos),
    };
    let refused = |code, message| WireError::Refused {
        method: method.clone(),
        code,
        message,
    };
    let m = &req.message;
    let user = users
        .iter()
        .find(|u| {
            u.merchant_id == m.get("MerchantId")
                && u.customer_id == m.get("CustomerId")
                && u.user_name == m.get("UserName")
        })
        .ok_or_else(|| refused("ApiUserNotDefined", "Api kullanıcısı bulunamadı."))?;
    let fields = HashFields {
        merchant_id: m.get("MerchantId"),
        merchant_order_id: m.get("MerchantOrderId"),
        amount: m.get("Amount"),
        user_name: m.get("UserName"),
        ..HashFields::default()
    };
    if !boa::verify(&fields, user.password.as_str(), m.get("HashData")) {
        return Err(refused(
            "HashDataError",
            "Şifrelenen veriler (Hashdata) uyuşmamaktadır.",
        ));
    }
    if m.get("APIVersion") != API_VERSION || m.get("TransactionType") != method {
        return Err(refused("InvalidRequestError", "Geçersiz istek."));
    }
    Ok((user, req))
}

fn leaves(f: &Fields) -> String {
    f.0.iter()
        .map(|(k, v)| {
            if v.is_empty() && matches!(k.as_str(), "MerchantId" | "EndOfDayDate") {
                format!("<{k} xsi:nil=\"true\"/>")
            } else {
                format!("<{k}>{}</{k}>", escape(v))
            }
        })
        .collect()
}

/// One `Results/Result`: (code, message); a business rule's refusal.
pub type Failure = (&'static str, &'static str);

/// An answer of `method`: its `Results`, `Success` and `Value` (its own fields, then
/// `OrderContract`s).
pub fn answer(
    method: &str,
    results: &[Failure],
    success: &str,
    value: &Fields,
    contracts: &[Fields],
) -> Vec<u8> {
    let results: String = results
        .iter()
        .map(|(code, message)| {
            let code = if code.is_empty() {
                String::new()
            } else {
                format!("<ErrorCode>{code}</ErrorCode>")
            };
            format!(
                "<Result><ErrorMessage>{}</ErrorMessage>{code}<IsFriendly>true</IsFriendly>\
                 <Severity>BusinessError</Severity></Result>",
                escape(message)
            )
        })
        .collect();
    let contracts: String = contracts
        .iter()
        .map(|c| format!("<OrderContract>{}</OrderContract>", leaves(c)))
        .collect();
    format!(
        "<s:Envelope xmlns:s=\"{SOAP_NS}\"><s:Body xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
         xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\"><{method}Response xmlns=\"{SERVICE_NS}\">\
         <{method}Result><Results>{results}</Results><Success>{success}</Success>\
         <Value>{}{contracts}</Value></{method}Result></{method}Response></s:Body></s:Envelope>",
        leaves(value)
    )
    .into_bytes()
}

/// The `Value` of a refusal (MEWS fixture `tdv2_fail_already_cancelled`).
pub fn refused_value() -> Fields {
    Fields::default()
        .with("IsEnrolled", "false")
        .with("IsVirtual", "false")
        .with("ResponseCode", "DbLayerError")
        .with("OrderId", "0")
        .with("TransactionTime", "0001-01-01T00:00:00")
        .with("MerchantId", "")
        .with("BusinessKey", "0")
}

/// The service's refusal of `method`: one business `Result`, `Success false`.
pub fn refusal(method: &str, failure: Failure) -> Vec<u8> {
    answer(method, &[failure], "false", &refused_value(), &[])
}

/// A SOAP fault.
pub fn fault(why: &str) -> Vec<u8> {
    format!(
        "<s:Envelope xmlns:s=\"{SOAP_NS}\"><s:Body><s:Fault><faultcode>s:Client</faultcode>\
         <faultstring xml:lang=\"en-US\">{}</faultstring></s:Fault></s:Body></s:Envelope>",
        escape(why)
    )
    .into_bytes()
}

/// The answer to a method the service does not have: a SOAP fault.
pub fn fault_answer(method: &str) -> Vec<u8> {
    fault(&format!("ActionNotSupported: {method}"))
}
