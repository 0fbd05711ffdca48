//! JSON answers: `ServiceResponseData{ResponseCode, ResponseDescription}`, `AuthCode`,
//! `ReferenceCode` (the transaction's `HostLogKey`), and for an inquiry `TransactionData[]`
//! (MEWS `PosNetV1PosResponseDataMapper` and its tests). A money request is approved with
//! `00`; an inquiry answers `0000` (MEWS `mapStatusResponse`), `E219` "Kayıt Bulunamadı"
//! when the bank has no such order.
//!
//! The response codes are the PosNet host's (the V1 fixtures' `0127 ORDERID DAHA ONCE
//! KULLANILMIS` and `0148 INVALID MID TID IP` are Yapı Kredi Posnet's codes and texts), so
//! their classes follow the PosNet document (see the crate README's code → outcome table).

use paygate_bankkit::{Answer, BankReply, Verdict};
use paygate_domain::{BankOutcome, BankStatus};
use serde_json::Value;

/// A money request's approval.
pub const APPROVED: &str = "00";
/// An inquiry's success (MEWS `mapStatusResponse`).
pub const INQUIRY_OK: &str = "0000";
/// An inquiry's "no record" (`Kayıt Bulunamadı`, MEWS `fail1`): the only "no such order".
pub const NO_RECORD: &str = "E219";

/// PosNet host codes with a meaning of their own in the flows.
pub mod codes {
    /// Batch closed (end of day passed): the transaction can no longer be reversed.
    pub const BATCH_CLOSED: &str = "0211";
    /// Already reversed.
    pub const ALREADY_REVERSED: &str = "0220";
    /// Return before the transaction settled (its own business day): reverse instead.
    pub const NOT_SETTLED: &str = "0411";
    /// The authorization was captured: reverse the capture first.
    pub const ALREADY_CAPTURED: &str = "0788";
    /// Original transaction not found.
    pub const NOT_FOUND: &str = "0123";
    /// Pre-authorization not found or closed.
    pub const NO_PREAUTH: &str = "0015";
    /// Operation not valid in the transaction's state.
    pub const INVALID_OPERATION: &str = "0200";
    /// Amount above what can be captured or returned.
    pub const INVALID_AMOUNT: &str = "0205";
    /// Malformed packet (a field, the MAC).
    pub const BAD_PACKET: &str = "0150";
    /// Wrong merchant, terminal or caller IP (MEWS fixture).
    pub const INVALID_MID_TID: &str = "0148";
    /// A technical problem at the host while it had the request ("DB ERROR").
    pub const DB_ERROR: &str = "0400";
}

/// Codes that say the request was refused before processing (malformed packet, merchant
/// set-up, credentials): nothing moved, shown as `provider_error`.
const TECHNICAL: &[&str] = &[
    "0002",
    "0100",
    "0124",
    "0125",
    "0126",
    "0146",
    "0147",
    codes::INVALID_MID_TID,
    codes::BAD_PACKET,
];

/// Codes after which the host may have acted: `0400` DB ERROR and the ISO 8583 host codes
/// `0068` (answer too late), `0091` (issuer or switch inoperative), `0092` (no routing,
/// reversal pending), `0096` (system malfunction).
const MAY_HAVE_ACTED: &[&str] = &[codes::DB_ERROR, "0068", "0091", "0092", "0096"];

/// A decoded answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply(pub Value);

/// A string or number member as text (`""` when absent, null or of another type).
pub fn text(v: &Value, path: &[&str]) -> String {
    let mut at = v;
    for p in path {
        match at.get(*p) {
            Some(next) => at = next,
            None => return String::new(),
        }
    }
    match at {
        Value::String(s) => s.trim().to_owned(),
        Value::Number(n) => n.to_string(),
        _ => String::new(),
    }
}

impl Reply {
    pub fn code(&self) -> String {
        text(&self.0, &["ServiceResponseData", "ResponseCode"])
    }

    pub fn message(&self) -> String {
        text(&self.0, &["ServiceResponseData", "ResponseDescription"])
    }

    /// The code, or `unknown` when the answer has none.
    pub fn bank_code(&self) -> String {
        let c = self.code();
        if c.is_empty() {
            "unknown".to_owned()
        } else {
            c
        }
    }
}

/// The class of a money request's answer.
pub fn classify(code: &str) -> Verdict {
    match code {
        APPROVED => Verdict::Approved,
        // No code, or the inquiry's success on a money request: nothing says what happened.
        "" | INQUIRY_OK => Verdict::Unknown,
        c if MAY_HAVE_ACTED.contains(&c) => Verdict::Unknown,
        c if TECHNICAL.contains(&c) => Verdict::Error,
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
        let code = self.code();
        classify(&code).outcome(Answer {
            approval: APPROVED.to_owned(),
            auth_code: text(&self.0, &["AuthCode"]),
            rrn: text(&self.0, &["ReferenceCode"]),
            after_cutoff: code == codes::BATCH_CLOSED,
            code: self.bank_code(),
            message: self.message(),
        })
    }

    /// The order's state from an inquiry answer.
    fn status(&self) -> BankStatus {
        crate::status::read(self).status
    }
}

#[cfg(test)]
#[path = "response_tests.rs"]
mod tests;
