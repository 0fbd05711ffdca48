//! InterVPOS answers: `key=value;;key=value` text (MEWS `InterPosSerializer::decode`; `;;;`
//! also separates), and what an answer to a money request means.
//!
//! Approval needs `ProcReturnCode=00` **and** `TxnResult=Success`; when they disagree, or
//! `ProcReturnCode` is missing, the outcome is *unknown* (settled by `StatusHistory`). `81`
//! (terminal/user not active, MEWS fixtures with `ErrorCode B810002`) was refused before
//! processing: `Error`. `68`, `91`, `92`, `96` (late answer, "Sistem hatasi" / issuer or
//! switch inoperative, reversal in progress, system malfunction) may have been applied:
//! `Unknown`. Any other code is a refusal on its merits: `Declined` (`ErrorCode` is the bank
//! code). The crate README's code → outcome table names the sources.

use paygate_bankkit::{amount, form::parse_pairs, Answer, BankReply};
use paygate_domain::{BankOutcome, BankStatus, PointsResult};

pub use paygate_bankkit::Verdict;

/// The `ErrorCode` the simulator answers a void after the end-of-day cut with (see README).
pub const AFTER_CUTOFF: &str = "E41";
/// The `ErrorCode` of "no such order" (see README).
pub const NOT_FOUND: &str = "E39";

/// An answer's pairs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    pub pairs: Vec<(String, String)>,
}

impl Reply {
    /// A value (`""` when absent).
    pub fn get(&self, key: &str) -> &str {
        self.pairs
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    }

    pub fn proc_return_code(&self) -> &str {
        self.get("ProcReturnCode")
    }

    /// `ErrorCode` when set, else `ProcReturnCode`.
    pub fn bank_code(&self) -> String {
        [self.get("ErrorCode"), self.proc_return_code()]
            .into_iter()
            .find(|s| !s.is_empty())
            .unwrap_or("unknown")
            .to_owned()
    }

    pub fn message(&self) -> String {
        self.get("ErrorMessage").to_owned()
    }
}

/// An InterVPOS amount: `1,01`, `1.01`, `0`, `100`.
pub fn parse_amount(s: &str) -> Option<i64> {
    amount::parse_decimal(&s.trim().replace(',', "."))
}

/// Classifies an answer (see the module doc).
pub fn classify(reply: &Reply) -> Verdict {
    let proc = reply.proc_return_code().trim();
    let success = reply
        .get("TxnResult")
        .trim()
        .eq_ignore_ascii_case("Success");
    match (proc, success) {
        ("00", true) => Verdict::Approved,
        ("00", false) | ("", _) => Verdict::Unknown,
        (_, true) => Verdict::Unknown,
        ("81", false) => Verdict::Error,
        ("68" | "91" | "92" | "96", false) => Verdict::Unknown,
        _ => Verdict::Declined,
    }
}

impl BankReply for Reply {
    /// Reads an answer (UTF-8, else Latin-5 bytes read as such).
    fn decode(body: &[u8]) -> Result<Self, String> {
        let text = match std::str::from_utf8(body) {
            Ok(t) => t.to_owned(),
            Err(_) => paygate_bankkit::encoding::decode(body),
        };
        let pairs = parse_pairs(&text)?;
        if !pairs
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("ProcReturnCode"))
        {
            return Err("no ProcReturnCode".to_owned());
        }
        Ok(Reply { pairs })
    }

    fn outcome(&self) -> BankOutcome {
        let code = self.bank_code();
        let answer = Answer {
            approval: "00".to_owned(),
            auth_code: self.get("AuthCode").to_owned(),
            rrn: self.get("HostRefNum").to_owned(),
            after_cutoff: code == AFTER_CUTOFF,
            message: self.message(),
            code,
        };
        classify(self).outcome_or(answer, |code, _| {
            format!("the bank's answer does not settle the outcome ({code})")
        })
    }

    fn status(&self) -> BankStatus {
        crate::status::status(self)
    }

    /// A `BonusInquiry` answer: the card's usable Bonus (`AvailableBonus`, comma decimals).
    fn points(&self) -> PointsResult {
        classify(self).points(
            parse_amount(self.get("AvailableBonus")),
            "Bonus",
            "an AvailableBonus balance",
            self.bank_code(),
            self.message(),
        )
    }
}

#[cfg(test)]
#[path = "response_tests.rs"]
mod tests;
