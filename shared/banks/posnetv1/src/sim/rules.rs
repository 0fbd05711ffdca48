//! What the simulated bank does with a request: the kit's order book for the money rules,
//! the PosNet codes for its refusals (texts of Yapı Kredi's PosNet document, whose codes the
//! V1 answers carry), and the inquiry it renders.
//!
//! | book refusal | request | ResponseCode | ResponseDescription |
//! |---|---|---|---|
//! | no transaction with that `ReferenceCode` and `TransactionType` | all | 0123 | ORJINAL ISLEM BULUNAMADI |
//! | capture of a closed or reversed authorization | Capture | 0015 | PROVIZYON BULUNAMADI |
//! | amount above the authorization / the remaining amount, zero, unreadable | Capture, Return | 0205 | GECERSIZ TUTAR |
//! | reverse of a reversed transaction | Reverse | 0220 | IPTAL ISLEMI YAPILMIS |
//! | reverse after the end-of-day cut | Reverse | 0211 | GRUP KAPAMA YAPILMIS |
//! | reverse of an authorization whose capture is live | Reverse | 0788 | FINANSAL ISLEM YAPILMIS |
//! | return on the transaction's own business day | Return | 0411 | ISLEM HENUZ FINANSALLASMAMIS |
//! | reverse of a refunded sale, return of nothing sold | Reverse, Return | 0200 | GECERSIZ ISLEM |
//! | inquiry of an unknown (or declined) order | TransactionInquiry | E219 | Kayıt Bulunamadı |

use paygate_bankkit::sim::{OrderState, Refusal, SimOrder, SimTxn};
use serde_json::{json, Value};

use super::PosNetV1Sim;
use crate::{
    request::Kind,
    response::{codes, text, APPROVED, INQUIRY_OK, NO_RECORD},
};

type Code = (&'static str, &'static str);

pub const DB_ERROR: Code = (codes::DB_ERROR, "DB ERROR");
const NOT_FOUND: Code = (codes::NOT_FOUND, "ORJINAL ISLEM BULUNAMADI");
const NO_PREAUTH: Code = (codes::NO_PREAUTH, "PROVIZYON BULUNAMADI");
const BAD_AMOUNT: Code = (codes::INVALID_AMOUNT, "GECERSIZ TUTAR");
const REVERSED: Code = (codes::ALREADY_REVERSED, "IPTAL ISLEMI YAPILMIS");
const BATCH_CLOSED: Code = (codes::BATCH_CLOSED, "GRUP KAPAMA YAPILMIS");
const CAPTURED: Code = (codes::ALREADY_CAPTURED, "FINANSAL ISLEM YAPILMIS");
const NOT_SETTLED: Code = (codes::NOT_SETTLED, "ISLEM HENUZ FINANSALLASMAMIS");
const INVALID: Code = (codes::INVALID_OPERATION, "GECERSIZ ISLEM");

/// A refusal: nothing applied.
pub fn refused((code, text): Code) -> String {
    json!({
        "ServiceResponseData": {"ResponseCode": code, "ResponseDescription": text},
        "AuthCode": null,
        "ReferenceCode": null,
        "PointDataList": null,
        "InstallmentData": null,
        "MessageData": null,
    })
    .to_string()
}

fn approved(t: &SimTxn) -> String {
    json!({
        "ServiceResponseData": {"ResponseCode": APPROVED, "ResponseDescription": "Onaylandı"},
        "AuthCode": t.auth_code,
        "ReferenceCode": t.rrn,
        "PointDataList": null,
        "InstallmentData": {"InstallmentCount": "0"},
        "MessageData": null,
    })
    .to_string()
}

/// The book's kind of a transaction as the bank names it.
fn kind_of(book_kind: &str) -> Kind {
    match book_kind {
        "preauth" => Kind::Auth,
        "postauth" => Kind::Capture,
        "void" => Kind::Reverse,
        "refund" => Kind::Return,
        _ => Kind::Sale,
    }
}

/// A positive integer amount in kuruş.
fn amount(req: &Value) -> Option<i64> {
    req.get("Amount").and_then(Value::as_i64).filter(|a| *a > 0)
}

/// Answers one authenticated money request of `terminal` to `path`.
pub(crate) fn money(sim: &PosNetV1Sim, terminal: &str, path: &str, req: &Value) -> String {
    let reference = text(req, &["ReferenceCode"]);
    let mut book = sim.state.book();
    let Some((order, txn)) = book
        .find_by_rrn(terminal, &reference)
        .map(|(o, t)| (o.clone(), t.clone()))
    else {
        return refused(NOT_FOUND);
    };
    let kind = kind_of(txn.kind);
    let id = order.order_id.as_str();
    let done = match path {
        "Capture" => {
            if kind != Kind::Auth {
                return refused(NOT_FOUND);
            }
            let Some(a) = amount(req) else {
                return refused(BAD_AMOUNT);
            };
            book.postauth(terminal, id, a)
        }
        "Reverse" => {
            if text(req, &["TransactionType"]) != kind.name()
                || !matches!(kind, Kind::Sale | Kind::Auth | Kind::Capture)
            {
                return refused(NOT_FOUND);
            }
            if txn.voided {
                return refused(REVERSED);
            }
            let live_capture = order
                .history
                .iter()
                .any(|t| t.kind == "postauth" && !t.voided);
            match kind {
                Kind::Capture => book.reverse_capture(terminal, id),
                Kind::Auth if live_capture => return refused(CAPTURED),
                _ => book.void(terminal, id),
            }
        }
        _ => {
            if text(req, &["TransactionType"]) != kind.name()
                || !matches!(kind, Kind::Sale | Kind::Capture)
                || txn.voided
            {
                return refused(NOT_FOUND);
            }
            let Some(a) = amount(req) else {
                return refused(BAD_AMOUNT);
            };
            book.refund(terminal, id, a)
        }
    };
    match done {
        Ok(t) => approved(&t),
        Err(Refusal::NoOpenPreauth) => refused(NO_PREAUTH),
        Err(Refusal::AmountAbovePreauth | Refusal::ZeroAmount | Refusal::RefundAboveRemaining) => {
            refused(BAD_AMOUNT)
        }
        Err(Refusal::AfterEndOfDay) => refused(BATCH_CLOSED),
        Err(Refusal::RefundBeforeEndOfDay) => refused(NOT_SETTLED),
        Err(Refusal::NotFound) => refused(NOT_FOUND),
        Err(_) => refused(INVALID),
    }
}

/// The order id as the book keys it: without a `TDS_` prefix and leading zeros.
fn bare(id: &str) -> &str {
    id.strip_prefix("TDS_")
        .unwrap_or(id)
        .trim_start_matches('0')
}

/// Answers an authenticated inquiry of `terminal`.
pub(crate) fn inquiry(sim: &PosNetV1Sim, terminal: &str, req: &Value) -> String {
    let wanted = text(req, &["OrderId"]);
    let order = {
        let book = sim.state.book();
        let found = book
            .orders()
            .find(|(c, o)| {
                *c == terminal && !wanted.is_empty() && bare(&o.order_id) == bare(&wanted)
            })
            .map(|(_, o)| o.clone());
        found
    };
    let today = sim.state.book().today();
    let order = order.filter(|o| {
        !sim.state.fault_plan().take_hidden(terminal, &o.order_id)
            && o.state != OrderState::Declined
            && !o.history.is_empty()
    });
    let Some(o) = order else {
        return json!({
            "ServiceResponseData": {"ResponseCode": NO_RECORD, "ResponseDescription": "Kayıt Bulunamadı"},
            "AuthCode": null,
            "ReferenceCode": null,
            "TransactionData": null,
        })
        .to_string();
    };
    json!({
        "ServiceResponseData": {"ResponseCode": INQUIRY_OK, "ResponseDescription": "Başarılı"},
        "TransactionData": lines_of(&o, today, &wanted),
    })
    .to_string()
}

/// `TransactionDate` of the `i`-th transaction on business day `day` (day 0 = 2024-04-15).
fn date(day: u32, i: usize) -> String {
    format!(
        "2024-04-{:02}12:{:02}:{:02}.000",
        15 + day % 14,
        (i / 60) % 60,
        i % 60
    )
}

/// Kuruş as TL with a decimal comma and thousands dots: `123456` → `1.234,56`.
pub fn tl(minor: i64) -> String {
    let int = (minor / 100).to_string();
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i).is_multiple_of(3) {
            grouped.push('.');
        }
        grouped.push(c);
    }
    format!("{grouped},{:02}", minor % 100)
}

/// The order's lines, newest first. `TransactionStatus` is `1` for a reversed transaction
/// and for one settled by an end of day, `0` otherwise.
fn lines_of(o: &SimOrder, today: u32, order_id: &str) -> Vec<Value> {
    o.history
        .iter()
        .enumerate()
        .rev()
        .map(|(i, t)| {
            let settled = t.day < today && t.kind != "preauth";
            json!({
                "Amount": tl(t.amount),
                "AuthCode": t.auth_code,
                "CardNo": "540061******4581",
                "CurrencyCode": crate::request::currency_code(o.currency),
                "HostLogKey": t.rrn,
                "OrderId": order_id,
                "TransactionDate": date(t.day, i),
                "TransactionStatus": if t.voided || settled { "1" } else { "0" },
                "TransactionType": kind_of(t.kind).name(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_and_ids() {
        assert_eq!(tl(123_456), "1.234,56");
        assert_eq!(tl(175), "1,75");
        assert_eq!(tl(100_000_000), "1.000.000,00");
        assert_eq!(
            crate::status::tl_amount(&tl(123_456_789)),
            Some(123_456_789)
        );
        assert_eq!(bare("TDS_000000002020110828BC"), "2020110828BC");
        assert_eq!(bare("00PGAB"), "PGAB");
        assert_eq!(date(1, 61), "2024-04-1612:01:01.000");
    }
}
