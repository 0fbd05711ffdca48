//! The order's state from `TransactionInquiry` (MEWS `mapStatusResponse` and its
//! `success_refunded` fixture): `ServiceResponseData.ResponseCode` `0000` with
//! `TransactionData[]`, one line per transaction of the order, newest first, each with
//! `TransactionType` (`Sale`, `Auth`, `Capture`, `Reverse`, `Return`), `TransactionStatus`
//! (`1` for reversed and settled ("finansallaştırılmış") transactions, `0` for the others:
//! MEWS's note from the bank's document), `Amount` in TL with a decimal comma (`1,75`,
//! `1.234,56`), `HostLogKey` (the transaction's reference), `AuthCode`, `TransactionDate`
//! (`2019-11-0813:58:37.909`), `OrderId`, `CurrencyCode`.
//!
//! The lines are replayed oldest first (by `TransactionDate`; equal dates keep the bank's
//! order, reversed): `Sale`/`Auth` open the order, `Capture` closes the open `Auth`,
//! `Reverse` undoes the newest live `Capture`, `Sale` or `Auth`, `Return` adds to the refunded
//! total. `TransactionStatus` cannot tell a reversed transaction from a settled one, so the
//! state is read from the `Reverse` lines, never from it. `E219` is the only "no such
//! order"; anything the replay cannot place makes the whole answer *unavailable* (never a
//! guess, never "not found"): another code, an approved answer without lines, a line of an
//! unknown type or status, an unreadable amount or date, a line without its reference, the
//! same line twice (a repeated page), two sales, a capture without an open authorization, a
//! reverse or return of nothing live, returns above the sale.

use paygate_bankkit::amount;
use paygate_domain::{BankState, BankStatus};
use serde_json::Value;

use crate::{
    request::{Kind, Target},
    response::{text, Reply, APPROVED, INQUIRY_OK, NO_RECORD},
};

/// What the inquiry says about the order, for the query and for each money flow's plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderView {
    pub status: BankStatus,
    /// The live sale or authorization.
    pub main: Option<Target>,
    /// The live capture of the authorization.
    pub capture: Option<Target>,
}

impl OrderView {
    pub fn plain(status: BankStatus) -> Self {
        Self {
            status,
            main: None,
            capture: None,
        }
    }
}

/// A TL amount with a decimal comma (`1,75`, `1.234,56`) or without decimals, in kuruş.
pub fn tl_amount(s: &str) -> Option<i64> {
    let s = s.trim();
    if s.contains(',') {
        amount::parse_decimal(&s.replace('.', ""))
    } else {
        amount::parse_decimal(s)
    }
}

#[derive(Debug, Clone)]
struct Line {
    kind: Kind,
    amount: i64,
    reference: String,
    auth_code: String,
    date: String,
}

fn line(v: &Value) -> Result<Line, String> {
    let get = |k: &str| text(v, &[k]);
    let kind = Kind::parse(&get("TransactionType"))
        .ok_or_else(|| format!("TransactionType:{}", get("TransactionType")))?;
    if !matches!(get("TransactionStatus").as_str(), "0" | "1") {
        return Err(format!("TransactionStatus:{}", get("TransactionStatus")));
    }
    let amount = tl_amount(&get("Amount")).ok_or("Amount")?;
    let reference = get("HostLogKey");
    if reference.is_empty() && matches!(kind, Kind::Sale | Kind::Auth | Kind::Capture) {
        return Err("HostLogKey".to_owned());
    }
    let date = get("TransactionDate");
    if date.is_empty() {
        return Err("TransactionDate".to_owned());
    }
    Ok(Line {
        kind,
        amount,
        reference,
        auth_code: get("AuthCode"),
        date,
    })
}

/// The order's state from an inquiry answer.
pub fn read(reply: &Reply) -> OrderView {
    let code = reply.code();
    if code == NO_RECORD {
        return OrderView::plain(BankStatus::not_found(&code));
    }
    if code != INQUIRY_OK && code != APPROVED {
        return OrderView::plain(BankStatus::unavailable(&reply.bank_code()));
    }
    let Some(list) = reply.0.get("TransactionData").and_then(Value::as_array) else {
        return OrderView::plain(BankStatus::unavailable("TransactionData"));
    };
    if list.iter().enumerate().any(|(i, l)| list[..i].contains(l)) {
        return OrderView::plain(BankStatus::unavailable("TransactionData:duplicate"));
    }
    list.iter()
        .rev()
        .map(line)
        .collect::<Result<Vec<Line>, String>>()
        .and_then(|mut lines| {
            lines.sort_by(|a, b| a.date.cmp(&b.date));
            replay(&lines, &code)
        })
        .unwrap_or_else(|why| OrderView::plain(BankStatus::unavailable(&why)))
}

struct Live<'a> {
    line: &'a Line,
    live: bool,
}

fn replay(lines: &[Line], code: &str) -> Result<OrderView, String> {
    let mut main: Option<Live<'_>> = None;
    let mut capture: Option<Live<'_>> = None;
    let mut refunded = 0i64;
    for l in lines {
        match l.kind {
            Kind::Sale | Kind::Auth => {
                if main.is_some() {
                    return Err("TransactionData:two-main".to_owned());
                }
                main = Some(Live {
                    line: l,
                    live: true,
                });
            }
            Kind::Capture => {
                let open_auth = matches!(&main, Some(m) if m.live && m.line.kind == Kind::Auth);
                if !open_auth || capture.as_ref().is_some_and(|c| c.live) {
                    return Err("Capture:no-open-auth".to_owned());
                }
                capture = Some(Live {
                    line: l,
                    live: true,
                });
            }
            Kind::Reverse => {
                if refunded > 0 {
                    return Err("Reverse:after-return".to_owned());
                }
                match (&mut capture, &mut main) {
                    (Some(c), _) if c.live => c.live = false,
                    (_, Some(m)) if m.live => m.live = false,
                    _ => return Err("Reverse:nothing-live".to_owned()),
                }
            }
            Kind::Return => {
                let sold = capture.as_ref().is_some_and(|c| c.live)
                    || matches!(&main, Some(m) if m.live && m.line.kind == Kind::Sale);
                if !sold {
                    return Err("Return:nothing-sold".to_owned());
                }
                refunded = refunded.saturating_add(l.amount);
            }
        }
    }
    let main = main.ok_or("TransactionData:empty")?;
    let status = |state, amount, refunded| BankStatus {
        found: true,
        state,
        amount,
        refunded_amount: refunded,
        code: code.to_owned(),
        auth_code: main.line.auth_code.clone(),
        rrn: main.line.reference.clone(),
    };
    let target = |l: &Line| Target {
        reference: l.reference.clone(),
        kind: l.kind,
    };
    if !main.live {
        return Ok(OrderView::plain(status(
            BankState::Cancelled,
            main.line.amount,
            0,
        )));
    }
    let live_capture = capture.filter(|c| c.live);
    let sold = match (main.line.kind, &live_capture) {
        (Kind::Auth, None) => {
            return Ok(OrderView {
                status: status(BankState::Preauth, main.line.amount, 0),
                main: Some(target(main.line)),
                capture: None,
            })
        }
        (_, Some(c)) => c.line.amount,
        _ => main.line.amount,
    };
    let state = match refunded {
        0 => BankState::Approved,
        r if r == sold => BankState::Refunded,
        r if r < sold => BankState::PartiallyRefunded,
        _ => return Err("Return:above-the-sale".to_owned()),
    };
    Ok(OrderView {
        status: status(state, sold, refunded),
        main: Some(target(main.line)),
        capture: live_capture.map(|c| target(c.line)),
    })
}

#[cfg(test)]
mod tests {
    use paygate_bankkit::BankReply;

    use super::*;

    fn inquiry(lines: &[String]) -> OrderView {
        let body = format!(
            r#"{{"ServiceResponseData":{{"ResponseCode":"0000","ResponseDescription":"Başarılı"}},"TransactionData":[{}]}}"#,
            lines.join(",")
        );
        read(&Reply::decode(body.as_bytes()).unwrap())
    }

    fn l(kind: &str, amount: &str, key: &str, date: &str) -> String {
        format!(
            r#"{{"Amount":"{amount}","AuthCode":"628698","CardNo":"540061******4581","CurrencyCode":"TL","HostLogKey":"{key}","OrderId":"ALB_TST_19091900_20a1234","TransactionDate":"2019-11-08{date}","TransactionStatus":"1","TransactionType":"{kind}"}}"#
        )
    }

    /// MEWS `success_refunded`: a sale of 1,75 TL returned in full (newest line first).
    #[test]
    fn the_mews_refunded_fixture() {
        let body = r#"{"ServiceResponseData":{"ResponseCode":"0000","ResponseDescription":"Başarılı"},"TransactionData":[{"Amount":"1,75","AuthCode":"628698","CardNo":"540061******4581","CurrencyCode":"TL","HostLogKey":"022562869890000191","OrderId":"ALB_TST_19091900_20a1234","TransactionDate":"2019-11-0813:58:37.909","TransactionStatus":"1","TransactionType":"Return"},{"Amount":"1,75","AuthCode":"190742","CardNo":"540061******4581","CurrencyCode":"TL","HostLogKey":"021419074290000191","OrderId":"ALB_TST_19091900_20a1234","TransactionDate":"2019-09-2018:50:58.111","TransactionStatus":"1","TransactionType":"Sale"}]}"#;
        let v = read(&Reply::decode(body.as_bytes()).unwrap());
        assert_eq!(
            (v.status.state, v.status.amount, v.status.refunded_amount),
            (BankState::Refunded, 175, 175)
        );
        assert_eq!(
            (v.status.rrn.as_str(), v.status.auth_code.as_str()),
            ("021419074290000191", "190742")
        );
    }

    #[test]
    fn sales_preauths_captures_reverses_and_returns() {
        let sale = l("Sale", "1.234,56", "S1", "10:00:00.000");
        let v = inquiry(std::slice::from_ref(&sale));
        assert_eq!(
            (v.status.state, v.status.amount),
            (BankState::Approved, 123_456)
        );
        assert_eq!(v.main.unwrap().reference, "S1");
        let rev = l("Reverse", "1.234,56", "R1", "10:00:01.000");
        assert_eq!(
            inquiry(&[rev.clone(), sale.clone()]).status.state,
            BankState::Cancelled
        );
        let ret = l("Return", "234,56", "T1", "10:00:02.000");
        let v = inquiry(&[ret, sale.clone()]).status;
        assert_eq!(
            (v.state, v.refunded_amount),
            (BankState::PartiallyRefunded, 23_456)
        );

        let auth = l("Auth", "300,00", "A1", "10:00:00.000");
        let v = inquiry(std::slice::from_ref(&auth));
        assert_eq!(
            (v.status.state, v.status.amount),
            (BankState::Preauth, 30_000)
        );
        let capt = l("Capture", "120,00", "C1", "10:00:01.000");
        let v = inquiry(&[capt.clone(), auth.clone()]);
        assert_eq!(
            (v.status.state, v.status.amount),
            (BankState::Approved, 12_000)
        );
        assert_eq!(v.capture.unwrap().kind, Kind::Capture);
        // The capture reversed: the authorization is open again; then reversed too.
        let r1 = l("Reverse", "120,00", "R1", "10:00:02.000");
        let v = inquiry(&[r1.clone(), capt.clone(), auth.clone()]);
        assert_eq!((v.status.state, v.capture), (BankState::Preauth, None));
        let r2 = l("Reverse", "300,00", "R2", "10:00:03.000");
        assert_eq!(
            inquiry(&[r2, r1, capt, auth]).status.state,
            BankState::Cancelled
        );
    }

    #[test]
    fn not_found_only_on_e219_and_never_a_guess() {
        let nf = read(&Reply::decode(br#"{"ServiceResponseData":{"ResponseCode":"E219","ResponseDescription":"Kay\u0131t Bulunamad\u0131"},"AuthCode":null,"ReferenceCode":null,"TransactionData":null}"#).unwrap());
        assert!(!nf.status.found && nf.status.is_conclusive());
        let other = read(&Reply::decode(br#"{"ServiceResponseData":{"ResponseCode":"0400","ResponseDescription":"DB ERROR"}}"#).unwrap());
        assert!(!other.status.is_conclusive());
        let sale = l("Sale", "100,00", "S1", "10:00:00.000");
        for odd in [
            vec![],
            vec![l("PointUsage", "1,00", "P", "10:00:01.000"), sale.clone()],
            vec![sale.replace(r#""TransactionStatus":"1""#, r#""TransactionStatus":"9""#)],
            vec![sale.replace("100,00", "1.00.0")],
            vec![sale.replace(r#""HostLogKey":"S1""#, r#""HostLogKey":null"#)],
            vec![sale.clone(), sale.clone()],
            vec![l("Sale", "1,00", "S2", "10:00:01.000"), sale.clone()],
            vec![l("Capture", "1,00", "C", "10:00:01.000"), sale.clone()],
            vec![l("Return", "200,00", "T", "10:00:01.000"), sale.clone()],
            vec![l("Reverse", "1,00", "R", "10:00:01.000")],
        ] {
            assert!(!inquiry(&odd).status.is_conclusive(), "{odd:?}");
        }
        let no_lines = read(
            &Reply::decode(
                br#"{"ServiceResponseData":{"ResponseCode":"0000"},"TransactionData":null}"#,
            )
            .unwrap(),
        );
        assert!(!no_lines.status.is_conclusive());
    }
}
