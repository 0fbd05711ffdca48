//! The daily reconciliation's read of the bank (`PosProvider::day_history`): the date-range
//! report, `POST <base>/portal/report/transaction` with `terminal`, `randomNumber` and
//! `report{startDateTime, endDateTime}` (`Y-m-d\TH:i:s.000`, at most a day apart; MEWS
//! `createHistoryRequestData`, `AkbankPos::getRequestURIByTransactionType`). The answer's
//! `responseCode` is `VPS-0000`; its `data` is base64 of a gzip member holding
//! `{txnDateTime, terminal, txnDetailList[]}` (MEWS `AkbankPosSerializer::decode`). No paging:
//! one answer per range (a range over 9 999 records is refused, `VPS-2235`).
//!
//! Each line has `txnCode` (`1000` sale, `1004` pre-auth, `1005` post-auth, `1002` refund,
//! `1003` void), `responseCode`, `txnStatus` in words (`Başarılı`, `Başarısız`, `İptal` =
//! voided since, `Teknik İptal` = reversed by the bank, without `responseCode`), `amount` (a
//! JSON number, TL), `txnDateTime`, `orderId` and `orgOrderId` (a post-auth line has its own
//! `orderId`; `orgOrderId` is the order's), `rrn` (MEWS `history/daily_history*.json`).
//!
//! A void has no line of its own in MEWS's fixtures: what it reversed shows `İptal`. So an
//! approved line marked `İptal` is the day's operation (when it is ours) *and* a cancel of
//! the order (a `1003` line, if the bank lists one, is a cancel too; the matcher takes one
//! cancel per order). A day is asked as `D 00:00` to `D+1 00:00` and lines dated on another
//! day are left out. Anything unreadable is [`DayHistory::Unavailable`], never a shorter day.

use base64::Engine;
use paygate_bankkit::{Session, Verdict};
use paygate_domain::{
    daily::{BankLine, BusinessDay, DayHistory},
    TransactionType,
};
use serde_json::Value;

use crate::{
    gzip,
    request::{txn, Request},
    response::{amount_of, classify, text, Reply, APPROVED},
    status::complete,
    AkbankPos,
};

/// The most a decompressed report may hold (9 999 lines are about 8 MB of JSON).
pub const MAX_REPORT_BYTES: usize = 64 << 20;

/// `Y-m-d\TH:i:s.000` of midnight starting `day`.
fn midnight(day: BusinessDay) -> String {
    let (y, m, d) = day.ymd();
    format!("{y:04}-{m:02}-{d:02}T00:00:00.000")
}

/// The report request of `day`.
pub fn day_request(day: BusinessDay) -> Request<'static> {
    Request::Report {
        start: midnight(day),
        end: midnight(day.next()),
    }
}

/// A status or type word without Turkish letters, case or double spaces.
fn folded(s: &str) -> String {
    let ascii: String = s
        .chars()
        .map(|c| match c {
            'İ' | 'ı' => 'i',
            'Ş' | 'ş' => 's',
            'Ç' | 'ç' => 'c',
            'Ğ' | 'ğ' => 'g',
            'Ö' | 'ö' => 'o',
            'Ü' | 'ü' => 'u',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    ascii.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The lines one report line stands for (none, its own, a cancel, or both).
fn lines_of(v: &Value, day: BusinessDay) -> Result<Vec<BankLine>, String> {
    let status = folded(&text(v, &["txnStatus"]));
    if text(v, &["responseCode"]) != APPROVED {
        // Refused, or reversed by the bank: nothing moved.
        return match status.as_str() {
            "basarisiz" | "teknik iptal" | "" => Ok(Vec::new()),
            _ => Err("refused line with a successful txnStatus".to_owned()),
        };
    }
    if classify(&Reply(v.clone())) != Verdict::Approved {
        return Err("approved line the host contradicts".to_owned());
    }
    let voided = match status.as_str() {
        "basarili" => false,
        "iptal" => true,
        _ => return Err("approved line with another txnStatus".to_owned()),
    };
    let on = text(v, &["txnDateTime"])
        .get(..10)
        .and_then(BusinessDay::parse)
        .ok_or_else(|| "unreadable txnDateTime".to_owned())?;
    if on != day {
        return Ok(Vec::new());
    }
    let kind = match text(v, &["txnCode"]).as_str() {
        txn::SALE | "3000" | txn::PRE_AUTH | "3004" => None,
        txn::POST_AUTH => Some(TransactionType::Capture),
        txn::REFUND => Some(TransactionType::Refund),
        txn::VOID => Some(TransactionType::Cancel),
        _ => return Err("unknown txnCode".to_owned()),
    };
    let amount = amount_of(v, "amount").ok_or("unreadable amount")?;
    let order_id = [text(v, &["orgOrderId"]), text(v, &["orderId"])]
        .into_iter()
        .find(|s| !s.is_empty())
        .ok_or("line without orderId")?;
    let line = |kind| BankLine {
        order_id: order_id.clone(),
        kind,
        amount,
        rrn: text(v, &["rrn"]),
    };
    let mut out: Vec<BankLine> = kind.into_iter().map(line).collect();
    if voided && kind != Some(TransactionType::Cancel) {
        out.push(line(TransactionType::Cancel));
    }
    Ok(out)
}

/// The report's list: `data` as base64 of a gzip member (or, read as well, an object).
fn data_of(reply: &Reply) -> Result<Value, String> {
    match reply.0.get("data") {
        Some(Value::String(b64)) => {
            let zipped = base64::engine::general_purpose::STANDARD
                .decode(b64.trim())
                .map_err(|_| "data is not base64".to_owned())?;
            let json = gzip::gunzip(&zipped, MAX_REPORT_BYTES).map_err(|e| format!("data: {e}"))?;
            serde_json::from_slice(&json).map_err(|_| "data is not JSON".to_owned())
        }
        Some(v @ Value::Object(_)) => Ok(v.clone()),
        _ => Err("no data".to_owned()),
    }
}

/// The day's lines of an approved report answer.
pub fn parse_report(reply: &Reply, day: BusinessDay) -> Result<Vec<BankLine>, String> {
    let data = data_of(reply)?;
    let list = data
        .get("txnDetailList")
        .and_then(Value::as_array)
        .ok_or_else(|| "no txnDetailList".to_owned())?;
    complete(&reply.0, list.len())?;
    complete(&data, list.len())?;
    let mut out = Vec::new();
    for v in list {
        out.extend(lines_of(v, day)?);
    }
    Ok(out)
}

/// The report of `day`.
pub(crate) async fn day_history(s: &Session<'_, AkbankPos>, day: BusinessDay) -> DayHistory {
    let reason = match s.call(&day_request(day)).await {
        Ok(r) if classify(&r) == Verdict::Approved => match parse_report(&r, day) {
            Ok(lines) => return DayHistory::Lines(lines),
            Err(why) => why,
        },
        Ok(r) => format!("bank:{}", r.bank_code()),
        Err(e) => e.code().to_owned(),
    };
    DayHistory::Unavailable { reason }
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
