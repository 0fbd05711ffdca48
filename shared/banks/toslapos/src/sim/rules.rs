//! What the simulated institution does with a request: the kit's order book for the money
//! rules, Tosla's codes for its refusals, and the inquiry it renders.
//!
//! | book refusal | path | `Code` | `Message` |
//! |---|---|---|---|
//! | unknown order, nothing to capture / void / refund, a void of a cancelled or refunded order, a void after the end-of-day cut | postAuth, void, refund | 101 | Orjinal Kayıt Bulunamadı |
//! | amount above the pre-auth or above what is left to refund | postAuth, refund | 998 | Validasyon Hatası (simulator's choice) |
//! | inquiry of an unknown order | inquiry | 0 | everything empty (MEWS `fail_order_not_found`) |
//! | history of a date without lines, or past the last page | history | 0 | `Count` the total, `Transactions` empty (MEWS `success_no_order_found`) |

use paygate_bankkit::sim::{OrderState, Refusal, SimOrder, SimTxn};
use paygate_domain::daily::BusinessDay;
use serde_json::{json, Value};

use super::ToslaSim;
use crate::response::text;

fn refused(order_id: &str, code: u32, message: &str) -> String {
    json!({
        "OrderId": order_id, "BankResponseCode": null, "BankResponseMessage": null,
        "AuthCode": null, "HostReferenceNumber": null, "TransactionId": null,
        "Code": code, "Message": message
    })
    .to_string()
}

fn not_found(order_id: &str) -> String {
    refused(order_id, 101, "Orjinal Kayıt Bulunamadı")
}

fn bad_amount() -> String {
    json!({"Code": 998, "message": "Validasyon Hatası", "ValidationErrors": ["amount"]}).to_string()
}

fn approved(order_id: &str, t: &SimTxn) -> String {
    json!({
        "OrderId": order_id, "BankResponseCode": "00", "BankResponseMessage": null,
        "AuthCode": t.auth_code, "HostReferenceNumber": t.rrn,
        "TransactionId": format!("2000000000{}", &t.rrn[t.rrn.len().saturating_sub(6)..]),
        "Code": 0, "Message": "Başarılı"
    })
    .to_string()
}

/// Answers one authenticated request of `client_id` on `path`.
pub(crate) fn handle(sim: &ToslaSim, client_id: &str, path: &str, req: &Value) -> String {
    let order_id = text(req, "orderId");
    let amount = req.get("amount").and_then(Value::as_i64).unwrap_or(0);
    let done = match path {
        "postAuth" => sim.state.book().postauth(client_id, &order_id, amount),
        "void" => sim.state.book().void(client_id, &order_id),
        "refund" => sim.state.book().refund(client_id, &order_id, amount),
        "history" => return history(sim, client_id, &order_id, req),
        _ => return inquiry(sim, client_id, &order_id),
    };
    match done {
        Ok(t) => approved(&order_id, &t),
        Err(Refusal::AmountAbovePreauth | Refusal::RefundAboveRemaining | Refusal::ZeroAmount) => {
            bad_amount()
        }
        Err(_) => not_found(&order_id),
    }
}

fn inquiry(sim: &ToslaSim, client_id: &str, order_id: &str) -> String {
    let hidden = sim.state.fault_plan().take_hidden(client_id, order_id);
    let order = if hidden {
        None
    } else {
        sim.state.book().get(client_id, order_id).cloned()
    };
    match order {
        Some(o) => render(&o, client_id),
        None => json!({
            "TransactionType": 0, "CreateDate": null, "OrderId": null, "BankResponseCode": null,
            "BankResponseMessage": null, "AuthCode": null, "HostReferenceNumber": null,
            "Amount": 0, "Currency": 0, "InstallmentCount": 0, "ClientId": 0, "CardNo": null,
            "RequestStatus": 0, "RefundedAmount": 0, "PostAuthedAmount": 0, "TransactionId": 0,
            "Code": 0, "Message": ""
        })
        .to_string(),
    }
}

/// `CreateDate` of business day `day` (day 0 = 2024-01-20, the MEWS fixtures' date).
fn create_date(day: u32) -> String {
    format!("202401{:02}005007", 20 + day % 9)
}

/// An order's `RequestStatus` and the host code shown with it.
fn request_status(o: &SimOrder) -> (u8, &'static str) {
    let pre = o.history.iter().any(|t| t.kind == "preauth");
    match o.state {
        OrderState::Declined => (0, "05"),
        OrderState::Preauth => (1, "00"),
        OrderState::Voided => (2, "00"),
        OrderState::Sale if o.refunded == 0 => (if pre { 5 } else { 1 }, "00"),
        OrderState::Sale if o.refunded < o.amount => (3, "00"),
        OrderState::Sale => (4, "00"),
    }
}

/// The inquiry of an order (MEWS `statusResponseDataProvider` shapes).
fn render(o: &SimOrder, client_id: &str) -> String {
    let pre = o.history.iter().find(|t| t.kind == "preauth");
    let first = o.history.first();
    let (kind, held) = match pre {
        Some(p) => (2, p.amount),
        None => (1, o.amount),
    };
    let captured = match (pre, o.state) {
        (Some(_), OrderState::Sale) => o.amount,
        _ => 0,
    };
    let (status, brc) = request_status(o);
    json!({
        "TransactionType": kind,
        "CreateDate": create_date(o.day),
        "OrderId": o.order_id,
        "BankResponseCode": brc,
        "BankResponseMessage": if brc == "00" { Value::Null } else { json!("Red") },
        "AuthCode": first.map(|t| t.auth_code.clone()),
        "HostReferenceNumber": first.map(|t| t.rrn.clone()),
        "Amount": held,
        "Currency": o.currency.numeric().parse::<u32>().unwrap_or(949),
        "InstallmentCount": 0,
        "ClientId": client_id.parse::<u64>().unwrap_or(0),
        "CardNo": "41595600****7732",
        "RequestStatus": status,
        "RefundedAmount": o.refunded,
        "PostAuthedAmount": captured,
        "TransactionId": 0,
        "Code": 0,
        "Message": ""
    })
    .to_string()
}

/// Lines a `history` page holds at most, whatever `pageSize` asks (the simulator's choice:
/// small, so that the adapter's paging is exercised).
pub const HISTORY_PAGE_CAP: usize = 2;

/// `TransactionType` of a book entry (MEWS `txTypeMappings`).
fn transaction_type(kind: &str) -> u8 {
    match kind {
        "sale" => 1,
        "preauth" => 2,
        "postauth" => 3,
        "void" => 4,
        _ => 5,
    }
}

/// A `yyyyMMdd` date.
fn parse_date(s: &str) -> Option<BusinessDay> {
    let ok = s.len() == 8 && s.bytes().all(|b| b.is_ascii_digit());
    ok.then(|| BusinessDay::parse(&format!("{}-{}-{}", &s[..4], &s[4..6], &s[6..])))
        .flatten()
}

/// One line of a history page (MEWS `orderHistoryDataProvider` shapes).
fn history_line(o: &SimOrder, t: &SimTxn, date: &str, client_id: &str) -> Value {
    let (status, _) = request_status(o);
    json!({
        "TransactionType": transaction_type(t.kind),
        "CreateDate": format!("{date}005007"),
        "OrderId": o.order_id,
        "BankResponseCode": "00",
        "BankResponseMessage": null,
        "AuthCode": t.auth_code,
        "HostReferenceNumber": t.rrn,
        "Amount": t.amount,
        "Currency": o.currency.numeric().parse::<u32>().unwrap_or(949),
        "InstallmentCount": 0,
        "ClientId": client_id.parse::<u64>().unwrap_or(0),
        "CardNo": "41595600****7732",
        "RequestStatus": status,
        "RefundedAmount": o.refunded,
        "PostAuthedAmount": 0,
        "TransactionId": format!("2000000000{}", &t.rrn[t.rrn.len().saturating_sub(6)..]),
        "TransactionDate": date,
        "Code": 0,
        "Message": "Başarılı"
    })
}

/// A page of the lines booked on `transactionDate` (one order's, when `orderId` is given).
fn history(sim: &ToslaSim, client_id: &str, order_id: &str, req: &Value) -> String {
    let date = text(req, "transactionDate");
    let Some(day) = parse_date(&date) else {
        return json!({"Code": 998, "message": "Validasyon Hatası", "ValidationErrors": ["transactionDate"]})
            .to_string();
    };
    let number = |key: &str| {
        req.get(key)
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(1)
            .max(1)
    };
    let size = number("pageSize").min(HISTORY_PAGE_CAP);
    let skip = (number("page") - 1).saturating_mul(size);
    let book = sim.state.book();
    let all: Vec<Value> = book
        .booked_on(client_id, day)
        .into_iter()
        .filter(|(o, _)| order_id.is_empty() || o.order_id == order_id)
        .map(|(o, t)| history_line(o, t, &date, client_id))
        .collect();
    let page: Vec<&Value> = all.iter().skip(skip).take(size).collect();
    json!({"Count": all.len(), "Transactions": page, "Code": 0, "Message": "Başarılı"}).to_string()
}
