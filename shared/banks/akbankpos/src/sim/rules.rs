//! What the simulated bank does with a request: the kit's order book for the money rules,
//! Akbank's codes for its refusals, and the order history it renders.
//!
//! | book refusal | txnCode | responseCode | responseMessage |
//! |---|---|---|---|
//! | unknown order, nothing to capture/void/refund, void after the end-of-day cut | 1005, 1003, 1002 | VPS-1007 | Orijinal işlem bulunamadı. |
//! | void of a voided order | 1003 | VPS-1008 | Daha önce iptal edilmiş işlem |
//! | amount above the pre-auth / the remaining amount, zero or unreadable amount | 1005, 1002 | VPS-1999 | Geçersiz tutar. (simulator code) |
//! | history of an unknown order | 1010 | VPS-1123 | İşlem bulunamadı. Sipariş Numarası : … |

use paygate_bankkit::{
    amount,
    sim::{OrderState, Refusal, SimOrder, SimTxn},
};
use serde_json::Value;

use super::AkbankSim;
use crate::request::{txn, Obj};

const OK: &str = "VPS-0000";
const NOT_FOUND: (&str, &str) = ("VPS-1007", "Orijinal işlem bulunamadı.");
const ALREADY_VOIDED: (&str, &str) = ("VPS-1008", "Daha önce iptal edilmiş işlem");
const BAD_AMOUNT: (&str, &str) = ("VPS-1999", "Geçersiz tutar.");

/// `txnDateTime` of business day `day` (day 0 = 2024-04-15, the MEWS fixtures' date).
pub fn txn_date_time(day: u32) -> String {
    let day = 15 + day % 14;
    format!("2024-04-{day:02}T12:00:00.000")
}

fn terminal(req: &Value) -> Obj {
    Obj::default()
        .str(
            "merchantSafeId",
            &crate::response::text(req, &["terminal", "merchantSafeId"]),
        )
        .str(
            "terminalSafeId",
            &crate::response::text(req, &["terminal", "terminalSafeId"]),
        )
}

fn refused(req: &Value, (code, message): (&str, &str)) -> String {
    let order_id = crate::response::text(req, &["order", "orderId"]);
    Obj::default()
        .str("txnCode", &crate::response::text(req, &["txnCode"]))
        .str("responseCode", code)
        .str("responseMessage", message)
        .obj("terminal", terminal(req))
        .obj("order", Obj::default().str("orderId", &order_id))
        .finish()
}

fn approved(req: &Value, t: &SimTxn, day: u32) -> String {
    let order_id = crate::response::text(req, &["order", "orderId"]);
    Obj::default()
        .str("txnCode", &crate::response::text(req, &["txnCode"]))
        .str("responseCode", OK)
        .str("responseMessage", "BAŞARILI")
        .str("hostResponseCode", "00")
        .str("hostMessage", "000 ONAY KODU XXXXXX")
        .str("txnDateTime", &txn_date_time(day))
        .obj("terminal", terminal(req))
        .obj("order", Obj::default().str("orderId", &order_id))
        .obj(
            "transaction",
            Obj::default()
                .str("authCode", &t.auth_code)
                .str("rrn", &t.rrn)
                .raw("batchNumber", "39")
                .raw("stan", (100 + t.rrn.len()).to_string()),
        )
        .finish()
}

/// `"1.02"`: digits, a dot, two decimals, above zero.
fn parse_amount(v: &Value) -> Option<i64> {
    let s = crate::response::text(v, &["transaction", "amount"]);
    let (int, frac) = s.split_once('.')?;
    (!int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.len() == 2
        && frac.bytes().all(|b| b.is_ascii_digit()))
    .then(|| amount::parse_decimal(&s))
    .flatten()
    .filter(|a| *a > 0)
}

/// Answers one authenticated money or history request of `terminal_id`.
pub(crate) fn handle(sim: &AkbankSim, terminal_id: &str, req: &Value) -> String {
    let order_id = crate::response::text(req, &["order", "orderId"]);
    let today = sim.state.book().today();
    match crate::response::text(req, &["txnCode"]).as_str() {
        txn::POST_AUTH => {
            let Some(amount) = parse_amount(req) else {
                return refused(req, BAD_AMOUNT);
            };
            match sim.state.book().postauth(terminal_id, &order_id, amount) {
                Ok(t) => approved(req, &t, today),
                Err(Refusal::AmountAbovePreauth | Refusal::ZeroAmount) => refused(req, BAD_AMOUNT),
                Err(_) => refused(req, NOT_FOUND),
            }
        }
        txn::VOID => {
            let mut book = sim.state.book();
            let (voided, capture_live) = book
                .get(terminal_id, &order_id)
                .map(|o| {
                    (
                        o.state == OrderState::Voided,
                        o.state == OrderState::Sale
                            && o.history.iter().any(|t| t.kind == "postauth" && !t.voided),
                    )
                })
                .unwrap_or((false, false));
            let done = if capture_live {
                book.reverse_capture(terminal_id, &order_id)
            } else {
                book.void(terminal_id, &order_id)
            };
            match done {
                Ok(t) => approved(req, &t, today),
                Err(_) if voided => refused(req, ALREADY_VOIDED),
                Err(_) => refused(req, NOT_FOUND),
            }
        }
        txn::REFUND => {
            let Some(amount) = parse_amount(req) else {
                return refused(req, BAD_AMOUNT);
            };
            match sim.state.book().refund(terminal_id, &order_id, amount) {
                Ok(t) => approved(req, &t, today),
                Err(Refusal::RefundAboveRemaining | Refusal::ZeroAmount) => {
                    refused(req, BAD_AMOUNT)
                }
                Err(_) => refused(req, NOT_FOUND),
            }
        }
        _ => history(sim, terminal_id, req, &order_id),
    }
}

fn history(sim: &AkbankSim, terminal_id: &str, req: &Value, order_id: &str) -> String {
    let hidden = sim.state.fault_plan().take_hidden(terminal_id, order_id);
    let order = if hidden {
        None
    } else {
        sim.state.book().get(terminal_id, order_id).cloned()
    };
    let Some(o) = order else {
        return refused(
            req,
            (
                "VPS-1123",
                &format!("İşlem bulunamadı. Sipariş Numarası : {order_id}"),
            ),
        );
    };
    let lines: Vec<String> = lines_of(&o);
    Obj::default()
        .str("txnCode", txn::ORDER_HISTORY)
        .obj("terminal", terminal(req))
        .raw("txnDetailList", format!("[{}]", lines.join(",")))
        .str("responseMessage", "BAŞARILI")
        .str("txnDateTime", &txn_date_time(o.day))
        .str("responseCode", OK)
        .finish()
}

/// The history lines of an order, oldest first (voids show as `txnStatus V` on what they
/// reversed, not as lines of their own).
fn lines_of(o: &SimOrder) -> Vec<String> {
    let base = |code: &str, amount: i64, day: u32| {
        Obj::default()
            .str("orderId", &o.order_id)
            .str("orgOrderId", &o.order_id)
            .str("txnCode", code)
            .raw("amount", amount::to_decimal(amount))
            .raw("currencyCode", o.currency.numeric())
            .str("maskedCardNumber", "521807******2834")
            .str("txnDateTime", &txn_date_time(day))
            .raw("installCount", "1")
    };
    if o.state == OrderState::Declined {
        return vec![base(txn::SALE, o.amount, o.day)
            .str("responseCode", "VPS-1005")
            .str("responseMessage", "Provizyon Hatası")
            .str("txnStatus", "N")
            .finish()];
    }
    let live_capture = o.history.iter().find(|t| t.kind == "postauth" && !t.voided);
    o.history
        .iter()
        .filter(|t| t.kind != "void")
        .map(|t| {
            let code = match t.kind {
                "preauth" => txn::PRE_AUTH,
                "postauth" => txn::POST_AUTH,
                "refund" => txn::REFUND,
                _ => txn::SALE,
            };
            let mut line = base(code, t.amount, t.day)
                .str("responseCode", OK)
                .str("responseMessage", "BAŞARILI")
                .str("hostResponseCode", "00")
                .str("authCode", &t.auth_code)
                .str("rrn", &t.rrn)
                .str("txnStatus", if t.voided { "V" } else { "N" });
            if t.kind == "preauth" {
                line = match live_capture {
                    Some(c) => line
                        .str("preAuthStatus", "C")
                        .raw("preAuthCloseAmount", amount::to_decimal(c.amount)),
                    None => line.str("preAuthStatus", "O"),
                };
            }
            line.finish()
        })
        .collect()
}
