//! The order's state at the bank, from `ORDERSTATUS` and `ORDERHISTORY` together.
//!
//! `ORDERSTATUS` shows one transaction: the sale (`CHARGE_TYPE_CD=S`) with its `TRANS_STAT`
//! (`A` open pre-auth, `C` captured/sold, `V` voided, `D` declined …), or — once the order is
//! fully refunded — the refund (`CHARGE_TYPE_CD=C`). Partial refunds never show there, so for
//! a sold order the history is read as well and every approved `C` line is added up.
//! Amounts in both answers are kuruş (`ORIG_TRANS_AMT=101` is 1.01 TL).

use paygate_bankkit::{amount, StatusRead};
use paygate_domain::{BankState, BankStatus};

use crate::response::{classify, Reply, Verdict};

/// One transaction of an order, as either answer reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TxLine {
    /// `S` sale/pre-auth, `C` credit (refund).
    pub charge_type: String,
    pub trans_stat: String,
    pub orig_amt: String,
    pub capture_amt: String,
    pub host_ref_num: String,
    pub auth_code: String,
    pub proc_ret_cd: String,
    pub trans_id: String,
}

impl TxLine {
    /// Captured amount when there is one, else the original (held) amount, in kuruş.
    fn amount(&self) -> Option<i64> {
        if self.capture_amt.trim().is_empty() {
            amount::parse_minor(&self.orig_amt)
        } else {
            amount::parse_minor(&self.capture_amt)
        }
    }

    /// `PROC_RET_CD` `00`; an empty one is not an approval (nor a refusal: see
    /// [`TxLine::unsettled`]).
    fn approved(&self) -> bool {
        self.proc_ret_cd.trim() == "00"
    }

    /// A line without `PROC_RET_CD` says neither that it went through nor that it failed.
    fn unsettled(&self) -> bool {
        self.proc_ret_cd.trim().is_empty()
    }

    /// A transaction whose outcome is not final, or not known: pending (`PN`), a technical
    /// reversal needed (`R`), "time-out, reversal is trying" (`PROC_RET_CD` `92`), or a host
    /// code after which the bank may have acted (`68`, `91`, `96`: see `response`).
    fn in_progress(&self) -> bool {
        matches!(self.trans_stat.as_str(), "PN" | "R")
            || matches!(self.proc_ret_cd.trim(), "68" | "91" | "92" | "96")
    }

    /// An approved refund that still stands.
    fn live_refund(&self) -> bool {
        self.charge_type == "C"
            && self.approved()
            && !matches!(self.trans_stat.as_str(), "D" | "V" | "ERR" | "CNCL")
    }
}

/// What an `ORDERSTATUS` answer says: `No record found for <oid>`, a failed query
/// (credentials, system error, contradictory answer), or the order's current transaction.
pub type StatusAnswer = StatusRead<TxLine>;

/// Reads an `ORDERSTATUS` answer: the flattened `Extra` fields, or the tab-separated
/// `Extra/ORDERSTATUS` string where a field is missing.
pub fn read_status(reply: &Reply) -> StatusAnswer {
    let packed = packed_fields(reply.extra("ORDERSTATUS").unwrap_or(""));
    let field = |k: &str| -> String {
        reply
            .extra(k)
            .filter(|v| !v.is_empty())
            .or_else(|| {
                packed
                    .iter()
                    .find(|(pk, _)| pk == k)
                    .map(|(_, v)| v.as_str())
            })
            .unwrap_or("")
            .trim()
            .to_owned()
    };
    let error_code = reply.extra("ERRORCODE").unwrap_or("").trim();
    if classify(reply) != Verdict::Approved {
        // Only the protocol's explicit "no such order" answer (`No record found for <oid>`,
        // without an ERRORCODE) means the bank has no record. Any other refusal — a system
        // error (`96`), "reversal is trying" (`ISO8583-92`), an authentication failure — says
        // nothing about the order.
        let no_record = reply.err_msg.trim_start().starts_with("No record found");
        if error_code.is_empty() && no_record {
            return StatusAnswer::NotFound {
                code: reply.bank_code(),
            };
        }
        return StatusAnswer::Failed {
            code: reply.bank_code(),
        };
    }
    let line = TxLine {
        charge_type: field("CHARGE_TYPE_CD"),
        trans_stat: field("TRANS_STAT"),
        orig_amt: field("ORIG_TRANS_AMT"),
        capture_amt: field("CAPTURE_AMT"),
        host_ref_num: field("HOST_REF_NUM"),
        auth_code: field("AUTH_CODE"),
        proc_ret_cd: field("PROC_RET_CD"),
        trans_id: field("TRANS_ID"),
    };
    if line.charge_type.is_empty() || line.trans_stat.is_empty() {
        return StatusAnswer::Failed {
            code: "ORDERSTATUS".to_owned(),
        };
    }
    StatusAnswer::Found(line)
}

fn packed_fields(s: &str) -> Vec<(String, String)> {
    s.split('\t')
        .filter_map(|kv| kv.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect()
}

/// Reads an `ORDERHISTORY` answer (`TRXCOUNT`, `TRX1..n`, each `S/C \t TRANS_STAT \t
/// ORIG_AMT \t CAPTURE_AMT \t AUTH_DTTM \t CAPTURE_DTTM \t VOID_DTTM \t HOST_REF_NUM \t
/// AUTH_CODE \t PROC_RET_CD \t TRANS_ID`). `Err` carries the code of a failed answer.
pub fn read_history(reply: &Reply) -> Result<Vec<TxLine>, String> {
    if classify(reply) != Verdict::Approved {
        return Err(reply.bank_code());
    }
    let count: usize = reply
        .extra("TRXCOUNT")
        .and_then(|c| c.trim().parse().ok())
        .ok_or_else(|| "TRXCOUNT".to_owned())?;
    (1..=count)
        .map(|i| {
            let key = format!("TRX{i}");
            let raw = reply.extra(&key).ok_or_else(|| key.clone())?;
            let f: Vec<&str> = raw.split('\t').map(str::trim).collect();
            if f.len() < 10 {
                return Err(key);
            }
            let at = |n: usize| f.get(n).copied().unwrap_or("").to_owned();
            Ok(TxLine {
                charge_type: at(0),
                trans_stat: at(1),
                orig_amt: at(2),
                capture_amt: at(3),
                host_ref_num: at(7),
                auth_code: at(8),
                proc_ret_cd: at(9),
                trans_id: at(10),
            })
        })
        .collect()
}

/// Whether the status line alone cannot tell the refunded total.
pub fn needs_history(line: &TxLine) -> bool {
    line.charge_type == "C" || matches!(line.trans_stat.as_str(), "C" | "S")
}

fn inconclusive(code: &str) -> BankStatus {
    BankStatus::unavailable(code)
}

/// The order's state from its `ORDERSTATUS` line and (for sold or refunded orders) its
/// history.
pub fn combine(line: &TxLine, history: Option<&[TxLine]>) -> BankStatus {
    if line.unsettled() {
        return inconclusive("PROC_RET_CD");
    }
    let proc = line.proc_ret_cd.as_str();
    let status =
        |state: BankState, sale: &TxLine, amount: i64, refunded: i64, code: &str| BankStatus {
            found: true,
            state,
            amount,
            refunded_amount: refunded,
            code: code.to_owned(),
            auth_code: sale.auth_code.clone(),
            rrn: sale.host_ref_num.clone(),
        };
    if line.in_progress() {
        return inconclusive(&format!(
            "TRANS_STAT:{}/{}",
            line.trans_stat, line.proc_ret_cd
        ));
    }
    if needs_history(line) {
        let Some(history) = history else {
            return inconclusive("ORDERHISTORY");
        };
        // A refund (or the sale) still in progress, or without a result: its outcome is
        // not known.
        if history.iter().any(TxLine::in_progress) {
            return inconclusive("ORDERHISTORY:in-progress");
        }
        if history.iter().any(TxLine::unsettled) {
            return inconclusive("ORDERHISTORY:PROC_RET_CD");
        }
        // The sale: the status line itself, or (when it shows the refund) the history's.
        let sale = if line.charge_type == "S" {
            Some(line)
        } else {
            history
                .iter()
                .find(|t| t.charge_type == "S" && t.approved())
        };
        let Some(sale) = sale else {
            return inconclusive("ORDERHISTORY");
        };
        let Some(amount) = sale.amount() else {
            return inconclusive("ORIG_TRANS_AMT");
        };
        let mut refunded = 0i64;
        for t in history.iter().filter(|t| t.live_refund()) {
            let Some(a) = t.amount() else {
                return inconclusive("ORDERHISTORY");
            };
            refunded = refunded.saturating_add(a);
        }
        let state = match (line.charge_type.as_str(), refunded) {
            (_, r) if r >= amount && r > 0 => BankState::Refunded,
            (_, r) if r > 0 => BankState::PartiallyRefunded,
            // The status shows a refund the history does not: not a state to act on.
            ("C", _) => return inconclusive("ORDERHISTORY"),
            _ => BankState::Approved,
        };
        return status(state, sale, amount, refunded, "00");
    }
    let Some(amount) = line.amount() else {
        return inconclusive("ORIG_TRANS_AMT");
    };
    match line.trans_stat.as_str() {
        "A" => status(BankState::Preauth, line, amount, 0, proc),
        "V" | "CNCL" => status(BankState::Cancelled, line, amount, 0, proc),
        "D" | "ERR" => status(BankState::Declined, line, amount, 0, proc),
        // PN pending, R technical reversal needed, anything new: not conclusive.
        other => inconclusive(&format!("TRANS_STAT:{other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(body: &[u8]) -> Result<Reply, String> {
        <Reply as paygate_bankkit::BankReply>::decode(body)
    }

    fn status_doc(extra: &str) -> Reply {
        parse(format!("<CC5Response><ErrMsg>Record(s) found</ErrMsg><ProcReturnCode>00</ProcReturnCode><Response>Approved</Response><Extra>{extra}</Extra></CC5Response>").as_bytes()).unwrap()
    }

    /// A status line from the packed string (with `PROC_RET_CD` `00` as a flattened field,
    /// as the bank sends it, unless the string has its own).
    fn line(packed: &str) -> TxLine {
        let proc = if packed.contains("PROC_RET_CD") {
            ""
        } else {
            "<PROC_RET_CD>00</PROC_RET_CD>"
        };
        match read_status(&status_doc(&format!(
            "{proc}<ORDERSTATUS>{packed}</ORDERSTATUS>"
        ))) {
            StatusAnswer::Found(l) => l,
            other => panic!("{other:?}"),
        }
    }

    fn history(trx: &[&str]) -> Vec<TxLine> {
        let mut extra = format!("<TRXCOUNT>{}</TRXCOUNT>", trx.len());
        for (i, t) in trx.iter().enumerate() {
            extra.push_str(&format!("<TRX{}>{t}</TRX{}>", i + 1, i + 1));
        }
        read_history(&status_doc(&extra)).unwrap()
    }

    /// MEWS `statusTestDataProvider` `pay_order_status` (flattened fields).
    #[test]
    fn sale_same_day_is_approved() {
        let reply = status_doc("<AUTH_CODE>P77974</AUTH_CODE><CAPTURE_AMT>101</CAPTURE_AMT><CHARGE_TYPE_CD>S</CHARGE_TYPE_CD><HOST_REF_NUM>400300744233</HOST_REF_NUM><ORIG_TRANS_AMT>101</ORIG_TRANS_AMT><PROC_RET_CD>00</PROC_RET_CD><TRANS_ID>24003Vl7F13152</TRANS_ID><TRANS_STAT>C</TRANS_STAT>");
        let StatusAnswer::Found(l) = read_status(&reply) else {
            panic!()
        };
        let h = history(&["S\tC\t101\t101\t2024-01-03 21:37:57.259\t2024-01-03 21:37:57.259\t\t400300744233\tP77974\t00\t24003Vl7F13152"]);
        let st = combine(&l, Some(&h));
        assert_eq!(
            (st.state, st.amount, st.refunded_amount),
            (BankState::Approved, 101, 0)
        );
        assert_eq!(
            (st.auth_code.as_str(), st.rrn.as_str()),
            ("P77974", "400300744233")
        );
    }

    /// `pre_pay_order_status` (packed string only) and `canceled_order_status`.
    #[test]
    fn preauth_and_void() {
        let pre = line("ORD_ID:202401032AF3\tCHARGE_TYPE_CD:S\tORIG_TRANS_AMT:205\tCAPTURE_AMT:\tTRANS_STAT:A\tAUTH_DTTM:2024-01-03 21:42:35.902\tCAPTURE_DTTM:\tAUTH_CODE:T87380\tTRANS_ID:24003VqkA14152");
        assert!(!needs_history(&pre));
        let st = combine(&pre, None);
        assert_eq!(
            (st.state, st.amount, st.auth_code.as_str()),
            (BankState::Preauth, 205, "T87380")
        );
        let void = line("ORD_ID:20240103BBF9\tCHARGE_TYPE_CD:S\tORIG_TRANS_AMT:101\tCAPTURE_AMT:101\tTRANS_STAT:V\tAUTH_CODE:P42795");
        assert_eq!(combine(&void, None).state, BankState::Cancelled);
    }

    #[test]
    fn partial_refunds_come_from_the_history() {
        let sale = line("ORD_ID:X\tCHARGE_TYPE_CD:S\tORIG_TRANS_AMT:10000\tCAPTURE_AMT:10000\tTRANS_STAT:C\tAUTH_CODE:P1");
        assert_eq!(combine(&sale, None).state, BankState::Unknown);
        // Newest first, like MEWS `success_cancel_success_refund_fail`: a failed refund
        // (`C D … 99`) never counts.
        let h = history(&[
            "C\tD\t5000\t5000\t2024-01-02 21:53:02.486\t2024-01-02 21:53:02.486\t\t\t\t99\tT3",
            "C\tC\t2500\t2500\t2024-01-02 21:53:00.000\t2024-01-02 21:53:00.000\t\t400200744060\tP2\t00\tT2",
            "S\tC\t10000\t10000\t2024-01-01 21:52:59.261\t2024-01-01 21:52:59.261\t\t400200744059\tP1\t00\tT1",
        ]);
        let st = combine(&sale, Some(&h));
        assert_eq!(
            (st.state, st.amount, st.refunded_amount),
            (BankState::PartiallyRefunded, 10_000, 2_500)
        );
        assert!(st.is_conclusive());
    }

    /// "sale then refunded (query returns the refund tx)": CHARGE_TYPE_CD C.
    #[test]
    fn full_refund_shows_the_refund_line() {
        let refund =
            line("ORD_ID:X\tCHARGE_TYPE_CD:C\tORIG_TRANS_AMT:201\tCAPTURE_AMT:201\tTRANS_STAT:C");
        let h = history(&[
            "C\tC\t201\t201\t\t\t\t4002\tP2\t00\tT2",
            "S\tC\t201\t201\t\t\t\t4001\tP1\t00\tT1",
        ]);
        let st = combine(&refund, Some(&h));
        assert_eq!(
            (st.state, st.amount, st.refunded_amount, st.rrn.as_str()),
            (BankState::Refunded, 201, 201, "4001")
        );
    }

    /// MEWS `statusTestDataProvider` `fail1`.
    #[test]
    fn no_record_found() {
        let r = parse(b"<CC5Response><ErrMsg>No record found for 2022103088D22</ErrMsg><ProcReturnCode>99</ProcReturnCode><Response>Declined</Response><OrderId></OrderId><TransId></TransId><Extra><NUMCODE>0</NUMCODE><ORDERSTATUS>ORD_ID:\tCHARGE_TYPE_CD:\tORIG_TRANS_AMT:\tCAPTURE_AMT:\tTRANS_STAT:\tAUTH_DTTM:\tCAPTURE_DTTM:\tAUTH_CODE:</ORDERSTATUS></Extra></CC5Response>").unwrap();
        assert_eq!(
            read_status(&r),
            StatusAnswer::NotFound { code: "99".into() }
        );
        let auth = parse(b"<CC5Response><ErrMsg>x</ErrMsg><ProcReturnCode>99</ProcReturnCode><Response>Error</Response><Extra><ERRORCODE>CORE-2201</ERRORCODE></Extra></CC5Response>").unwrap();
        assert_eq!(
            read_status(&auth),
            StatusAnswer::Failed {
                code: "CORE-2201".into()
            }
        );
    }

    /// A refusal with a system-error code is "could not tell", never "no record".
    #[test]
    fn system_errors_are_unavailable_not_no_record() {
        for doc in [
            // `96` without an ERRORCODE and with an empty ORDERSTATUS.
            "<CC5Response><ErrMsg>System error</ErrMsg><ProcReturnCode>96</ProcReturnCode><Response>Error</Response><Extra><ORDERSTATUS>ORD_ID:\tCHARGE_TYPE_CD:</ORDERSTATUS></Extra></CC5Response>",
            "<CC5Response><ErrMsg></ErrMsg><ProcReturnCode>99</ProcReturnCode><Response>Error</Response></CC5Response>",
            "<CC5Response><ErrMsg>Timeout, reversal is trying</ErrMsg><ProcReturnCode>92</ProcReturnCode><Response>Declined</Response><Extra><ERRORCODE>ISO8583-92</ERRORCODE></Extra></CC5Response>",
            "<CC5Response><ErrMsg>No record found for X</ErrMsg><ProcReturnCode>99</ProcReturnCode><Response>Error</Response><Extra><ERRORCODE>CORE-1001</ERRORCODE></Extra></CC5Response>",
        ] {
            let r = parse(doc.as_bytes()).unwrap();
            assert!(
                matches!(read_status(&r), StatusAnswer::Failed { .. }),
                "{doc}"
            );
        }
    }

    /// "Reversal is trying" (`92`), pending and reversal-needed lines are not final.
    #[test]
    fn transactions_in_progress_are_not_conclusive() {
        let trying =
            line("ORD_ID:X\tCHARGE_TYPE_CD:S\tORIG_TRANS_AMT:101\tTRANS_STAT:D\tPROC_RET_CD:92");
        assert!(!combine(&trying, None).is_conclusive());
        let sale = line(
            "ORD_ID:X\tCHARGE_TYPE_CD:S\tORIG_TRANS_AMT:10000\tCAPTURE_AMT:10000\tTRANS_STAT:C",
        );
        for refund in [
            "C\tD\t2500\t2500\t\t\t\t\t\t92\tT2",
            // A refund refused with "system malfunction": the bank may have acted.
            "C\tD\t2500\t2500\t\t\t\t\t\t96\tT2",
            "C\tPN\t2500\t2500\t\t\t\t\t\t00\tT2",
            "C\tR\t2500\t2500\t\t\t\t\t\t00\tT2",
        ] {
            let h = history(&[refund, "S\tC\t10000\t10000\t\t\t\t4001\tP1\t00\tT1"]);
            assert!(!combine(&sale, Some(&h)).is_conclusive(), "{refund}");
        }
    }

    /// An empty `PROC_RET_CD` is neither approved nor refused: the status line, or any
    /// history line, without one makes the state unavailable.
    #[test]
    fn an_empty_proc_ret_cd_is_not_an_approval() {
        let silent =
            line("ORD_ID:X\tCHARGE_TYPE_CD:S\tORIG_TRANS_AMT:101\tTRANS_STAT:A\tPROC_RET_CD:");
        assert!(!combine(&silent, None).is_conclusive());
        let sale = line(
            "ORD_ID:X\tCHARGE_TYPE_CD:S\tORIG_TRANS_AMT:10000\tCAPTURE_AMT:10000\tTRANS_STAT:C",
        );
        let h = history(&[
            "C\tC\t2500\t2500\t\t\t\t4002\tP2\t\tT2",
            "S\tC\t10000\t10000\t\t\t\t4001\tP1\t00\tT1",
        ]);
        let st = combine(&sale, Some(&h));
        assert!(!st.is_conclusive(), "{st:?}");
    }

    #[test]
    fn pending_and_odd_states_are_not_conclusive() {
        let pn = line("ORD_ID:X\tCHARGE_TYPE_CD:S\tORIG_TRANS_AMT:101\tTRANS_STAT:PN");
        assert!(!combine(&pn, None).is_conclusive());
        let declined =
            line("ORD_ID:X\tCHARGE_TYPE_CD:S\tORIG_TRANS_AMT:101\tTRANS_STAT:D\tPROC_RET_CD:05");
        let st = combine(&declined, None);
        assert_eq!((st.state, st.code.as_str()), (BankState::Declined, "05"));
        assert!(read_history(&status_doc(
            "<TRXCOUNT>2</TRXCOUNT><TRX1>S\tC\t1\t1\t\t\t\t\t\t00\tT</TRX1>"
        ))
        .is_err());
    }
}
