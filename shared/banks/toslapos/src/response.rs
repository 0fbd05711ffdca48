//! JSON answers (MEWS `ToslaPosResponseDataMapper` and its tests): `Code` (`0` = the API
//! handled the request; `101` "Orjinal Kayıt Bulunamadı", `997` "Hash Hatası", `998`
//! "Validasyon Hatası" with `ValidationErrors`, `999` "Genel Hata"), `Message` (`message` on
//! a validation error), `BankResponseCode` (`00` = the host approved), `BankResponseMessage`,
//! `OrderId`, `AuthCode`, `HostReferenceNumber`, `TransactionId`; the inquiry adds the
//! order's fields (see [`crate::status`]).

use paygate_bankkit::{Answer, BankReply, Verdict};
use paygate_domain::{BankOutcome, BankStatus};
use serde_json::Value;

/// `Code` of an answer the API handled.
pub const OK: &str = "0";
/// `BankResponseCode` of a host approval.
pub const HOST_APPROVED: &str = "00";
/// "Orjinal Kayıt Bulunamadı": no order (or none this operation applies to).
pub const NOT_FOUND: &str = "101";
/// "Hash Hatası": refused before processing.
pub const HASH_ERROR: &str = "997";
/// "Validasyon Hatası": refused before processing.
pub const VALIDATION_ERROR: &str = "998";
/// "Genel Hata": the API failed somewhere; it does not say nothing moved.
pub const GENERAL_ERROR: &str = "999";

/// ISO 8583 host codes after which the host may have acted, whatever `Code` says: `68`
/// response received too late, `91` issuer or switch inoperative, `96` system malfunction.
pub const HOST_MAY_HAVE_ACTED: &[&str] = &["68", "91", "96"];

/// A decoded answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply(pub Value);

/// A string or number member as text (`""` when absent, `null` or of another type).
pub fn text(v: &Value, key: &str) -> String {
    match v.get(key) {
        Some(Value::String(s)) => s.trim().to_owned(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// An integer member (a JSON integer or a string of digits): kuruş. `None` when absent,
/// `null`, negative or not an integer.
pub fn minor(v: &Value, key: &str) -> Option<i64> {
    match v.get(key)? {
        Value::Number(n) => n.as_i64().filter(|a| *a >= 0),
        Value::String(s) => {
            let s = s.trim();
            (!s.is_empty() && s.len() <= 15 && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse().ok())
                .flatten()
        }
        _ => None,
    }
}

impl Reply {
    /// `Code` as text (`""` when absent).
    pub fn code(&self) -> String {
        text(&self.0, "Code")
    }

    pub fn host_code(&self) -> String {
        text(&self.0, "BankResponseCode")
    }

    pub fn order_id(&self) -> String {
        text(&self.0, "OrderId")
    }

    /// The code an outcome reports: the host's for an answer the API handled, else `Code`.
    pub fn bank_code(&self) -> String {
        let (code, host) = (self.code(), self.host_code());
        match (code.as_str(), host.as_str()) {
            ("", _) => "unknown".to_owned(),
            (OK, h) if !h.is_empty() => host,
            _ => code,
        }
    }

    pub fn message(&self) -> String {
        ["BankResponseMessage", "Message", "message"]
            .iter()
            .map(|k| text(&self.0, k))
            .find(|s| !s.is_empty())
            .unwrap_or_default()
    }

    /// The reference of an approved operation: the host's reference number, else Tosla's
    /// transaction id (MEWS fixtures answer `HostReferenceNumber: null` with a
    /// `TransactionId`).
    pub fn reference(&self) -> String {
        let host = text(&self.0, "HostReferenceNumber");
        if !host.is_empty() {
            return host;
        }
        match text(&self.0, "TransactionId").as_str() {
            "" | "0" => String::new(),
            id => id.to_owned(),
        }
    }

    /// Whether a message names a system error ("Sistem hatası", "SISTEM HATASI").
    pub fn names_system_error(&self) -> bool {
        ["Message", "message", "BankResponseMessage"]
            .iter()
            .any(|key| {
                let folded: String = text(&self.0, key)
                    .chars()
                    .map(|c| match c {
                        'İ' | 'ı' => 'i',
                        c => c.to_ascii_lowercase(),
                    })
                    .collect();
                folded.contains("sistem hata")
            })
    }
}

/// The class of an answer to a money request (postAuth, void, refund).
pub fn classify(reply: &Reply) -> Verdict {
    let host = reply.host_code();
    match reply.code().as_str() {
        // Handled: the host's code decides; anything but its approval contradicts the API's
        // "handled" and settles nothing.
        OK if host == HOST_APPROVED => Verdict::Approved,
        OK => Verdict::Unknown,
        // No code at all, or the API's general error: nothing says nothing moved.
        "" | GENERAL_ERROR => Verdict::Unknown,
        _ if HOST_MAY_HAVE_ACTED.contains(&host.as_str()) || reply.names_system_error() => {
            Verdict::Unknown
        }
        // Refused before processing: the request's hash or fields.
        HASH_ERROR | VALIDATION_ERROR => Verdict::Error,
        // "Original record not found" and every other refusal.
        _ => Verdict::Declined,
    }
}

impl BankReply for Reply {
    /// Reads an answer: a JSON object.
    fn decode(body: &[u8]) -> Result<Self, String> {
        let v: Value = serde_json::from_slice(body).map_err(|e| format!("not JSON: {e}"))?;
        if !v.is_object() {
            return Err("the answer is not a JSON object".to_owned());
        }
        Ok(Reply(v))
    }

    fn outcome(&self) -> BankOutcome {
        classify(self).outcome(Answer {
            approval: HOST_APPROVED.to_owned(),
            auth_code: text(&self.0, "AuthCode"),
            rrn: self.reference(),
            code: self.bank_code(),
            message: self.message(),
            after_cutoff: false,
        })
    }

    /// The state from an inquiry answer (no order to compare: see
    /// [`crate::status::from_inquiry`], which the query uses).
    fn status(&self) -> BankStatus {
        crate::status::from_inquiry(self, None)
    }
}

#[cfg(test)]
#[path = "response_tests.rs"]
mod tests;
