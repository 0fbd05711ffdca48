//! The date-range report (`portal/report/transaction`) from the book's dated history
//! ([`OrderBook::booked_on`](paygate_bankkit::sim::OrderBook::booked_on)), in the shape of
//! MEWS's `history/daily_history*.json`: one line per sale, pre-auth, post-auth and refund,
//! booked at noon of its business day; a void has no line, what it reversed shows
//! `txnStatus İptal`; a post-auth or refund line has its own `orderId` and the order's in
//! `orgOrderId`. The list goes out as base64 of a gzip member (stored blocks).

use base64::Engine;
use paygate_bankkit::{amount, sim::SimTxn};
use paygate_domain::daily::BusinessDay;
use serde_json::Value;

use super::{wire::Range, AkbankSim};
use crate::{
    gzip,
    request::{txn, Obj},
    response::text,
};

fn terminal(req: &Value) -> Obj {
    Obj::default()
        .str(
            "terminalSafeId",
            &text(req, &["terminal", "terminalSafeId"]),
        )
        .str(
            "merchantSafeId",
            &text(req, &["terminal", "merchantSafeId"]),
        )
}

fn line(order_id: &str, currency: &str, t: &SimTxn, at: &str) -> Option<String> {
    let (code, own_id) = match t.kind {
        "sale" => (txn::SALE, false),
        "preauth" => (txn::PRE_AUTH, false),
        "postauth" => (txn::POST_AUTH, true),
        "refund" => (txn::REFUND, true),
        _ => return None,
    };
    let id = if own_id {
        format!("{order_id}-{}", t.rrn)
    } else {
        order_id.to_owned()
    };
    let rrn = if !t.rrn.is_empty() && t.rrn.bytes().all(|b| b.is_ascii_digit()) {
        t.rrn.clone()
    } else {
        Value::String(t.rrn.clone()).to_string()
    };
    Some(
        Obj::default()
            .str("txnCode", code)
            .str("responseCode", "VPS-0000")
            .str("responseMessage", "BAŞARILI")
            .str("hostResponseCode", "00")
            .str("txnDateTime", at)
            .str("orderId", &id)
            .str("authCode", &t.auth_code)
            .raw("rrn", rrn)
            .raw("batchNumber", "39")
            .str("txnStatus", if t.voided { "İptal" } else { "Başarılı" })
            .raw("amount", amount::to_decimal(t.amount))
            .raw("currencyCode", currency.to_owned())
            .str("orgOrderId", order_id)
            .finish(),
    )
}

/// The report of `range` for `terminal_id`.
pub(crate) fn answer(sim: &AkbankSim, terminal_id: &str, req: &Value, range: Range) -> String {
    let book = sim.state.book();
    let mut lines = Vec::new();
    let mut date = range.start.date();
    while date <= range.end.date() {
        let noon = date.with_hms(12, 0, 0).unwrap_or(range.start);
        let day = BusinessDay::parse(&date.to_string());
        if let Some(day) = day.filter(|_| range.start <= noon && noon <= range.end) {
            let at = format!("{day}T12:00:00.000");
            for (o, t) in book.booked_on(terminal_id, day) {
                lines.extend(line(&o.order_id, o.currency.numeric(), t, &at));
            }
        }
        match date.next_day() {
            Some(d) => date = d,
            None => break,
        }
    }
    let data = Obj::default()
        .str("txnDateTime", &format!("{}T00:00:00.000", range.end.date()))
        .obj("terminal", terminal(req))
        .raw("txnDetailList", format!("[{}]", lines.join(",")))
        .finish();
    let zipped = gzip::gzip(data.as_bytes());
    Obj::default()
        .str(
            "data",
            &base64::engine::general_purpose::STANDARD.encode(zipped),
        )
        .str(
            "requestId",
            "VPS0002059912222599999999992024042509590700005",
        )
        .obj("terminal", terminal(req))
        .str("responseMessage", "SUCCESSFUL")
        .str("txnDateTime", &format!("{}T00:00:00.000", range.end.date()))
        .str("responseCode", "VPS-0000")
        .finish()
}
