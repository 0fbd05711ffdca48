//! The order's state from its history (`txnCode 1010`): Akbank's API has no single-order
//! status call, so the live query reads `txnDetailList[]` and derives the state.
//!
//! Each line has `txnCode` (`1000` sale, `1004` pre-auth, `1005` post-auth, `1002` refund),
//! `responseCode`, `txnStatus` (`N` normal, `V` voided, `S` suspicious, `R` reversal),
//! `amount` (a JSON number, TL), and for a pre-auth `preAuthStatus` (`O` open, `C` closed) and
//! `preAuthCloseAmount` (MEWS `AkbankPosResponseDataMapper`, its `orderHistoryDataProvider`).
//! A history that cannot be read conclusively is *unavailable*, never a guess:
//!
//! - a line that may have acted or is still in progress, approved or not: no `responseCode`,
//!   a refusal with host code 68/91/96 or a system error, `txnStatus` `S` (suspicious) or `R`
//!   (reversal), an approval the host contradicts (a refund or void that vanished from the
//!   reading would be sent again);
//! - an approved line of a type this reader does not know (a void line `1003` is known: its
//!   effect shows as `txnStatus V` on what it reversed);
//! - an incomplete answer: a count, page count or "more" flag saying the answer holds fewer
//!   lines than there are, or the same approved line twice;
//! - totals that do not add up: two main transactions, a closed pre-auth without its
//!   post-auth (or an open one with a live post-auth), a `preAuthCloseAmount` other than the
//!   post-auth's amount, refunds above the sale, unreadable amounts.

use paygate_bankkit::Verdict;
use paygate_domain::{BankState, BankStatus};
use serde_json::Value;

use crate::{
    request::txn,
    response::{amount_of, classify, text, Reply, APPROVED},
};

/// "Order not found" of the history (MEWS `fail_order_not_found`).
pub const NOT_FOUND: &str = "VPS-1123";

/// What the history says about the order, for the query and for a cancel's plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderView {
    pub status: BankStatus,
    /// A post-authorization still stands on a pre-authorization (a void reverses it only).
    pub captured_preauth: bool,
}

impl OrderView {
    fn plain(status: BankStatus) -> Self {
        Self {
            status,
            captured_preauth: false,
        }
    }
}

struct Line<'a>(&'a Value);

impl Line<'_> {
    fn get(&self, key: &str) -> String {
        text(self.0, &[key])
    }
    fn approved(&self) -> bool {
        self.get("responseCode") == APPROVED
    }
    fn code(&self) -> String {
        self.get("txnCode")
    }
    fn live(&self) -> bool {
        self.get("txnStatus") == "N"
    }
    fn amount(&self) -> Option<i64> {
        amount_of(self.0, "amount")
    }

    /// A line that settles what it did: approved and of a known type, or refused before it
    /// acted. Anything else makes the whole history unavailable.
    fn check(&self) -> Result<(), String> {
        let (code, status) = (self.code(), self.get("txnStatus"));
        match classify(&Reply(self.0.clone())) {
            Verdict::Approved => {
                if !matches!(status.as_str(), "N" | "V") {
                    return Err(format!("txnStatus:{status}"));
                }
                let known = [
                    txn::SALE,
                    "3000",
                    txn::PRE_AUTH,
                    "3004",
                    txn::POST_AUTH,
                    txn::REFUND,
                    txn::VOID,
                ];
                if !known.contains(&code.as_str()) {
                    return Err(format!("txnCode:{code}"));
                }
                Ok(())
            }
            // In progress, or refused in a way that may have acted.
            Verdict::Unknown => Err(format!("{code}:unsettled")),
            Verdict::Declined | Verdict::Error if matches!(status.as_str(), "N" | "") => Ok(()),
            Verdict::Declined | Verdict::Error => Err(format!("txnStatus:{status}")),
        }
    }
}

/// Members that say how much of the order's history exists. No source shows a paged or
/// counted `1010` answer (an oversized history is refused with `VPS-2235`), so these names
/// are the simulator's choice: whichever is present must agree with the lines returned.
const COUNT_KEYS: &[&str] = &["totalCount", "totalRecordCount", "recordCount", "txnCount"];
const PAGE_COUNT_KEYS: &[&str] = &["totalPageCount", "pageCount", "totalPages"];
const PAGE_KEYS: &[&str] = &["pageNumber", "currentPage", "page"];
const MORE_KEYS: &[&str] = &["hasMore", "hasNextPage", "moreRecords"];

/// Whether the answer holds every line it says the history has.
pub(crate) fn complete(answer: &Value, lines: usize) -> Result<(), String> {
    let number = |keys: &[&str]| -> Result<Option<u64>, String> {
        let Some((key, v)) = keys.iter().find_map(|k| answer.get(*k).map(|v| (*k, v))) else {
            return Ok(None);
        };
        match v {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
        .map(Some)
        .ok_or_else(|| format!("{key}:unreadable"))
    };
    if let Some(count) = number(COUNT_KEYS)? {
        if usize::try_from(count).ok() != Some(lines) {
            return Err(format!("txnDetailList:{lines}-of-{count}"));
        }
    }
    if let Some(pages) = number(PAGE_COUNT_KEYS)? {
        let page = number(PAGE_KEYS)?.unwrap_or(1);
        if pages > page {
            return Err(format!("txnDetailList:page-{page}-of-{pages}"));
        }
    }
    match MORE_KEYS.iter().find(|k| {
        !matches!(
            answer.get(**k),
            None | Some(Value::Null | Value::Bool(false))
        )
    }) {
        Some(key) => Err(format!("txnDetailList:{key}")),
        None => Ok(()),
    }
}

/// The order's state from a history answer.
pub fn from_history(reply: &Reply) -> OrderView {
    let code = reply.code();
    if code == NOT_FOUND {
        return OrderView::plain(BankStatus::not_found(&code));
    }
    if code != APPROVED {
        return OrderView::plain(BankStatus::unavailable(&reply.bank_code()));
    }
    let Some(list) = reply.0.get("txnDetailList").and_then(Value::as_array) else {
        return OrderView::plain(BankStatus::unavailable("txnDetailList"));
    };
    let lines: Vec<Line<'_>> = list.iter().map(Line).collect();
    complete(&reply.0, lines.len())
        .and_then(|()| read(&lines))
        .unwrap_or_else(|why| OrderView::plain(BankStatus::unavailable(&why)))
}

fn read(lines: &[Line<'_>]) -> Result<OrderView, String> {
    lines.iter().try_for_each(Line::check)?;
    let approved: Vec<&Line<'_>> = lines.iter().filter(|l| l.approved()).collect();
    // The same line twice (a repeated page) would count twice. Lines of one order share
    // `rrn` and `authCode` (MEWS `success_pre_pay_post_pay`); a line differs from another by
    // its `stan`, `txnDateTime` or own `orderId`, so only an identical line is a repeat.
    if approved
        .iter()
        .enumerate()
        .any(|(i, l)| approved[..i].iter().any(|m| m.0 == l.0))
    {
        return Err("txnDetailList:duplicate".to_owned());
    }
    let mains: Vec<&&Line<'_>> = approved
        .iter()
        .filter(|l| {
            matches!(
                l.code().as_str(),
                txn::SALE | "3000" | txn::PRE_AUTH | "3004"
            )
        })
        .collect();
    let main = match mains.as_slice() {
        [] => {
            // Only refused attempts: the order was declined.
            let refused = lines
                .iter()
                .find(|l| {
                    matches!(
                        l.code().as_str(),
                        txn::SALE | "3000" | txn::PRE_AUTH | "3004"
                    )
                })
                .ok_or_else(|| "txnDetailList:empty".to_owned())?;
            return Ok(OrderView::plain(BankStatus {
                found: true,
                state: BankState::Declined,
                amount: refused.amount().unwrap_or(0),
                refunded_amount: 0,
                code: refused.get("responseCode"),
                auth_code: String::new(),
                rrn: String::new(),
            }));
        }
        [one] => *one,
        _ => return Err("txnDetailList:two-main".to_owned()),
    };
    let held = main.amount().ok_or("amount")?;
    let status = |state, amount, refunded| BankStatus {
        found: true,
        state,
        amount,
        refunded_amount: refunded,
        code: APPROVED.to_owned(),
        auth_code: main.get("authCode"),
        rrn: main.get("rrn"),
    };
    if !main.live() {
        return Ok(OrderView::plain(status(BankState::Cancelled, held, 0)));
    }
    let is_preauth = matches!(main.code().as_str(), txn::PRE_AUTH | "3004");
    let captures: Vec<&&Line<'_>> = approved
        .iter()
        .filter(|l| l.code() == txn::POST_AUTH && l.live())
        .collect();
    let sold = if is_preauth {
        match (main.get("preAuthStatus").as_str(), captures.as_slice()) {
            ("O" | "", []) => return Ok(OrderView::plain(status(BankState::Preauth, held, 0))),
            ("C" | "", [capture]) => {
                let captured = capture.amount().ok_or("amount")?;
                match main.get("preAuthCloseAmount").as_str() {
                    "" => {}
                    _ if amount_of(main.0, "preAuthCloseAmount") == Some(captured) => {}
                    close => return Err(format!("preAuthCloseAmount:{close}")),
                }
                captured
            }
            (pas, c) => return Err(format!("preAuthStatus:{pas}/{}", c.len())),
        }
    } else {
        if !captures.is_empty() {
            return Err("post-auth on a sale".to_owned());
        }
        held
    };
    let mut refunded = 0i64;
    for r in approved
        .iter()
        .filter(|l| l.code() == txn::REFUND && l.live())
    {
        refunded = refunded.saturating_add(r.amount().ok_or("amount")?);
    }
    let state = match refunded {
        0 => BankState::Approved,
        r if r == sold => BankState::Refunded,
        r if r < sold => BankState::PartiallyRefunded,
        _ => return Err("refunds above the sale".to_owned()),
    };
    Ok(OrderView {
        status: status(state, sold, refunded),
        captured_preauth: is_preauth,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(body: &[u8]) -> Result<Reply, String> {
        <Reply as paygate_bankkit::BankReply>::decode(body)
    }

    fn history(lines: &str) -> OrderView {
        from_history(&parse(format!(r#"{{"txnCode":"1010","responseCode":"VPS-0000","responseMessage":"BAŞARILI","txnDetailList":[{lines}]}}"#).as_bytes()).unwrap())
    }

    fn line(code: &str, status: &str, amount: &str, extra: &str) -> String {
        format!(
            r#"{{"txnCode":"{code}","txnStatus":"{status}","amount":{amount},"responseCode":"VPS-0000","authCode":"305955","rrn":"410724359538"{extra}}}"#
        )
    }

    /// MEWS `success_only_payment_transaction`, `success_pay_then_cancel`, `success_pre_pay`.
    #[test]
    fn sale_void_preauth() {
        let st = history(&line("1000", "N", "1.01", "")).status;
        assert_eq!(
            (st.state, st.amount, st.rrn.as_str()),
            (BankState::Approved, 101, "410724359538")
        );
        assert_eq!(
            history(&line("1000", "V", "1.01", "")).status.state,
            BankState::Cancelled
        );
        let pre = history(&line("1004", "N", "30", r#","preAuthStatus":"O""#));
        assert_eq!(
            (pre.status.state, pre.status.amount, pre.captured_preauth),
            (BankState::Preauth, 3_000, false)
        );
    }

    /// `success_pre_pay_post_pay` and `success_pre_pay_post_pay_then_cancel` (the void
    /// reversed the post-auth; the pre-auth is open again).
    #[test]
    fn captured_preauth_and_its_reversal() {
        let both = format!(
            "{},{}",
            line(
                "1004",
                "N",
                "30",
                r#","preAuthStatus":"C","preAuthCloseAmount":30"#
            ),
            line("1005", "N", "30", "")
        );
        let v = history(&both);
        assert_eq!(
            (v.status.state, v.status.amount, v.captured_preauth),
            (BankState::Approved, 3_000, true)
        );
        let reversed = format!(
            "{},{}",
            line("1005", "V", "30", ""),
            line("1004", "N", "30", r#","preAuthStatus":"O""#)
        );
        assert_eq!(history(&reversed).status.state, BankState::Preauth);
        // Contradictions.
        let closed_alone = line("1004", "N", "30", r#","preAuthStatus":"C""#);
        assert!(!history(&closed_alone).status.is_conclusive());
        let open_with_capture = format!(
            "{},{}",
            line("1004", "N", "30", r#","preAuthStatus":"O""#),
            line("1005", "N", "30", "")
        );
        assert!(!history(&open_with_capture).status.is_conclusive());
    }

    #[test]
    fn partial_and_full_refunds() {
        let h = format!(
            "{},{},{}",
            line("1000", "N", "100", ""),
            line("1002", "N", "25.5", ""),
            line("1002", "V", "10", "")
        );
        let st = history(&h).status;
        assert_eq!(
            (st.state, st.refunded_amount),
            (BankState::PartiallyRefunded, 2_550)
        );
        let full = format!(
            "{},{}",
            line("1000", "N", "100", ""),
            line("1002", "N", "100", "")
        );
        assert_eq!(history(&full).status.state, BankState::Refunded);
        let above = format!(
            "{},{}",
            line("1000", "N", "1", ""),
            line("1002", "N", "2", "")
        );
        assert!(!history(&above).status.is_conclusive());
    }

    /// `success_failed_transaction` (a refused sale, `VPS-1005`), `fail_order_not_found`,
    /// and lines the history cannot settle.
    #[test]
    fn declined_not_found_and_inconclusive() {
        let refused = r#"{"txnCode":"1000","txnStatus":"N","amount":1.01,"responseCode":"VPS-1005","responseMessage":"Provizyon Hatası"}"#;
        let st = history(refused).status;
        assert_eq!(
            (st.state, st.code.as_str()),
            (BankState::Declined, "VPS-1005")
        );
        let nf = from_history(&parse(r#"{"txnCode":"1010","responseMessage":"İşlem bulunamadı. Sipariş Numarası : 2024041426072","responseCode":"VPS-1123"}"#.as_bytes()).unwrap());
        assert!(!nf.status.found && nf.status.is_conclusive());
        for odd in [
            line("1000", "S", "1", ""),
            line("1000", "R", "1", ""),
            format!(
                "{},{}",
                line("1000", "N", "1", ""),
                line("1000", "N", "1", "")
            ),
        ] {
            assert!(!history(&odd).status.is_conclusive(), "{odd}");
        }
        assert!(!history("").status.is_conclusive());
        let other =
            from_history(&parse(br#"{"responseCode":"VPS-2235","responseMessage":"x"}"#).unwrap());
        assert!(!other.status.is_conclusive());
    }

    fn refused(code: &str, status: &str, extra: &str) -> String {
        format!(
            r#"{{"txnCode":"{code}","txnStatus":"{status}","amount":10,"responseCode":"VPS-1005","responseMessage":"Provizyon Hatası"{extra}}}"#
        )
    }

    /// Lines that are not approved are not dropped: a suspicious, in-progress or
    /// may-have-acted refund or void makes the history unavailable; a plain refusal (or an
    /// approved void line, whose effect shows on the sale) does not.
    #[test]
    fn unsettled_lines_make_the_history_unavailable() {
        let sale = line("1000", "N", "100", "");
        let conclusive = |extra: &str| history(&format!("{sale},{extra}")).status;
        let st = conclusive(&refused("1002", "N", r#","hostResponseCode":"05""#));
        assert_eq!(
            (st.state, st.refunded_amount),
            (BankState::Approved, 0),
            "a refused refund moved nothing"
        );
        let voided = history(&format!(
            "{},{}",
            line("1000", "V", "100", ""),
            line("1003", "N", "100", "")
        ));
        assert_eq!(voided.status.state, BankState::Cancelled);
        for odd in [
            refused("1002", "S", r#","hostResponseCode":"05""#),
            refused("1003", "S", ""),
            refused("1002", "N", r#","hostResponseCode":"96""#),
            refused("1002", "N", r#","hostResponseCode":"68""#),
            refused("1003", "N", r#","hostResponseCode":"91""#),
            refused("1002", "N", r#","hostMessage":"SISTEM HATASI""#),
            // In progress: no result yet.
            r#"{"txnCode":"1002","txnStatus":"N","amount":10}"#.to_owned(),
            // Approved, but the host says otherwise.
            line("1002", "N", "10", r#","hostResponseCode":"91""#),
            // Approved, of a type this reader cannot place.
            line("1013", "N", "10", ""),
        ] {
            assert!(!conclusive(&odd).is_conclusive(), "{odd}");
        }
    }

    /// The answer must hold every line it counts, and its totals must add up.
    #[test]
    fn incomplete_or_inconsistent_histories_are_unavailable() {
        let body = |extra: &str, lines: &str| {
            from_history(&parse(format!(r#"{{"txnCode":"1010","responseCode":"VPS-0000"{extra},"txnDetailList":[{lines}]}}"#).as_bytes()).unwrap()).status
        };
        let two = format!(
            "{},{}",
            line("1000", "N", "100", ""),
            line("1002", "N", "10", "")
        );
        assert_eq!(body("", &two).state, BankState::PartiallyRefunded);
        assert_eq!(
            body(r#","totalCount":2,"pageCount":1,"hasMore":false"#, &two).state,
            BankState::PartiallyRefunded
        );
        for extra in [
            r#","totalCount":3"#,
            r#","recordCount":"3""#,
            r#","totalCount":"many""#,
            r#","pageCount":2"#,
            r#","totalPages":3,"pageNumber":2"#,
            r#","hasMore":true"#,
            r#","hasNextPage":"Y""#,
        ] {
            assert!(!body(extra, &two).is_conclusive(), "{extra}");
        }
        // The same refund line twice (a repeated page) would count it twice; two refunds
        // sharing the order's RRN are two lines.
        let refund = line("1002", "N", "10", "");
        let shared = line("1002", "N", "10", r#","stan":135"#);
        let two_refunds = format!("{},{refund},{shared}", line("1000", "N", "100", ""));
        assert_eq!(body("", &two_refunds).refunded_amount, 2_000);
        let dup = format!("{},{refund},{refund}", line("1000", "N", "100", ""));
        assert!(!body("", &dup).is_conclusive());
        // A closed pre-auth whose close amount is not its post-auth's.
        let closed = format!(
            "{},{}",
            line(
                "1004",
                "N",
                "30",
                r#","preAuthStatus":"C","preAuthCloseAmount":20"#
            ),
            line("1005", "N", "30", "")
        );
        assert!(!body("", &closed).is_conclusive());
    }
}
