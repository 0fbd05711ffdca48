//! `VposResponse` (capture, cancel, refund) and the search service's answer, and what an
//! answer to a money request means.
//!
//! `ResultCode` `0000` is the only approval (MEWS `PayFlexV4PosResponseDataMapper`). The
//! class of every other code is [`classify_code`]'s (the crate README's code → outcome table
//! names each source): the merchant's set-up refused before processing (`9039`/`9065` "Üye
//! işyeri bulunamadı", …) is an error, nothing moved; a system error, a transaction "not
//! finished yet", a host time-out or malfunction and every other `9xxx` technical code (`9000`
//! "Host iletişimi esnasında bir hata oluştu", `9998`) may have acted: *unknown*, settled by
//! the search service, like an answer with no `ResultCode` at all; any other code is a
//! refusal of the operation on its merits (`0312` card refused, `1083` already cancelled,
//! `1059` fully refunded, `2202`/`7777` after the end-of-day cut).

use paygate_bankkit::{
    xml::{self, Element},
    Answer, BankReply,
};
use paygate_domain::{BankOutcome, BankStatus};

pub use paygate_bankkit::Verdict;

/// The approval code.
pub const APPROVED: &str = "0000";
/// "Gün sonu yapılmış işlem iptal edilemez": a cancel after the end-of-day cut (the
/// simulator's code; see the README: the bank's own table has `2202` and `7777`).
pub const AFTER_CUTOFF: &str = "1082";

/// Codes of a refusal past the end-of-day cut: the simulator's [`AFTER_CUTOFF`], and the
/// bank table's `2202` "Islem iptal edilemez. (Batch Kapali)" and `7777` "Banka tarafinda gün
/// sonu yapildigindan islem gerçeklestirilemedi".
pub fn after_cutoff(code: &str) -> bool {
    matches!(code.trim(), AFTER_CUTOFF | "2202" | "7777")
}

/// Answers to a cancel that say the transaction is already cancelled: `1083` "Referans
/// islem daha önceden iptal edilmis" (MEWS fixture), `1088` "Önprovizyon iptal edilmis",
/// `1101` "Referans transaction reverse edilmis" (bank table).
pub fn already_cancelled(code: &str) -> bool {
    matches!(code.trim(), "1083" | "1088" | "1101")
}

/// Refusals before processing: the merchant's credentials or set-up (`9039`/`9065` MEWS
/// fixtures; `9040` the simulator's; `5001`, `5002`, `2011`, `2200`, `6019` bank table).
const NOT_PROCESSED: [&str; 8] = [
    "9039", "9065", "9040", "5001", "5002", "2011", "2200", "6019",
];

/// Codes after which the bank may have acted, beside every other `9xxx`: `1001` "Sistem
/// hatasi", `1074` "Islem henüz sonlanmamis", `91`/`92`/`96` issuer or switch inoperative,
/// time-out with a reversal pending, system malfunction (bank table).
const MAY_HAVE_ACTED: [&str; 5] = ["1001", "1074", "91", "92", "96"];

/// A `VposResponse` (missing elements read as empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VposReply {
    pub transaction_type: String,
    pub transaction_id: String,
    pub reference_transaction_id: String,
    pub result_code: String,
    pub result_detail: String,
    pub auth_code: String,
    pub rrn: String,
    pub currency_amount: String,
    pub host_date: String,
}

/// One `TransactionSearchResultInfo` line of the search answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchLine {
    /// `Sale`, `Auth`, `Capture`, `Cancel`, `Refund`.
    pub transaction_type: String,
    pub transaction_id: String,
    pub reference_transaction_id: String,
    pub order_id: String,
    pub result_code: String,
    pub response_message: String,
    pub auth_code: String,
    pub rrn: String,
    pub currency_amount: String,
    pub is_canceled: String,
    pub is_reversed: String,
    pub is_refunded: String,
    pub is_captured: String,
    pub total_refund_amount: String,
}

impl SearchLine {
    pub fn approved(&self) -> bool {
        self.result_code.trim() == APPROVED
    }

    pub fn flag(v: &str) -> bool {
        v.trim().eq_ignore_ascii_case("true")
    }
}

/// The search service's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchReply {
    /// `ResponseInfo/Status`: `Success` or `Error`.
    pub status: String,
    pub response_code: String,
    pub response_message: String,
    pub lines: Vec<SearchLine>,
}

/// One decoded answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    Vpos(VposReply),
    Search(SearchReply),
}

impl Reply {
    /// The bank's code: `ResultCode`, or the search answer's `ResponseCode`.
    pub fn bank_code(&self) -> String {
        let code = match self {
            Self::Vpos(v) => v.result_code.trim(),
            Self::Search(s) => s.response_code.trim(),
        };
        if code.is_empty() {
            "unknown".to_owned()
        } else {
            code.to_owned()
        }
    }

    pub fn message(&self) -> String {
        match self {
            Self::Vpos(v) => v.result_detail.trim().to_owned(),
            Self::Search(s) => s.response_message.trim().to_owned(),
        }
    }
}

fn text(e: &Element, name: &str) -> String {
    e.text_at(&[name]).unwrap_or("").trim().to_owned()
}

fn vpos(root: &Element) -> VposReply {
    let t = |n: &str| text(root, n);
    VposReply {
        transaction_type: t("TransactionType"),
        transaction_id: t("TransactionId"),
        reference_transaction_id: t("ReferenceTransactionId"),
        result_code: t("ResultCode"),
        result_detail: t("ResultDetail"),
        auth_code: t("AuthCode"),
        rrn: t("Rrn"),
        currency_amount: t("CurrencyAmount"),
        host_date: t("HostDate"),
    }
}

fn search(root: &Element) -> SearchReply {
    let info = root.child("ResponseInfo");
    let i = |n: &str| info.map(|e| text(e, n)).unwrap_or_default();
    let lines = root
        .child("TransactionSearchResultInfo")
        .map(|list| {
            list.children_named("TransactionSearchResultInfo")
                .map(|l| {
                    let t = |n: &str| text(l, n);
                    let amount = if l.child("CurrencyAmount").is_some() {
                        t("CurrencyAmount")
                    } else {
                        t("Amount")
                    };
                    SearchLine {
                        transaction_type: t("TransactionType"),
                        transaction_id: t("TransactionId"),
                        reference_transaction_id: t("ReferenceTransactionId"),
                        order_id: t("OrderId"),
                        result_code: t("ResultCode"),
                        response_message: t("ResponseMessage"),
                        auth_code: t("AuthCode"),
                        rrn: t("Rrn"),
                        currency_amount: amount,
                        is_canceled: t("IsCanceled"),
                        is_reversed: t("IsReversed"),
                        is_refunded: t("IsRefunded"),
                        is_captured: t("IsCaptured"),
                        total_refund_amount: t("TotalRefundAmount"),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    SearchReply {
        status: i("Status"),
        response_code: i("ResponseCode"),
        response_message: i("ResponseMessage"),
        lines,
    }
}

/// The class of a `ResultCode` (see the module doc and the README table).
pub fn classify_code(code: &str) -> Verdict {
    let code = code.trim();
    if code == APPROVED {
        Verdict::Approved
    } else if NOT_PROCESSED.contains(&code) {
        Verdict::Error
    } else if code.is_empty()
        || MAY_HAVE_ACTED.contains(&code)
        || (code.len() == 4 && code.starts_with('9'))
    {
        Verdict::Unknown
    } else {
        Verdict::Declined
    }
}

impl BankReply for Reply {
    /// Reads an answer: UTF-8 XML (MEWS decodes it as such); an HTML page (the bank's
    /// firewall answers one) or anything else is `Err`.
    fn decode(body: &[u8]) -> Result<Self, String> {
        let text = std::str::from_utf8(body).map_err(|_| "the answer is not UTF-8".to_owned())?;
        let text = text.trim_start_matches('\u{feff}').trim();
        let root = xml::parse(text).map_err(|e| e.to_string())?;
        match root.name.as_str() {
            "VposResponse" => Ok(Reply::Vpos(vpos(&root))),
            _ if root.child("ResponseInfo").is_some() => Ok(Reply::Search(search(&root))),
            other => Err(format!("unexpected root element <{other}>")),
        }
    }

    fn outcome(&self) -> BankOutcome {
        let Reply::Vpos(v) = self else {
            return BankOutcome::Unknown {
                reason: "a search answer to a money request".to_owned(),
            };
        };
        let code = self.bank_code();
        let answer = Answer {
            approval: code.clone(),
            auth_code: v.auth_code.clone(),
            rrn: v.rrn.clone(),
            after_cutoff: after_cutoff(&code),
            message: self.message(),
            code,
        };
        let no_code = v.result_code.trim().is_empty();
        classify_code(&v.result_code).outcome_or(answer, |code, message| {
            if no_code {
                "the bank's answer has no result code".to_owned()
            } else {
                paygate_bankkit::call::unsettled(code, message)
            }
        })
    }

    /// The search service's answer (the query's single request).
    fn status(&self) -> BankStatus {
        match self {
            Reply::Search(s) => crate::status::status(s),
            Reply::Vpos(v) => BankStatus::unavailable(if v.result_code.is_empty() {
                "search"
            } else {
                &v.result_code
            }),
        }
    }
}

#[cfg(test)]
#[path = "response_tests.rs"]
mod tests;
