//! PayFor's answers: the flat `PayforResponse` (money requests, `OrderInquiry`,
//! `ParaPuanInquiry`) and the `TxnHistoryReport` (`TxnHistory`: one `PaymentRequestExtended/
//! PaymentRequest` per transaction). The bank pads empty elements with CR LF and spaces
//! (MEWS `PayForPosSerializer::decode` strips them); the kit's XML reader trims every text.
//!
//! Approval is `ProcReturnCode = 00` (MEWS `PayForPosResponseDataMapper`; `ErrMsg
//! "Onaylandı"`). The class of a refusal is read from the code (see [`classify`] and the
//! README table).

use paygate_bankkit::{amount, xml, Answer, BankReply, Verdict};
use paygate_domain::{BankOutcome, BankStatus, PointsResult};

use crate::status;

/// One flat list of fields (document order; missing ones read as empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fields(pub Vec<(String, String)>);

impl Fields {
    /// A field's trimmed text (`""` when absent).
    pub fn get(&self, key: &str) -> &str {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    }

    /// `ProcReturnCode`.
    pub fn code(&self) -> &str {
        self.get("ProcReturnCode")
    }

    /// The bank's code for this answer: `ProcReturnCode`, else `unknown`.
    pub fn bank_code(&self) -> String {
        let c = self.code();
        if c.is_empty() { "unknown" } else { c }.to_owned()
    }

    /// The bank's message: `ErrMsg`, else `BankInternalResponseMessage`.
    pub fn message(&self) -> String {
        [self.get("ErrMsg"), self.get("BankInternalResponseMessage")]
            .into_iter()
            .find(|s| !s.is_empty())
            .unwrap_or("")
            .to_owned()
    }

    /// A decimal-TL field in kuruş (`None` when absent or unreadable).
    pub fn amount(&self, key: &str) -> Option<i64> {
        amount::parse_decimal(self.get(key))
    }
}

/// A decoded answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// The root element's name (`PayforResponse`, `TxnHistoryReport`).
    pub root: String,
    /// The root's own fields (empty for a history report).
    pub fields: Fields,
    /// A history report's transactions, in document order.
    pub history: Vec<Fields>,
}

fn fields_of(e: &xml::Element) -> Fields {
    Fields(
        e.children
            .iter()
            .map(|c| (c.name.clone(), c.text.clone()))
            .collect(),
    )
}

/// The class of a `ProcReturnCode` (the README's code → outcome table names the sources).
pub fn classify(code: &str) -> Verdict {
    match code.trim() {
        "00" => Verdict::Approved,
        // Credentials / user not allowed: refused before processing.
        "V001" | "V004" | "M049" => Verdict::Error,
        // "Sistem hatası", system malfunction, late answer, issuer or switch inoperative,
        // reversal in progress, MEWS's other "general error" and "try again" codes (their
        // meaning undocumented), or no code at all: the host may have acted.
        "" | "V036" | "96" | "68" | "91" | "92" | "V111" | "V025" | "V029" | "M025" | "M042"
        | "V034" | "MR15" => Verdict::Unknown,
        _ => Verdict::Declined,
    }
}

impl BankReply for Reply {
    /// Reads an answer (UTF-8, as the bank declares it).
    fn decode(body: &[u8]) -> Result<Self, String> {
        let text = std::str::from_utf8(body).map_err(|_| "the answer is not UTF-8".to_owned())?;
        let root = xml::parse(text.trim_start_matches('\u{feff}')).map_err(|e| e.to_string())?;
        match root.name.as_str() {
            "PayforResponse" => Ok(Reply {
                root: root.name.clone(),
                fields: fields_of(&root),
                history: Vec::new(),
            }),
            "TxnHistoryReport" => {
                let history: Vec<Fields> = root
                    .children_named("PaymentRequestExtended")
                    .map(|x| x.child("PaymentRequest").map(fields_of))
                    .collect::<Option<_>>()
                    .ok_or_else(|| "a history entry without PaymentRequest".to_owned())?;
                Ok(Reply {
                    root: root.name.clone(),
                    fields: Fields::default(),
                    history,
                })
            }
            other => Err(format!("unexpected root element <{other}>")),
        }
    }

    fn outcome(&self) -> BankOutcome {
        let f = &self.fields;
        if self.root != "PayforResponse" {
            return BankOutcome::Unknown {
                reason: "the bank answered a money request with a report".to_owned(),
            };
        }
        classify(f.code()).outcome(Answer {
            approval: "00".to_owned(),
            auth_code: f.get("AuthCode").to_owned(),
            rrn: f.get("HostRefNum").to_owned(),
            code: f.bank_code(),
            message: f.message(),
            after_cutoff: false,
        })
    }

    /// An `OrderInquiry` answer alone (the query adds `TxnHistory` for sales).
    fn status(&self) -> BankStatus {
        match status::read_inquiry(self).found() {
            Ok(line) => status::combine(&line, None),
            Err(st) => st,
        }
    }

    /// A `ParaPuanInquiry` answer.
    fn points(&self) -> PointsResult {
        let f = &self.fields;
        classify(f.code()).points(
            parapuan_minor(f),
            "ParaPuan",
            "an AvailablePoint balance",
            f.bank_code(),
            f.message(),
        )
    }
}

/// The ParaPuan balance of an approved `ParaPuanInquiry` answer: `AvailablePoint` (decimal
/// TL), else `KullanilabilirBonusPuan`.
pub fn parapuan_minor(f: &Fields) -> Option<i64> {
    ["AvailablePoint", "KullanilabilirBonusPuan"]
        .into_iter()
        .map(|k| f.get(k))
        .find(|v| !v.is_empty())
        .and_then(amount::parse_decimal)
}

#[cfg(test)]
#[path = "response_tests.rs"]
mod tests;
