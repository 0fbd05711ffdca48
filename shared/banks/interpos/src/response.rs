//! InterVPOS answers: `key=value;;key=value` text (MEWS `InterPosSerializer::decode`; `;;;`
//! also separates), and what an answer to a money request means.
//!
//! Approval needs `ProcReturnCode=00` **and** `TxnResult=Success`; when they disagree, or
//! `ProcReturnCode` is missing, the outcome is *unknown* (settled by `StatusHistory`). `81`
//! (terminal/user not active, MEWS fixtures with `ErrorCode B810002`) and `91` (host
//! unreachable / technical error) were refused before processing: `Error`. `68`, `92`, `96`
//! (late answer, reversal in progress, system malfunction) may have been applied: `Unknown`.
//! Any other code is a refusal on its merits: `Declined` (`ErrorCode` is the bank code).

use paygate_bankkit::{amount, form::parse_pairs};
use paygate_domain::BankOutcome;

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

/// Reads an answer (UTF-8, else Latin-5 bytes read as such).
pub fn parse(body: &[u8]) -> Result<Reply, String> {
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
        ("81" | "91", false) => Verdict::Error,
        ("68" | "92" | "96", false) => Verdict::Unknown,
        _ => Verdict::Declined,
    }
}

/// What an answer to a money-moving request means.
pub fn outcome(reply: &Reply) -> BankOutcome {
    let non_empty = |s: &str| (!s.trim().is_empty()).then(|| s.trim().to_owned());
    let (code, message) = (reply.bank_code(), reply.message());
    match classify(reply) {
        Verdict::Approved => BankOutcome::Approved {
            code: "00".to_owned(),
            auth_code: non_empty(reply.get("AuthCode")),
            rrn: non_empty(reply.get("HostRefNum")),
        },
        Verdict::Declined => BankOutcome::Declined {
            after_cutoff: code == AFTER_CUTOFF,
            code,
            message,
        },
        Verdict::Error => BankOutcome::Error { code, message },
        Verdict::Unknown => BankOutcome::Unknown {
            reason: format!("the bank's answer does not settle the outcome ({code})"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MEWS `InterPosSerializerTest::decodeDataProvider` `success_payment`.
    pub const MEWS_PAYMENT: &str = "OrderId=33554969;;ProcReturnCode=00;;HostRefNum=hostid;;AuthCode=gizlendi;;TxnResult=Success;;ErrorMessage=;;CampanyId=;;CampanyInstallCount=0;;CampanyShiftDateCount=0;;CampanyTxnId=;;CampanyType=;;CampanyInstallment=0;;CampanyDate=0;;CampanyAmnt=0;;TRXDATE=09.08.2024 10:40:34;;TransId=gizlendi;;ErrorCode=;;EarnedBonus=0,00;;UsedBonus=0,00;;AvailableBonus=0,00;;BonusToBonus=0;;CampaignBonus=0,00;;FoldedBonus=0;;SurchargeAmount=0;;Amount=1,00;;CardHolderName=gizlendi;;QrReferenceNumber=;;QrCardToken=;;QrData=;;QrPayIsSucess=False;;QrIssuerPaymentMethod=;;QrFastMessageReferenceNo=;;QrFastParticipantReceiverCode=;;QrFastParticipantReceiverName=;;QrFastParticipantSenderCode=;;QrFastSenderIban=;;QrFastParticipantSenderName=;;QrFastPaymentResultDesc=";

    /// MEWS `InterPosResponseDataMapperTest::cancelTestDataProvider` `fail1`.
    const MEWS_CANCEL_FAIL: &str = "OrderId=SYSOID121330755;;ProcReturnCode=81;;AuthCode=;;TxnResult=Failed;;ErrorMessage=Terminal Aktif Degil;;CampanyId=;;TRXDATE=;;TransId=;;ErrorCode=B810002;;EarnedBonus=0;;UsedBonus=0;;AvailableBonus=0;;Amount=0;;CardHolderName=";

    #[test]
    fn decodes_the_mews_fixtures() {
        let r = parse(MEWS_PAYMENT.as_bytes()).unwrap();
        assert_eq!(r.pairs.len(), 38);
        assert_eq!(r.get("TRXDATE"), "09.08.2024 10:40:34");
        assert_eq!(parse_amount(r.get("Amount")), Some(100));
        assert_eq!(
            outcome(&r),
            BankOutcome::Approved {
                code: "00".into(),
                auth_code: Some("gizlendi".into()),
                rrn: Some("hostid".into())
            }
        );
        let f = parse(MEWS_CANCEL_FAIL.as_bytes()).unwrap();
        assert_eq!(
            outcome(&f),
            BankOutcome::Error {
                code: "B810002".into(),
                message: "Terminal Aktif Degil".into()
            }
        );
        assert!(parse(b"<html>Request Rejected</html>").is_err());
        assert!(parse(b"").is_err());
        assert!(parse(b"OrderId=1;;TxnResult=Success").is_err());
    }

    #[test]
    fn classification() {
        let r = |proc: &str, result: &str, code: &str| Reply {
            pairs: vec![
                ("ProcReturnCode".into(), proc.into()),
                ("TxnResult".into(), result.into()),
                ("ErrorCode".into(), code.into()),
            ],
        };
        assert_eq!(classify(&r("00", "Failed", "")), Verdict::Unknown);
        assert_eq!(classify(&r("05", "Success", "")), Verdict::Unknown);
        assert_eq!(classify(&r("", "Failed", "")), Verdict::Unknown);
        assert_eq!(classify(&r("96", "Failed", "")), Verdict::Unknown);
        assert_eq!(classify(&r("91", "Failed", "B910001")), Verdict::Error);
        assert_eq!(classify(&r("99", "Failed", "E31")), Verdict::Declined);
        assert!(matches!(
            outcome(&r("99", "Failed", AFTER_CUTOFF)),
            BankOutcome::Declined {
                after_cutoff: true,
                ..
            }
        ));
        assert_eq!(parse_amount("1,01"), Some(101));
        assert_eq!(parse_amount("0"), Some(0));
        assert_eq!(parse_amount("x"), None);
    }
}
