//! `ORDERSTATUS` and `ORDERHISTORY` answers rendered from the order book, shaped like the
//! MEWS fixtures (`EstPosResponseDataMapperTest::statusTestDataProvider`,
//! `historyTestDataProvider`): amounts in kuruş, the sale as one `S` line whose `TRANS_STAT`
//! moves `A` → `C` → `V`, refunds as `C` lines, refused refunds as `C D … 99`, newest first.
//! `ORDERSTATUS` shows the sale — or the last refund once the order is fully refunded — so
//! partial refunds appear only in the history, as at the bank.

use paygate_bankkit::sim::{OrderState, SimOrder, SimTxn};

use super::{wire::Answer, FailedRefund};

/// Day 0 of the simulated calendar is 2024-01-01.
pub fn civil(day: u32) -> (u32, u32, u32) {
    let mut year = 2024;
    let mut left = day;
    loop {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
        let len = if leap { 366 } else { 365 };
        if left < len {
            let months = [
                31,
                if leap { 29 } else { 28 },
                31,
                30,
                31,
                30,
                31,
                31,
                30,
                31,
                30,
                31,
            ];
            let mut month = 1;
            for m in months {
                if left < m {
                    break;
                }
                left -= m;
                month += 1;
            }
            return (year, month, left + 1);
        }
        left -= len;
        year += 1;
    }
}

fn dttm(day: u32) -> String {
    let (y, m, d) = civil(day);
    format!("{y:04}-{m:02}-{d:02} 12:00:00.000")
}

/// The bank's transaction id of a book transaction.
pub fn trans_id_of(t: &SimTxn) -> String {
    format!("{}N{}", 24_000 + t.day, t.rrn)
}

/// One history/status line.
struct Line {
    charge: &'static str,
    stat: &'static str,
    orig: String,
    capture: String,
    auth_dttm: String,
    capture_dttm: String,
    void_dttm: String,
    rrn: String,
    auth_code: String,
    proc: &'static str,
    trans_id: String,
}

impl Line {
    fn tabbed(&self) -> String {
        [
            self.charge,
            self.stat,
            &self.orig,
            &self.capture,
            &self.auth_dttm,
            &self.capture_dttm,
            &self.void_dttm,
            &self.rrn,
            &self.auth_code,
            self.proc,
            &self.trans_id,
        ]
        .join("\t")
    }
}

/// The order's sale line (`None` for an order with no transaction at all).
fn sale_line(order: &SimOrder) -> Option<Line> {
    if order.state == OrderState::Declined {
        return Some(Line {
            charge: "S",
            stat: "D",
            orig: order.amount.to_string(),
            capture: String::new(),
            auth_dttm: dttm(order.day),
            capture_dttm: String::new(),
            void_dttm: String::new(),
            rrn: String::new(),
            auth_code: String::new(),
            proc: "05",
            trans_id: format!("{}D{}", 24_000 + order.day, order.order_id),
        });
    }
    let first = order.history.first()?;
    // An open pre-authorization (its capture reversed, if any) shows no capture.
    let capture = order
        .history
        .iter()
        .find(|t| t.kind == "postauth")
        .filter(|_| order.state != OrderState::Preauth);
    let void = order.history.iter().find(|t| t.kind == "void");
    let (capture_amt, capture_day) = match (first.kind, capture) {
        (_, Some(c)) => (c.amount.to_string(), Some(c.day)),
        ("sale", None) => (first.amount.to_string(), Some(first.day)),
        _ => (String::new(), None),
    };
    Some(Line {
        charge: "S",
        stat: match order.state {
            OrderState::Voided => "V",
            OrderState::Preauth => "A",
            _ => "C",
        },
        orig: first.amount.to_string(),
        capture: capture_amt,
        auth_dttm: dttm(first.day),
        capture_dttm: capture_day.map(dttm).unwrap_or_default(),
        void_dttm: void.map(|v| dttm(v.day)).unwrap_or_default(),
        rrn: first.rrn.clone(),
        auth_code: first.auth_code.clone(),
        proc: "00",
        trans_id: trans_id_of(first),
    })
}

fn refund_line(t: &SimTxn) -> Line {
    Line {
        charge: "C",
        stat: "C",
        orig: t.amount.to_string(),
        capture: t.amount.to_string(),
        auth_dttm: dttm(t.day),
        capture_dttm: dttm(t.day),
        void_dttm: String::new(),
        rrn: t.rrn.clone(),
        auth_code: t.auth_code.clone(),
        proc: "00",
        trans_id: trans_id_of(t),
    }
}

/// `No record found for <oid>` (MEWS `statusTestDataProvider` `fail1`).
pub fn not_found(order_id: &str) -> Answer {
    let mut a = Answer {
        response: "Declined".into(),
        proc_return_code: "99".into(),
        err_msg: format!("No record found for {order_id}"),
        ..Answer::default()
    };
    a.extra = vec![
        ("NUMCODE".into(), "0".into()),
        (
            "ORDERSTATUS".into(),
            "ORD_ID:\tCHARGE_TYPE_CD:\tORIG_TRANS_AMT:\tCAPTURE_AMT:\tTRANS_STAT:\tAUTH_DTTM:\tCAPTURE_DTTM:\tAUTH_CODE:".into(),
        ),
    ];
    a
}

/// The `ORDERSTATUS` answer of an existing order.
pub fn order_status(order: &SimOrder) -> Answer {
    let fully_refunded =
        order.state == OrderState::Sale && order.refunded > 0 && order.refundable() == 0;
    let last_refund = order.history.iter().rev().find(|t| t.kind == "refund");
    let line = match (fully_refunded, last_refund) {
        (true, Some(r)) => Some(refund_line(r)),
        _ => sale_line(order),
    };
    let Some(line) = line else {
        return not_found(&order.order_id);
    };
    let mut a = Answer {
        order_id: order.order_id.clone(),
        response: "Approved".into(),
        proc_return_code: "00".into(),
        trans_id: line.trans_id.clone(),
        err_msg: format!("Record(s) found for {}", order.order_id),
        ..Answer::default()
    };
    let packed = format!(
        "ORD_ID:{}\tCHARGE_TYPE_CD:{}\tORIG_TRANS_AMT:{}\tCAPTURE_AMT:{}\tTRANS_STAT:{}\tAUTH_DTTM:{}\tCAPTURE_DTTM:{}\tAUTH_CODE:{}\tTRANS_ID:{}",
        order.order_id, line.charge, line.orig, line.capture, line.stat, line.auth_dttm, line.capture_dttm, line.auth_code, line.trans_id
    );
    let mut extra = vec![
        ("AUTH_CODE", line.auth_code.clone()),
        ("AUTH_DTTM", line.auth_dttm.clone()),
        ("CAPTURE_AMT", line.capture.clone()),
        ("CAPTURE_DTTM", line.capture_dttm.clone()),
        ("CHARGE_TYPE_CD", line.charge.to_owned()),
        ("HOST_REF_NUM", line.rrn.clone()),
        ("NUMCODE", "0".to_owned()),
        ("ORDERSTATUS", packed),
        ("ORD_ID", order.order_id.clone()),
        ("ORIG_TRANS_AMT", line.orig.clone()),
        ("PAN", "4546 71** **** 7894".to_owned()),
        ("PROC_RET_CD", line.proc.to_owned()),
        ("TRANS_ID", line.trans_id.clone()),
        ("TRANS_STAT", line.stat.to_owned()),
    ];
    if !line.void_dttm.is_empty() {
        extra.push(("VOID_DTTM", line.void_dttm.clone()));
    }
    a.extra = extra.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    a
}

/// The `ORDERHISTORY` answer of an existing order.
pub fn order_history(order: &SimOrder, failed: &[FailedRefund]) -> Answer {
    // Position in the order's timeline orders the lines, the newest first: book entry `i`
    // sits at `2i + 1`, a refused refund made while the book held `n` entries at `2n`.
    let mut lines: Vec<((usize, u64), Line)> = Vec::new();
    if let Some(sale) = sale_line(order) {
        lines.push(((1, 0), sale));
    }
    for (i, t) in order
        .history
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind == "refund")
    {
        lines.push(((2 * i + 1, 0), refund_line(t)));
    }
    for f in failed {
        lines.push((
            (2 * f.after, f.seq),
            Line {
                charge: "C",
                stat: "D",
                orig: f.amount.to_string(),
                capture: f.amount.to_string(),
                auth_dttm: dttm(f.day),
                capture_dttm: dttm(f.day),
                void_dttm: String::new(),
                rrn: String::new(),
                auth_code: String::new(),
                proc: "99",
                trans_id: f.trans_id.clone(),
            },
        ));
    }
    lines.sort_by_key(|l| std::cmp::Reverse(l.0));
    let mut a = Answer {
        order_id: order.order_id.clone(),
        response: "Approved".into(),
        proc_return_code: "00".into(),
        ..Answer::default()
    };
    a.extra = vec![("NUMCODE".to_owned(), "0".to_owned())];
    for (i, (_, l)) in lines.iter().enumerate() {
        a.extra.push((format!("TRX{}", i + 1), l.tabbed()));
    }
    a.extra
        .push(("TRXCOUNT".to_owned(), lines.len().to_string()));
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendar() {
        assert_eq!(civil(0), (2024, 1, 1));
        assert_eq!(civil(31), (2024, 2, 1));
        assert_eq!(civil(59), (2024, 2, 29));
        assert_eq!(civil(366), (2025, 1, 1));
    }
}
