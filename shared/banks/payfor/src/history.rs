//! The day history of the daily reconciliation: `SecureType=Report`, `TxnType=TxnHistory`
//! with `ReqDate` (`YYYYMMDD`) instead of an `OrderId` (MEWS `PayForPosRequestDataMapper::
//! createHistoryRequestData`), answered by the same `TxnHistoryReport` as the per-order
//! history, one `PaymentRequest` per transaction of the day, every order (MEWS fixture
//! `test_data/payfor/history/daily_history.json`). One day per request, no paging.
//!
//! A line is the bank's record of one request: `TxnType` `PostAuth` → capture, `Void` →
//! cancel (its `PurchAmount` is the reversed transaction's), `Refund` → refund; `Auth` and
//! `PreAuth` are authorizations (not this gateway's operations) and are skipped whatever
//! their state. Approved: `ProcReturnCode 00` with `TxnStatus Y`, or `V` (a capture or refund
//! voided later was still booked; its void is a line of its own). Refused: `TxnStatus N`
//! with a code of the declined class ([`crate::response::classify`]): skipped. Anything else
//! on a money line (in progress, a code after which the bank may have acted, an unknown
//! `TxnType`, an unreadable amount, no order id) makes the whole day unavailable.
//!
//! A report that is a single `TxnType TxnHistory` entry is the bank's error answer: `V013`
//! (`Seçili İşlem Bulunamadı!`, nothing found) is a day without transactions, any other
//! code unavailable.

use paygate_bankkit::{Session, Verdict};
use paygate_domain::{
    daily::{BankLine, BusinessDay, DayHistory},
    TransactionType,
};

use crate::{
    request::Request,
    response::{classify, Fields, Reply},
    status::NOT_FOUND,
    PayFor,
};

/// The `ReqDate` of a business day (`YYYYMMDD`).
pub fn req_date(day: BusinessDay) -> String {
    let (y, m, d) = day.ymd();
    format!("{y:04}{m:02}{d:02}")
}

/// What one line of the day is to the reconciliation.
enum Line {
    /// An approved capture, cancel or refund.
    Money(BankLine),
    /// An authorization, or a refused request: not listed.
    Skipped,
}

fn read_line(f: &Fields) -> Result<Line, String> {
    let txn = f.get("TxnType");
    let kind = match txn {
        "Auth" | "PreAuth" => return Ok(Line::Skipped),
        "PostAuth" => TransactionType::Capture,
        "Void" => TransactionType::Cancel,
        "Refund" => TransactionType::Refund,
        _ => return Err("a history line of an unknown transaction type".to_owned()),
    };
    let (code, status) = (f.code(), f.get("TxnStatus"));
    let approved = code == "00" && matches!(status, "Y" | "V");
    let refused = status == "N" && code != "00" && classify(code) == Verdict::Declined;
    if refused {
        return Ok(Line::Skipped);
    }
    if !approved {
        return Err(format!(
            "a {txn} line in state {}/{}",
            f.bank_code(),
            status
        ));
    }
    let amount = f
        .amount("PurchAmount")
        .filter(|a| *a >= 0)
        .ok_or_else(|| format!("a {txn} line without a readable amount"))?;
    let order_id = [f.get("OrderId"), f.get("OrgOrderId")]
        .into_iter()
        .find(|s| !s.is_empty())
        .ok_or_else(|| format!("a {txn} line without an order id"))?;
    Ok(Line::Money(BankLine {
        order_id: order_id.to_owned(),
        kind,
        amount,
        rrn: f.get("HostRefNum").to_owned(),
    }))
}

/// Reads a day's `TxnHistory` answer: the approved captures, cancels and refunds, or why the
/// day cannot be told (a short reason without the bank's text).
pub fn read_day(reply: &Reply) -> Result<Vec<BankLine>, String> {
    if reply.root != "TxnHistoryReport" {
        return Err(format!(
            "the day history was answered with code {}",
            reply.fields.bank_code()
        ));
    }
    if let [only] = reply.history.as_slice() {
        if only.get("TxnType") == "TxnHistory" {
            return match only.code() {
                NOT_FOUND => Ok(Vec::new()),
                _ => Err(format!(
                    "the day history was refused with code {}",
                    only.bank_code()
                )),
            };
        }
    }
    let mut lines = Vec::new();
    for f in &reply.history {
        if let Line::Money(l) = read_line(f)? {
            lines.push(l);
        }
    }
    Ok(lines)
}

/// The day's approved captures, cancels and refunds at the bank (one request).
pub async fn day_history(s: &Session<'_, PayFor>, day: BusinessDay) -> DayHistory {
    let req = Request::DayHistory {
        req_date: req_date(day),
    };
    match s.call(&req).await {
        Ok(reply) => match read_day(&reply) {
            Ok(lines) => DayHistory::Lines(lines),
            Err(reason) => DayHistory::Unavailable { reason },
        },
        Err(e) => DayHistory::Unavailable {
            reason: format!("the day history could not be read ({})", e.code()),
        },
    }
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
