//! JSON answers: `responseCode` (`VPS-0000` = approved), `responseMessage`,
//! `hostResponseCode` (`00`), `order{orderId}`, `transaction{authCode, rrn, …}`, and for the
//! order history `txnDetailList[]` (MEWS `AkbankPosResponseDataMapper` and its tests).
//! Validation errors come as HTTP 400 (`{code, message}`), which the kit's transport reports
//! before this reader runs.

use paygate_bankkit::{amount, Answer, BankReply, Verdict};
use paygate_domain::{BankOutcome, BankStatus};
use serde_json::Value;

/// The approval code.
pub const APPROVED: &str = "VPS-0000";

/// A decoded answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply(pub Value);

/// A string or number member as text (`""` when absent or of another type).
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

/// An amount member (a JSON number like `1.01` or `30`, or a string) in kuruş.
pub fn amount_of(v: &Value, key: &str) -> Option<i64> {
    amount::parse_decimal(&text(v, &[key]))
}

impl Reply {
    pub fn code(&self) -> String {
        text(&self.0, &["responseCode"])
    }

    pub fn bank_code(&self) -> String {
        let c = self.code();
        if c.is_empty() {
            "unknown".to_owned()
        } else {
            c
        }
    }

    pub fn message(&self) -> String {
        [
            text(&self.0, &["responseMessage"]),
            text(&self.0, &["hostMessage"]),
        ]
        .into_iter()
        .find(|s| !s.is_empty())
        .unwrap_or_default()
    }
}

/// The class of an answer.
pub fn classify(reply: &Reply) -> Verdict {
    let host = text(&reply.0, &["hostResponseCode"]);
    match reply.code().as_str() {
        // Approved only if the host did not say otherwise.
        APPROVED if host.is_empty() || host == "00" => Verdict::Approved,
        APPROVED => Verdict::Unknown,
        // No code at all: nothing settles the outcome.
        "" => Verdict::Unknown,
        // "Invalid request date": refused before processing.
        "VPS-1073" => Verdict::Error,
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
            approval: APPROVED.to_owned(),
            auth_code: text(&self.0, &["transaction", "authCode"]),
            rrn: text(&self.0, &["transaction", "rrn"]),
            code: self.bank_code(),
            message: self.message(),
            after_cutoff: false,
        })
    }

    /// The state derived from an order-history answer (the default query sends `1010`).
    fn status(&self) -> BankStatus {
        crate::status::from_history(self).status
    }
}

#[cfg(test)]
#[path = "response_tests.rs"]
mod tests;
