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

    /// Whether `responseMessage` or `hostMessage` names a system error ("Sistem hatası",
    /// "SISTEM HATASI"): the bank failed somewhere while handling the request, so it cannot
    /// be read as a refusal before processing.
    pub fn names_system_error(&self) -> bool {
        ["responseMessage", "hostMessage"].iter().any(|key| {
            let folded: String = text(&self.0, &[key])
                .chars()
                .map(|c| match c {
                    'İ' | 'ı' => 'i',
                    c => c.to_ascii_lowercase(),
                })
                .collect();
            folded.contains("sistem hata")
        })
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

/// "Already cancelled" (MEWS `fail_already_canceled`): on a void, the cancel has taken effect
/// (confirmed by reading the order, see the crate's `cancel`); on a refund, nothing refunded.
pub const ALREADY_VOIDED: &str = "VPS-1008";

/// ISO 8583 host codes after which the host may have acted, whatever `responseCode` says:
/// `68` response received too late, `91` issuer or switch inoperative (also a switch's answer
/// when the issuer timed out), `96` system malfunction.
pub const HOST_MAY_HAVE_ACTED: &[&str] = &["68", "91", "96"];

/// The class of an answer (a whole answer, or one line of an order history: both carry
/// `responseCode`, `hostResponseCode`, `responseMessage`, `hostMessage`).
pub fn classify(reply: &Reply) -> Verdict {
    let host = text(&reply.0, &["hostResponseCode"]);
    match reply.code().as_str() {
        // Approved only if the host did not say otherwise.
        APPROVED if host.is_empty() || host == "00" => Verdict::Approved,
        APPROVED => Verdict::Unknown,
        // No code at all (an answer without a result, a history line still in progress):
        // nothing settles the outcome.
        "" => Verdict::Unknown,
        // A refusal that does not say nothing moved.
        _ if HOST_MAY_HAVE_ACTED.contains(&host.as_str()) || reply.names_system_error() => {
            Verdict::Unknown
        }
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
