//! The order's state at the bank, from `OrderInquiry` and (for sold orders) `TxnHistory`.
//!
//! `OrderInquiry` shows the order's main transaction (MEWS `statusTestDataProvider`): `TxnType`
//! `Auth` (sale), `PreAuth` (open pre-authorization) or `PostAuth` (captured
//! pre-authorization), with `TxnStatus` (`Y` done, `V` voided), `IsVoided`, `IsRefunded`,
//! `RefundedAmount` and `PurchAmount` in decimal TL. Not found is `ProcReturnCode V013`
//! (`TxnType OrderInquiry`). Partial refunds are not itemised there, so for a sold order the
//! history is read as well and every approved, unvoided `Refund` line is added up; where the
//! two answers disagree the state is not conclusive.

use paygate_bankkit::StatusRead;
use paygate_domain::{BankState, BankStatus};

use crate::response::{Fields, Reply};

/// The code of "no such transaction" (`Seçili İşlem Bulunamadı!`).
pub const NOT_FOUND: &str = "V013";

/// What an `OrderInquiry` answer says: no such transaction, a failed query (credentials,
/// system error, an answer of another shape), or the order's main transaction.
pub type Inquiry = StatusRead<Fields>;

const MAIN: [&str; 3] = ["Auth", "PreAuth", "PostAuth"];

/// Reads an `OrderInquiry` answer.
pub fn read_inquiry(reply: &Reply) -> Inquiry {
    if reply.root != "PayforResponse" {
        return Inquiry::Failed {
            code: "OrderInquiry".to_owned(),
        };
    }
    let f = &reply.fields;
    let code = f.bank_code();
    if MAIN.contains(&f.get("TxnType")) {
        return Inquiry::Found(f.clone());
    }
    // Only the explicit "no such transaction" answer means the bank has no record.
    if f.code() == NOT_FOUND {
        Inquiry::NotFound { code }
    } else {
        Inquiry::Failed { code }
    }
}

/// Reads a `TxnHistory` answer: every transaction, or the code of a failed report (a single
/// `TxnType TxnHistory` entry carrying the error, e.g. `V013` for an unknown order).
pub fn read_history(reply: &Reply) -> Result<Vec<Fields>, String> {
    if reply.root != "TxnHistoryReport" {
        return Err(reply.fields.bank_code());
    }
    if let [only] = reply.history.as_slice() {
        if only.get("TxnType") == "TxnHistory" {
            return Err(only.bank_code());
        }
    }
    Ok(reply.history.clone())
}

fn flag(f: &Fields, key: &str) -> bool {
    f.get(key).eq_ignore_ascii_case("true")
}

/// Whether the main transaction was voided.
pub fn voided(f: &Fields) -> bool {
    flag(f, "IsVoided") || f.get("TxnStatus") == "V"
}

/// A transaction whose outcome is still open (neither done, voided nor failed).
fn in_progress(f: &Fields) -> bool {
    !matches!(f.get("TxnStatus"), "Y" | "V" | "N")
}

/// Whether the main transaction is a sale whose refunds must be read from the history.
pub fn needs_history(line: &Fields) -> bool {
    line.code() == "00"
        && matches!(line.get("TxnType"), "Auth" | "PostAuth")
        && line.get("TxnStatus") == "Y"
        && !voided(line)
}

/// Whether the main transaction is a live sale with nothing refunded (by the inquiry's own
/// figures): a void of it refused is the end-of-day cut's doing.
pub fn live_unrefunded_sale(line: &Fields) -> bool {
    needs_history(line)
        && line.amount("RefundedAmount").unwrap_or(0) == 0
        && !flag(line, "IsRefunded")
}

/// Whether the order is a captured pre-authorization that still stands (PayFor's `Void`
/// then reverses only the capture; see the crate README).
pub fn captured_preauth(line: &Fields) -> bool {
    needs_history(line) && line.get("TxnType") == "PostAuth"
}

/// The order's state from its main transaction and (for sales) its history.
pub fn combine(line: &Fields, history: Option<&[Fields]>) -> BankStatus {
    let status = |state: BankState, amount: i64, refunded: i64, code: &str| BankStatus {
        found: true,
        state,
        amount,
        refunded_amount: refunded,
        code: code.to_owned(),
        auth_code: line.get("AuthCode").to_owned(),
        rrn: line.get("HostRefNum").to_owned(),
    };
    let code = line.bank_code();
    if line.code() != "00" {
        // A main transaction the bank refused.
        return if line.get("TxnResult") == "Failed" || line.get("TxnStatus") == "N" {
            status(
                BankState::Declined,
                line.amount("PurchAmount").unwrap_or(0),
                0,
                &code,
            )
        } else {
            BankStatus::unavailable(&code)
        };
    }
    if in_progress(line) {
        return BankStatus::unavailable(&format!("TxnStatus:{}", line.get("TxnStatus")));
    }
    let Some(amount) = line.amount("PurchAmount") else {
        return BankStatus::unavailable("PurchAmount");
    };
    if voided(line) {
        return status(BankState::Cancelled, amount, 0, "00");
    }
    match line.get("TxnType") {
        "PreAuth" => return status(BankState::Preauth, amount, 0, "00"),
        "Auth" | "PostAuth" => {}
        other => return BankStatus::unavailable(&format!("TxnType:{other}")),
    }
    let Some(history) = history else {
        return BankStatus::unavailable("TxnHistory");
    };
    if history.iter().any(in_progress) {
        return BankStatus::unavailable("TxnHistory:in-progress");
    }
    let mut refunded = 0i64;
    for t in history
        .iter()
        .filter(|t| t.get("TxnType") == "Refund" && t.code() == "00" && t.get("TxnStatus") == "Y")
    {
        let Some(a) = t.amount("PurchAmount") else {
            return BankStatus::unavailable("TxnHistory");
        };
        refunded = refunded.saturating_add(a);
    }
    // The inquiry's own refund figures must agree with the history.
    let said = line.amount("RefundedAmount").unwrap_or(0);
    let full = flag(line, "IsRefunded");
    if (said > 0 && said != refunded) || (full && refunded < amount) || refunded > amount {
        return BankStatus::unavailable("RefundedAmount");
    }
    let state = match refunded {
        0 => BankState::Approved,
        r if r >= amount => BankState::Refunded,
        _ => BankState::PartiallyRefunded,
    };
    status(state, amount, refunded, "00")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(body: &[u8]) -> Result<Reply, String> {
        <Reply as paygate_bankkit::BankReply>::decode(body)
    }

    fn inquiry(fields: &[(&str, &str)]) -> Fields {
        let body: String = fields
            .iter()
            .map(|(k, v)| format!("<{k}>{v}</{k}>"))
            .collect();
        let r = parse(format!("<PayforResponse>{body}</PayforResponse>").as_bytes()).unwrap();
        match read_inquiry(&r) {
            Inquiry::Found(f) => f,
            other => panic!("{other:?}"),
        }
    }

    fn line(txn: &str, status: &str, amount: &str, extra: &[(&str, &str)]) -> Fields {
        let mut f = vec![
            ("TxnType", txn),
            ("TxnStatus", status),
            ("PurchAmount", amount),
            ("ProcReturnCode", "00"),
            ("AuthCode", "S90370"),
            ("IsVoided", "false"),
            ("IsRefunded", "false"),
            ("RefundedAmount", "0"),
        ];
        f.retain(|(k, _)| !extra.iter().any(|(e, _)| e == k));
        f.extend_from_slice(extra);
        inquiry(&f)
    }

    /// MEWS `statusTestDataProvider` `success1`: a sale.
    #[test]
    fn sale_is_approved_with_its_history() {
        let sale = line("Auth", "Y", "1.01", &[]);
        assert!(needs_history(&sale) && !captured_preauth(&sale));
        assert!(!combine(&sale, None).is_conclusive());
        let st = combine(&sale, Some(std::slice::from_ref(&sale)));
        assert_eq!(
            (st.state, st.amount, st.auth_code.as_str()),
            (BankState::Approved, 101, "S90370")
        );
    }

    /// `success_pre_pay`, `success_pre_pay_and_post_pay`, `success_pay_then_cancel`.
    #[test]
    fn preauth_capture_and_void() {
        let pre = line("PreAuth", "Y", "2.01", &[]);
        assert_eq!(combine(&pre, None).state, BankState::Preauth);
        let post = line("PostAuth", "Y", "2.03", &[]);
        assert!(captured_preauth(&post));
        assert_eq!(combine(&post, Some(&[])).amount, 203);
        let void = line(
            "Auth",
            "V",
            "1.01",
            &[("IsVoided", "true"), ("VoidDate", "20240119")],
        );
        assert_eq!(combine(&void, None).state, BankState::Cancelled);
    }

    #[test]
    fn partial_refunds_come_from_the_history() {
        let sale = line("Auth", "Y", "100.00", &[("RefundedAmount", "25.00")]);
        let refund = |amount: &str, code: &str, status: &str| {
            Fields(vec![
                ("TxnType".into(), "Refund".into()),
                ("PurchAmount".into(), amount.into()),
                ("ProcReturnCode".into(), code.into()),
                ("TxnStatus".into(), status.into()),
            ])
        };
        // MEWS `success_pay_refund_fail`: a refused refund (`V014`, `TxnStatus N`) never counts.
        let h = [
            sale.clone(),
            refund("25.00", "00", "Y"),
            refund("50.00", "V014", "N"),
        ];
        let st = combine(&sale, Some(&h));
        assert_eq!(
            (st.state, st.refunded_amount),
            (BankState::PartiallyRefunded, 2_500)
        );
        // The inquiry says 25.00, the history 75.00: contradictory, not a state to act on.
        let h2 = [
            sale.clone(),
            refund("25.00", "00", "Y"),
            refund("50.00", "00", "Y"),
        ];
        assert!(!combine(&sale, Some(&h2)).is_conclusive());
        // A refund still in progress.
        let h3 = [sale.clone(), refund("25.00", "00", "P")];
        assert!(!combine(&sale, Some(&h3)).is_conclusive());
        // Fully refunded.
        let full = line(
            "Auth",
            "Y",
            "100.00",
            &[("IsRefunded", "true"), ("RefundedAmount", "100.00")],
        );
        let st = combine(&full, Some(&[refund("100.00", "00", "Y")]));
        assert_eq!(
            (st.state, st.refunded_amount),
            (BankState::Refunded, 10_000)
        );
        // "Fully refunded" with a history that shows less.
        let odd = line("Auth", "Y", "100.00", &[("IsRefunded", "true")]);
        assert!(!combine(&odd, Some(&[refund("10.00", "00", "Y")])).is_conclusive());
    }

    /// `fail_order_not_found` (OrderInquiry answered `V013`).
    #[test]
    fn not_found_and_failures() {
        let r = parse("<PayforResponse><TxnType>OrderInquiry</TxnType><ProcReturnCode>V013</ProcReturnCode><ErrMsg>Seçili İşlem Bulunamadı!</ErrMsg><TxnStatus>P</TxnStatus></PayforResponse>".as_bytes()).unwrap();
        assert_eq!(
            read_inquiry(&r),
            Inquiry::NotFound {
                code: "V013".into()
            }
        );
        let r = parse(b"<PayforResponse><TxnType>OrderInquiry</TxnType><ProcReturnCode>V036</ProcReturnCode></PayforResponse>").unwrap();
        assert_eq!(
            read_inquiry(&r),
            Inquiry::Failed {
                code: "V036".into()
            }
        );
        let declined = inquiry(&[
            ("TxnType", "Auth"),
            ("ProcReturnCode", "05"),
            ("TxnResult", "Failed"),
            ("TxnStatus", "N"),
            ("PurchAmount", "1.00"),
        ]);
        let st = combine(&declined, None);
        assert_eq!((st.state, st.code.as_str()), (BankState::Declined, "05"));
        let pending = line("Auth", "P", "1.00", &[]);
        assert!(!combine(&pending, None).is_conclusive());
    }

    #[test]
    fn history_reports() {
        let ok = parse(b"<TxnHistoryReport><PaymentRequestExtended><PaymentRequest xmlns=\"http://ocean.smartway.com/\"><TxnType>Auth</TxnType><ProcReturnCode>00</ProcReturnCode></PaymentRequest></PaymentRequestExtended><PaymentRequestExtended><PaymentRequest><TxnType>Refund</TxnType></PaymentRequest></PaymentRequestExtended></TxnHistoryReport>").unwrap();
        assert_eq!(read_history(&ok).unwrap().len(), 2);
        let nf = parse("<TxnHistoryReport><PaymentRequestExtended><PaymentRequest><TxnType>TxnHistory</TxnType><ProcReturnCode>V013</ProcReturnCode><ErrMsg>Seçili İşlem Bulunamadı!</ErrMsg></PaymentRequest></PaymentRequestExtended></TxnHistoryReport>".as_bytes()).unwrap();
        assert_eq!(read_history(&nf), Err("V013".into()));
    }
}
