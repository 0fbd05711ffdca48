//! The order's state at the bank, from `OrderInquiry` and (for sold orders) `TxnHistory`.
//!
//! `OrderInquiry` shows the order's main transaction (MEWS `statusTestDataProvider`): `TxnType`
//! `Auth` (sale), `PreAuth` (open pre-authorization) or `PostAuth` (captured
//! pre-authorization), with `TxnStatus` (`Y` done, `V` voided), `IsVoided`, `IsRefunded`,
//! `RefundedAmount` and `PurchAmount` in decimal TL. Not found is `ProcReturnCode V013`
//! (`TxnType OrderInquiry`). Partial refunds are not itemised there, so for a sold order the
//! history is read as well and every approved, unvoided `Refund` line is added up; where the
//! two answers disagree the state is not conclusive.
//!
//! A voided main transaction means `cancelled` only for the line that holds the order: the
//! sale (`Auth`) or the pre-authorization (`PreAuth`). A voided `PostAuth` is a reversed
//! capture (PayFor's void reverses the latest transaction; MEWS history fixture
//! `success_pre_pay_post_pay_then_cancel`): the history's `PreAuth` says whether the hold was
//! released too (`cancelled`), is still open (`preauth`), or cannot be told (unavailable).

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

/// A transaction whose outcome is still open (neither done, voided nor failed), or was
/// answered with a code after which the bank may have acted (`V036`, `96` …: see
/// [`crate::response::classify`]).
fn in_progress(f: &Fields) -> bool {
    !matches!(f.get("TxnStatus"), "Y" | "V" | "N")
        || (!f.code().is_empty()
            && crate::response::classify(f.code()) == paygate_bankkit::Verdict::Unknown)
}

/// Whether the main transaction is a live sale (a sale or a captured pre-authorization).
fn live_sale(line: &Fields) -> bool {
    line.code() == "00"
        && matches!(line.get("TxnType"), "Auth" | "PostAuth")
        && line.get("TxnStatus") == "Y"
        && !voided(line)
}

/// Whether the main transaction is a reversed capture (a voided `PostAuth`): only the
/// history's `PreAuth` says whether the hold is released.
fn reversed_capture(line: &Fields) -> bool {
    line.code() == "00" && line.get("TxnType") == "PostAuth" && voided(line)
}

/// Whether the state needs the history: a sale's refunds, a reversed capture's
/// pre-authorization.
pub fn needs_history(line: &Fields) -> bool {
    live_sale(line) || reversed_capture(line)
}

/// Whether the main transaction is a live sale with nothing refunded (by the inquiry's own
/// figures): a void of it refused is the end-of-day cut's doing.
pub fn live_unrefunded_sale(line: &Fields) -> bool {
    live_sale(line) && line.amount("RefundedAmount").unwrap_or(0) == 0 && !flag(line, "IsRefunded")
}

/// Whether the order is a captured pre-authorization that still stands (PayFor's `Void`
/// then reverses only the capture; see the crate README).
pub fn captured_preauth(line: &Fields) -> bool {
    live_sale(line) && line.get("TxnType") == "PostAuth"
}

/// A reversed capture's state from the history: its `PreAuth` voided → `cancelled`, still
/// done (`Y`) → `preauth` (held amount); anything else unavailable.
fn after_reversed_capture(
    history: &[Fields],
    status: impl Fn(BankState, i64) -> BankStatus,
) -> BankStatus {
    let mut pre = history
        .iter()
        .filter(|t| t.get("TxnType") == "PreAuth" && t.code() == "00");
    let (Some(pre), None) = (pre.next(), pre.next()) else {
        return BankStatus::unavailable("TxnHistory:PreAuth");
    };
    let Some(held) = pre.amount("PurchAmount") else {
        return BankStatus::unavailable("TxnHistory:PreAuth");
    };
    if voided(pre) {
        status(BankState::Cancelled, held)
    } else if pre.get("TxnStatus") == "Y" {
        status(BankState::Preauth, held)
    } else {
        BankStatus::unavailable("TxnHistory:PreAuth")
    }
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
        // A main transaction the bank refused (unless its code says it may have acted).
        let refused = line.get("TxnResult") == "Failed" || line.get("TxnStatus") == "N";
        return if refused && !in_progress(line) {
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
    match (line.get("TxnType"), voided(line)) {
        // The sale or the pre-authorization itself voided: nothing of the order stands.
        ("Auth" | "PreAuth", true) => return status(BankState::Cancelled, amount, 0, "00"),
        ("PostAuth", true) => {}
        ("PreAuth", false) => return status(BankState::Preauth, amount, 0, "00"),
        ("Auth" | "PostAuth", false) => {}
        (other, _) => return BankStatus::unavailable(&format!("TxnType:{other}")),
    }
    let Some(history) = history else {
        return BankStatus::unavailable("TxnHistory");
    };
    if history.iter().any(in_progress) {
        return BankStatus::unavailable("TxnHistory:in-progress");
    }
    if voided(line) {
        return after_reversed_capture(history, |state, held| status(state, held, 0, "00"));
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

    /// A voided `PostAuth` is a reversed capture, not a cancelled order: the history's
    /// `PreAuth` says whether the hold is released (MEWS `success_pre_pay_post_pay_then_cancel`).
    #[test]
    fn a_voided_capture_is_cancelled_only_with_its_preauthorization() {
        let reversed = line("PostAuth", "V", "2.03", &[("IsVoided", "true")]);
        assert!(needs_history(&reversed) && !captured_preauth(&reversed));
        assert!(!live_unrefunded_sale(&reversed));
        assert!(!combine(&reversed, None).is_conclusive());
        let pre = |status: &str| line("PreAuth", status, "2.01", &[]);
        let void = || {
            Fields(vec![
                ("TxnType".into(), "Void".into()),
                ("TxnStatus".into(), "Y".into()),
                ("ProcReturnCode".into(), "00".into()),
                ("PurchAmount".into(), "2.03".into()),
            ])
        };
        let st = |h: &[Fields]| {
            let st = combine(&reversed, Some(h));
            (st.is_conclusive(), st.state, st.amount)
        };
        // The fixture: the capture reversed, the pre-authorization still open.
        assert_eq!(
            st(&[pre("Y"), reversed.clone(), void()]),
            (true, BankState::Preauth, 201)
        );
        assert_eq!(
            st(&[pre("V"), reversed.clone(), void(), void()]),
            (true, BankState::Cancelled, 201)
        );
        // No pre-authorization in the history, or two: not a state to act on.
        assert!(!st(&[reversed.clone(), void()]).0);
        assert!(!st(&[pre("Y"), pre("Y"), reversed.clone()]).0);
        // A voided sale or pre-authorization is cancelled without the history.
        for txn in ["Auth", "PreAuth"] {
            let v = line(txn, "V", "1.01", &[("IsVoided", "true")]);
            assert_eq!(combine(&v, None).state, BankState::Cancelled, "{txn}");
        }
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
        // A refund still in progress, or refused with "Sistem hatası" (may have acted).
        let h3 = [sale.clone(), refund("25.00", "00", "P")];
        assert!(!combine(&sale, Some(&h3)).is_conclusive());
        let h4 = [sale.clone(), refund("25.00", "V036", "N")];
        assert!(!combine(&sale, Some(&h4)).is_conclusive());
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
        let mut unsure = declined.clone();
        unsure.0.retain(|(k, _)| k != "ProcReturnCode");
        unsure.0.push(("ProcReturnCode".into(), "V036".into()));
        assert!(!combine(&unsure, None).is_conclusive());
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
