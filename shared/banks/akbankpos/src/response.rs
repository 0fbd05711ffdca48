//! JSON answers: `responseCode` (`VPS-0000` = approved), `responseMessage`,
//! `hostResponseCode` (`00`), `order{orderId}`, `transaction{authCode, rrn, …}`, and for the
//! order history `txnDetailList[]` (MEWS `AkbankPosResponseDataMapper` and its tests).
//! Validation errors come as HTTP 400 (`{code, message}`), which the kit's transport reports
//! before this reader runs.

use paygate_bankkit::{amount, Verdict};
use paygate_domain::BankOutcome;
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

/// Reads an answer: a JSON object.
pub fn parse(body: &[u8]) -> Result<Reply, String> {
    let v: Value = serde_json::from_slice(body).map_err(|e| format!("not JSON: {e}"))?;
    if !v.is_object() {
        return Err("the answer is not a JSON object".to_owned());
    }
    Ok(Reply(v))
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

/// What an answer to a money-moving request means.
pub fn outcome(reply: &Reply) -> BankOutcome {
    let non_empty = |s: String| (!s.is_empty()).then_some(s);
    match classify(reply) {
        Verdict::Approved => BankOutcome::Approved {
            code: APPROVED.to_owned(),
            auth_code: non_empty(text(&reply.0, &["transaction", "authCode"])),
            rrn: non_empty(text(&reply.0, &["transaction", "rrn"])),
        },
        Verdict::Declined => BankOutcome::Declined {
            code: reply.bank_code(),
            message: reply.message(),
            after_cutoff: false,
        },
        Verdict::Error => BankOutcome::Error {
            code: reply.bank_code(),
            message: reply.message(),
        },
        Verdict::Unknown => BankOutcome::Unknown {
            reason: format!(
                "the bank's answer does not settle the outcome ({}: {})",
                reply.bank_code(),
                reply.message()
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification() {
        let r = |s: &str| parse(s.as_bytes()).unwrap();
        let ok = r(
            r#"{"txnCode":"1005","responseCode":"VPS-0000","responseMessage":"BAŞARILI","hostResponseCode":"00","order":{"orderId":"O1"},"transaction":{"authCode":"305955","rrn":"410724359538","batchNumber":39,"stan":134}}"#,
        );
        assert_eq!(
            outcome(&ok),
            BankOutcome::Approved {
                code: "VPS-0000".into(),
                auth_code: Some("305955".into()),
                rrn: Some("410724359538".into())
            }
        );
        let again =
            r(r#"{"responseCode":"VPS-1008","responseMessage":"Daha önce iptal edilmiş işlem"}"#);
        assert!(
            matches!(outcome(&again), BankOutcome::Declined { code, .. } if code == "VPS-1008")
        );
        assert!(matches!(
            outcome(&r(r#"{"responseCode":"VPS-1073","responseMessage":"x"}"#)),
            BankOutcome::Error { .. }
        ));
        assert!(matches!(
            outcome(&r(r#"{"responseCode":"VPS-0000","hostResponseCode":"96"}"#)),
            BankOutcome::Unknown { .. }
        ));
        assert!(matches!(
            outcome(&r(r#"{"foo":1}"#)),
            BankOutcome::Unknown { .. }
        ));
        assert!(parse(b"<html>").is_err() && parse(b"[1]").is_err());
    }

    #[test]
    fn amounts() {
        let v: Value = serde_json::from_str(r#"{"a":1.01,"b":30,"c":"2.50","d":1.001}"#).unwrap();
        assert_eq!(
            (
                amount_of(&v, "a"),
                amount_of(&v, "b"),
                amount_of(&v, "c"),
                amount_of(&v, "d")
            ),
            (Some(101), Some(3_000), Some(250), None)
        );
    }
}
