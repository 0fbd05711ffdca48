//! Status answers: `orderinq` (`Order/OrderInqResult`) and `orderhistoryinq`
//! (`Order/OrderHistInqResult/OrderTxnList/OrderTxn*`), combined into a [`BankStatus`].
//! All amounts are kuruş.

use paygate_bankkit::{amount::parse_minor, xml::Element};
use paygate_domain::{BankState, BankStatus};

use crate::response::GvpsResponse;

/// GVPS reason code of `orderinq` for an unknown order.
pub const ORDER_NOT_FOUND_INQ: &str = "0110";
/// GVPS reason code of `orderhistoryinq` for an unknown order.
pub const ORDER_NOT_FOUND_HIST: &str = "0108";

/// `Order/OrderInqResult`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OrderInq {
    pub status: String,
    pub preauth_amount: i64,
    pub auth_amount: i64,
    pub rrn: String,
    pub auth_code: String,
}

/// One `OrderTxn` of the order history.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OrderTxn {
    /// `sales`, `preauth`, `postauth`, `refund`, `void`.
    pub kind: String,
    /// `00` ok, anything else failed.
    pub status: String,
    pub preauth_amount: i64,
    pub auth_amount: i64,
    pub void_date: String,
    pub rrn: String,
    pub auth_code: String,
    pub return_code: String,
    /// `Y` once the end-of-day cut has settled it.
    pub settlement: String,
}

impl OrderTxn {
    pub fn approved(&self) -> bool {
        self.status == "00"
    }

    /// Approved and not voided since.
    pub fn live(&self) -> bool {
        self.approved() && self.void_date.is_empty()
    }

    /// A transaction that moves or holds the order's money (not a refund or a void).
    pub fn is_sale_like(&self) -> bool {
        matches!(self.kind.as_str(), "sales" | "preauth" | "postauth")
    }

    pub fn settled(&self) -> bool {
        self.settlement.eq_ignore_ascii_case("Y")
    }

    /// The amount the transaction concerns.
    pub fn amount(&self) -> i64 {
        if self.kind == "preauth" {
            self.preauth_amount
        } else {
            self.auth_amount
        }
    }
}

fn text(e: &Element, name: &str) -> String {
    e.text_at(&[name]).unwrap_or_default().trim().to_owned()
}

/// An amount field: absent/empty is `Ok(None)`, unreadable is `Err(field)` — never a guess.
fn kurus(e: &Element, name: &str) -> Result<Option<i64>, String> {
    let raw = text(e, name);
    if raw.is_empty() {
        return Ok(None);
    }
    parse_minor(&raw)
        .map(Some)
        .ok_or_else(|| format!("unreadable {name}"))
}

/// The amount an answer must carry: present and readable.
fn required(v: Option<i64>, name: &str) -> Result<i64, String> {
    v.ok_or_else(|| format!("missing {name}"))
}

/// Whether the answer says the order does not exist.
pub fn is_not_found(resp: &GvpsResponse) -> bool {
    resp.code == "92"
        && (resp.reason_code == ORDER_NOT_FOUND_INQ || resp.reason_code == ORDER_NOT_FOUND_HIST)
}

/// Reads an approved `orderinq` answer. `Err` names what is missing or unreadable: the
/// result block, or the amount of the state it reports (an amount is never guessed).
pub fn parse_order_inq(resp: &GvpsResponse) -> Result<OrderInq, String> {
    let r = resp
        .root
        .at(&["Order", "OrderInqResult"])
        .ok_or_else(|| "no OrderInqResult".to_owned())?;
    let status = text(r, "Status").to_ascii_uppercase();
    let preauth = kurus(r, "PreAuthAmount")?;
    let auth = kurus(r, "AuthAmount")?;
    let (preauth_amount, auth_amount) = match from_inq_status(&status) {
        Some(BankState::Preauth) => (required(preauth, "PreAuthAmount")?, auth.unwrap_or(0)),
        Some(_) => (
            preauth.unwrap_or(0),
            auth.or(preauth)
                .ok_or_else(|| "missing AuthAmount".to_owned())?,
        ),
        None => (preauth.unwrap_or(0), auth.unwrap_or(0)),
    };
    Ok(OrderInq {
        status,
        preauth_amount,
        auth_amount,
        rrn: text(r, "RetrefNum"),
        auth_code: text(r, "AuthCode"),
    })
}

/// Reads an approved `orderhistoryinq` answer. Every transaction must name its type and
/// status and carry a readable amount for its type; otherwise `Err` (the whole answer is
/// unusable: a refund with an unreadable amount must not count as 0).
pub fn parse_history(resp: &GvpsResponse) -> Result<Vec<OrderTxn>, String> {
    let Some(list) = resp
        .root
        .at(&["Order", "OrderHistInqResult", "OrderTxnList"])
    else {
        return Ok(Vec::new());
    };
    list.children_named("OrderTxn")
        .map(|t| {
            let kind = text(t, "Type").to_ascii_lowercase();
            let status = text(t, "Status");
            if kind.is_empty() || status.is_empty() {
                return Err("OrderTxn without Type or Status".to_owned());
            }
            let preauth = kurus(t, "PreAuthAmount")?;
            let auth = kurus(t, "AuthAmount")?;
            let (preauth_amount, auth_amount) = match kind.as_str() {
                "preauth" => (required(preauth, "PreAuthAmount")?, auth.unwrap_or(0)),
                // A void's amount is the fixed 1.00 TL the request carries: not read.
                "void" => (preauth.unwrap_or(0), auth.unwrap_or(0)),
                _ => (preauth.unwrap_or(0), required(auth, "AuthAmount")?),
            };
            Ok(OrderTxn {
                kind,
                status,
                preauth_amount,
                auth_amount,
                void_date: text(t, "VoidDate"),
                rrn: text(t, "RetrefNum"),
                auth_code: text(t, "AuthCode"),
                return_code: text(t, "ReturnCode"),
                settlement: text(t, "Settlement"),
            })
        })
        .collect()
}

/// The transaction a void should target: the latest live sale, pre-authorization or
/// post-authorization (never a refund).
pub fn void_target(history: &[OrderTxn]) -> Option<&OrderTxn> {
    history.iter().rev().find(|t| t.live() && t.is_sale_like())
}

/// What a cancel still has to do, read from the order history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CancelSteps<'a> {
    /// Every approved sale / pre-auth / post-auth is voided: nothing left to send.
    AlreadyCancelled,
    /// Sales / pre-authorizations in the history, none approved (declined): the bank's own
    /// refusal is asked for with a void without reference.
    NothingLive,
    /// No sale, pre-authorization or post-authorization in the history (empty included): the
    /// order exists, so the history is incomplete and no void can be planned from it.
    Incomplete,
    /// The voids to send, in order. GVPS voids only the latest transaction, so a captured
    /// pre-authorization needs the `postauth` voided first (the order is a pre-authorization
    /// again), then the `preauth` (the hold is released). A half-done cancel has only the
    /// second step left.
    Voids(Vec<&'a OrderTxn>),
}

pub fn cancel_steps(history: &[OrderTxn]) -> CancelSteps<'_> {
    let Some(top) = void_target(history) else {
        return if history.iter().any(|t| t.is_sale_like() && t.approved()) {
            CancelSteps::AlreadyCancelled
        } else if history.iter().any(OrderTxn::is_sale_like) {
            CancelSteps::NothingLive
        } else {
            CancelSteps::Incomplete
        };
    };
    let mut steps = vec![top];
    if top.kind == "postauth" {
        if let Some(pre) = history
            .iter()
            .rev()
            .find(|t| t.kind == "preauth" && t.live())
        {
            steps.push(pre);
        }
    }
    CancelSteps::Voids(steps)
}

/// The total of approved refunds not voided since.
pub fn refunded_total(history: &[OrderTxn]) -> i64 {
    history
        .iter()
        .filter(|t| t.kind == "refund" && t.live())
        .map(|t| t.auth_amount)
        .sum()
}

/// State and amount from the history alone (`None` when it shows no sale, pre-authorization
/// or post-authorization: nothing a found order can be read from).
fn from_history(history: &[OrderTxn]) -> Option<(BankState, i64)> {
    let live = |kind: &str| history.iter().rev().find(|t| t.kind == kind && t.live());
    if let Some(t) = live("postauth").or_else(|| live("sales")) {
        return Some((BankState::Approved, t.auth_amount));
    }
    if let Some(t) = live("preauth") {
        return Some((BankState::Preauth, t.preauth_amount));
    }
    if let Some(t) = history
        .iter()
        .rev()
        .find(|t| t.is_sale_like() && t.approved())
    {
        return Some((BankState::Cancelled, t.amount()));
    }
    history
        .iter()
        .rev()
        .find(|t| t.is_sale_like())
        .map(|t| (BankState::Declined, t.amount()))
}

/// State from `OrderInqResult/Status` (observed: `APPROVED`, `WAITINGPOSTAUTH`; listed by
/// ANP without fixtures: `VOID`, `CANCELLED`, `REFUNDED`, `DECLINED`, `ERROR`).
fn from_inq_status(status: &str) -> Option<BankState> {
    Some(match status {
        "APPROVED" | "COMPLETED" => BankState::Approved,
        "WAITINGPOSTAUTH" | "PREAUTH" => BankState::Preauth,
        "VOID" | "VOIDED" | "CANCELLED" | "CANCELED" => BankState::Cancelled,
        "REFUNDED" => BankState::Refunded,
        "PARTIALLYREFUNDED" | "PARTIAL_REFUNDED" | "PARTIALREFUNDED" => {
            BankState::PartiallyRefunded
        }
        "DECLINED" | "ERROR" | "FAILED" => BankState::Declined,
        _ => return None,
    })
}

/// Combines the two answers of an order `orderinq` found. The history decides the state (it
/// shows voids and every refund); refunds turn an approved order into `partially_refunded` or
/// `refunded`. Answers that contradict each other or leave the history incomplete are
/// *unavailable*, never "nothing happened" (a refund read as absent can be sent again):
///
/// - a history without any sale, pre-authorization or post-authorization (empty included):
///   the order exists, so its history is incomplete;
/// - `OrderInqResult/Status` saying (partially) refunded while the history lists no live
///   refund;
/// - live refunds above the order's amount.
pub fn combine(inq: &OrderInq, history: &[OrderTxn]) -> BankStatus {
    read_order(inq, history).unwrap_or_else(BankStatus::unavailable)
}

fn read_order(inq: &OrderInq, history: &[OrderTxn]) -> Result<BankStatus, &'static str> {
    let (mut state, mut amount) = from_history(history).ok_or("history:incomplete")?;
    if amount == 0 {
        amount = if inq.auth_amount > 0 {
            inq.auth_amount
        } else {
            inq.preauth_amount
        };
    }
    let refunded = refunded_total(history);
    let said_refunded = matches!(
        from_inq_status(&inq.status),
        Some(BankState::Refunded | BankState::PartiallyRefunded)
    );
    if said_refunded && refunded == 0 {
        return Err("history:refunds-missing");
    }
    if refunded > amount {
        return Err("history:refunds-above-amount");
    }
    if state == BankState::Approved {
        state = if refunded == 0 {
            BankState::Approved
        } else if refunded == amount {
            BankState::Refunded
        } else {
            BankState::PartiallyRefunded
        };
    }
    let main = void_target(history).or_else(|| history.iter().find(|t| t.is_sale_like()));
    let pick = |a: &str, b: Option<&str>| {
        if a.is_empty() {
            b.unwrap_or_default().to_owned()
        } else {
            a.to_owned()
        }
    };
    Ok(BankStatus {
        found: true,
        state,
        amount,
        refunded_amount: refunded,
        code: "00".to_owned(),
        auth_code: pick(&inq.auth_code, main.map(|t| t.auth_code.as_str())),
        rrn: pick(&inq.rrn, main.map(|t| t.rrn.as_str())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::response::parse_response;

    /// MEWS `statusTestDataProvider.success_pay` (trimmed to the fields read).
    const INQ_SALE: &str = "<GVPSResponse><Order><OrderID>20221101EB13</OrderID><OrderInqResult><ChargeType>S</ChargeType>\
        <PreAuthAmount>0</PreAuthAmount><AuthAmount>101</AuthAmount><Status>APPROVED</Status><RetrefNum>300708704369</RetrefNum>\
        <AuthCode>304919</AuthCode></OrderInqResult></Order><Transaction><Response><Source>HOST</Source><Code>00</Code>\
        <ReasonCode>00</ReasonCode><Message>Approved</Message></Response></Transaction></GVPSResponse>";
    /// MEWS `success_pre_pay`.
    const INQ_PREAUTH: &str = "<GVPSResponse><Order><OrderInqResult><PreAuthAmount>101</PreAuthAmount><AuthAmount>0</AuthAmount>\
        <Status>WAITINGPOSTAUTH</Status><RetrefNum>400609699313</RetrefNum><AuthCode>257762</AuthCode></OrderInqResult></Order>\
        <Transaction><Response><Source>GVPS</Source><Code>00</Code><ReasonCode></ReasonCode><Message>Approved</Message></Response>\
        </Transaction></GVPSResponse>";
    /// MEWS `fail1` (not found) and history `fail_order_not_found`.
    const INQ_NOT_FOUND: &str = "<GVPSResponse><Order><OrderInqResult><Status></Status></OrderInqResult></Order><Transaction>\
        <Response><Source>GVPS</Source><Code>92</Code><ReasonCode>0110</ReasonCode><Message>Declined</Message>\
        <ErrorMsg>İşlem bulunamadı</ErrorMsg></Response></Transaction></GVPSResponse>";
    const HIST_NOT_FOUND: &str = "<GVPSResponse><Order><OrderHistInqResult><OrderTxnList></OrderTxnList></OrderHistInqResult>\
        </Order><Transaction><Response><Source>GVPS</Source><Code>92</Code><ReasonCode>0108</ReasonCode></Response></Transaction>\
        </GVPSResponse>";
    /// MEWS history `success_multi_tx`: a sale and a failed refund.
    const HIST_SALE_FAILED_REFUND: &str = "<GVPSResponse><Order><OrderHistInqResult><OrderTxnList>\
        <OrderTxn><Type>sales</Type><Status>00</Status><PreAuthAmount>0</PreAuthAmount><AuthAmount>101</AuthAmount>\
        <AuthDate>20221101</AuthDate><VoidDate></VoidDate><RetrefNum>230508300896</RetrefNum><AuthCode>304919</AuthCode>\
        <ReturnCode>00</ReturnCode><CurrencyCode>949</CurrencyCode><Settlement>N</Settlement></OrderTxn>\
        <OrderTxn><Type>refund</Type><Status>01</Status><PreAuthAmount>0</PreAuthAmount><AuthAmount>101</AuthAmount>\
        <VoidDate></VoidDate><RetrefNum>230508300913</RetrefNum><AuthCode></AuthCode><ReturnCode>92</ReturnCode>\
        <Settlement>N</Settlement></OrderTxn></OrderTxnList></OrderHistInqResult></Order><Transaction><Response>\
        <Source>GVPS</Source><Code>00</Code></Response></Transaction></GVPSResponse>";

    fn r(doc: &str) -> GvpsResponse {
        parse_response(doc.as_bytes()).unwrap()
    }

    fn txn(kind: &str, status: &str, amount: i64, void_date: &str) -> OrderTxn {
        OrderTxn {
            kind: kind.into(),
            status: status.into(),
            preauth_amount: if kind == "preauth" { amount } else { 0 },
            auth_amount: if kind == "preauth" { 0 } else { amount },
            void_date: void_date.into(),
            rrn: format!("rrn-{kind}"),
            ..OrderTxn::default()
        }
    }

    #[test]
    fn mews_fixtures() {
        let sale = parse_order_inq(&r(INQ_SALE)).unwrap();
        let pre = combine(
            &parse_order_inq(&r(INQ_PREAUTH)).unwrap(),
            &[txn("preauth", "00", 101, "")],
        );
        assert_eq!((pre.state, pre.amount), (BankState::Preauth, 101));
        assert!(is_not_found(&r(INQ_NOT_FOUND)));
        assert!(is_not_found(&r(HIST_NOT_FOUND)));
        assert!(!is_not_found(&r(INQ_SALE)));
        let hist = parse_history(&r(HIST_SALE_FAILED_REFUND)).unwrap();
        assert_eq!(hist.len(), 2);
        assert_eq!(refunded_total(&hist), 0, "a failed refund does not count");
        let st = combine(&sale, &hist);
        assert_eq!(
            (st.state, st.amount, st.refunded_amount),
            (BankState::Approved, 101, 0)
        );
        assert_eq!(
            (st.rrn.as_str(), st.auth_code.as_str()),
            ("300708704369", "304919")
        );
        assert_eq!(
            void_target(&hist).map(|t| t.rrn.as_str()),
            Some("230508300896")
        );
    }

    /// An unreadable or missing amount makes the whole answer unusable; it never reads as 0.
    #[test]
    fn unreadable_amounts_are_not_guessed() {
        let doc = HIST_SALE_FAILED_REFUND.replace(
            "<Type>refund</Type><Status>01</Status><PreAuthAmount>0</PreAuthAmount><AuthAmount>101</AuthAmount>",
            "<Type>refund</Type><Status>00</Status><PreAuthAmount>0</PreAuthAmount><AuthAmount>1,01</AuthAmount>",
        );
        assert!(doc.contains("1,01"));
        assert!(parse_history(&r(&doc)).is_err());
        let missing = HIST_SALE_FAILED_REFUND.replacen("<AuthAmount>101</AuthAmount>", "", 1);
        assert!(parse_history(&r(&missing)).is_err());
        let no_type = HIST_SALE_FAILED_REFUND.replacen("<Type>sales</Type>", "", 1);
        assert!(parse_history(&r(&no_type)).is_err());
        let inq = INQ_SALE.replace("<AuthAmount>101</AuthAmount>", "<AuthAmount>x</AuthAmount>");
        assert!(parse_order_inq(&r(&inq)).is_err());
        let inq = INQ_PREAUTH.replace("<PreAuthAmount>101</PreAuthAmount>", "");
        assert!(parse_order_inq(&r(&inq)).is_err());
        let no_block = "<GVPSResponse><Transaction><Response><Code>00</Code></Response></Transaction></GVPSResponse>";
        assert!(parse_order_inq(&r(no_block)).is_err());
    }

    #[test]
    fn a_captured_preauth_is_cancelled_in_two_voids() {
        let mut h = vec![
            txn("preauth", "00", 1_000, ""),
            txn("postauth", "00", 800, ""),
        ];
        let kinds = |h: &[OrderTxn]| match cancel_steps(h) {
            CancelSteps::Voids(v) => v.iter().map(|t| t.kind.clone()).collect::<Vec<_>>(),
            other => vec![format!("{other:?}")],
        };
        assert_eq!(kinds(&h), ["postauth", "preauth"]);
        // Half done: the capture is voided, the hold is open; the order reads as a
        // pre-authorization again and only the hold's void is left.
        h[1].void_date = "20260101".into();
        h.push(txn("void", "00", 100, ""));
        assert_eq!(combine(&OrderInq::default(), &h).state, BankState::Preauth);
        assert_eq!(kinds(&h), ["preauth"]);
        h[0].void_date = "20260101".into();
        assert_eq!(cancel_steps(&h), CancelSteps::AlreadyCancelled);
        assert_eq!(
            combine(&OrderInq::default(), &h).state,
            BankState::Cancelled
        );
        assert_eq!(
            cancel_steps(&[txn("sales", "01", 5, "")]),
            CancelSteps::NothingLive
        );
        assert_eq!(kinds(&[txn("sales", "00", 5, "")]), ["sales"]);
    }

    #[test]
    fn partial_and_full_refunds_are_visible() {
        let inq = OrderInq {
            status: "APPROVED".into(),
            auth_amount: 10_000,
            ..OrderInq::default()
        };
        let mut h = vec![
            txn("sales", "00", 10_000, ""),
            txn("refund", "00", 2_500, ""),
        ];
        let st = combine(&inq, &h);
        assert_eq!(
            (st.state, st.amount, st.refunded_amount),
            (BankState::PartiallyRefunded, 10_000, 2_500)
        );
        h.push(txn("refund", "00", 7_500, ""));
        let st = combine(&inq, &h);
        assert_eq!(
            (st.state, st.refunded_amount),
            (BankState::Refunded, 10_000)
        );
        // A voided refund gives the money back to the order.
        h[2].void_date = "20260101".into();
        assert_eq!(combine(&inq, &h).state, BankState::PartiallyRefunded);
        // Refunds above the sale do not add up.
        h.push(txn("refund", "00", 9_000, ""));
        assert!(!combine(&inq, &h).is_conclusive());
    }

    /// A found order whose history is empty or shows no sale, or whose inquiry says refunded
    /// while the history lists no refund, is unavailable: never "nothing refunded".
    #[test]
    fn contradictions_and_incomplete_histories_are_unavailable() {
        let inq = |status: &str| OrderInq {
            status: status.into(),
            auth_amount: 500,
            ..OrderInq::default()
        };
        let sale = [txn("sales", "00", 500, "")];
        for status in ["APPROVED", "REFUNDED", "WAITINGPOSTAUTH", ""] {
            assert!(!combine(&inq(status), &[]).is_conclusive(), "{status}");
            let only_refund = [txn("refund", "00", 100, "")];
            assert!(!combine(&inq(status), &only_refund).is_conclusive());
        }
        for status in ["PARTIALLYREFUNDED", "REFUNDED"] {
            let st = combine(&inq(status), &sale);
            assert!(!st.is_conclusive(), "{status}: {st:?}");
        }
        let refunded = [txn("sales", "00", 500, ""), txn("refund", "00", 200, "")];
        let st = combine(&inq("PARTIALLYREFUNDED"), &refunded);
        assert_eq!(
            (st.state, st.refunded_amount),
            (BankState::PartiallyRefunded, 200)
        );
        assert_eq!(cancel_steps(&[]), CancelSteps::Incomplete);
        assert_eq!(
            cancel_steps(&[txn("refund", "00", 100, "")]),
            CancelSteps::Incomplete
        );
    }

    #[test]
    fn voids_captures_and_declines() {
        let inq = OrderInq::default();
        let voided = [
            txn("sales", "00", 700, "20260101"),
            txn("void", "00", 700, ""),
        ];
        let st = combine(&inq, &voided);
        assert_eq!((st.state, st.amount), (BankState::Cancelled, 700));
        assert_eq!(void_target(&voided), None);
        let captured = [
            txn("preauth", "00", 1_000, ""),
            txn("postauth", "00", 800, ""),
        ];
        let st = combine(&inq, &captured);
        assert_eq!((st.state, st.amount), (BankState::Approved, 800));
        assert_eq!(
            void_target(&captured).map(|t| t.kind.as_str()),
            Some("postauth")
        );
        let open = [txn("preauth", "00", 1_000, "")];
        assert_eq!(combine(&inq, &open).state, BankState::Preauth);
        let declined = [txn("sales", "01", 300, "")];
        let st = combine(&inq, &declined);
        assert_eq!((st.state, st.amount), (BankState::Declined, 300));
        let nothing = combine(
            &OrderInq {
                status: "SOMETHING".into(),
                ..inq
            },
            &[],
        );
        assert!(!nothing.is_conclusive());
    }
}
