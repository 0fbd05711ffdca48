//! The day history of the daily reconciliation: `POST <endpointUrl>/history` with an empty
//! `orderId`, `transactionDate` (`yyyyMMdd`, a number: "Sipariş tarihi integer olmalıdır"),
//! `page` (from 1) and `pageSize` — "Sipariş numarası boş gönderildiğinde o tarihteki tüm
//! siparişleri listeler" (the AKÖde SDK `alttantire/akode-payment-php-class`
//! `examples/history-order.php`, `Gateway::history`; the body's keys as MEWS
//! `ToslaPosRequestDataMapper::createOrderHistoryRequestData`).
//!
//! The answer (MEWS `orderHistoryDataProvider`): `Code` (`0` handled), `Count`,
//! `Transactions[]`, each a flat line like the inquiry's: `TransactionType` (`1` sale, `2`
//! pre-auth, `3` post-auth, `4` cancel, `5` refund; MEWS `txTypeMappings`), `Amount` (kuruş),
//! `OrderId`, `Code`, `BankResponseCode`, `HostReferenceNumber`, `TransactionId`.
//!
//! Lines: `3` → capture, `4` → cancel, `5` → refund, at their `Amount`; sales and
//! pre-authorizations are skipped. Approved: `Code 0` with `BankResponseCode 00`. Refused
//! (left out): a host refusal (`Code 0`, another `BankResponseCode`, not one after which
//! the host may have acted) or a refusal before processing or of the declined class
//! ([`crate::response::classify`]). Anything else on a money line — no code, `999`, a
//! `Code 0` without a host code, `68`/`91`/`96`, an unknown `TransactionType`, an unreadable
//! amount, no order id — makes the day unavailable.
//!
//! Paging: how `Count` counts (the day's total or the page's) and the largest `pageSize`
//! the API serves are not documented, so pages are read until one comes back empty; when
//! the first page's `Count` is above its own length it is the day's total, and the lines
//! read must come to exactly that. A failed, unreadable or missing page, or more than
//! [`MAX_PAGES`] pages, makes the whole day unavailable (never a shorter day).

use std::future::Future;

use paygate_bankkit::{Session, Verdict};
use paygate_domain::{
    daily::{BankLine, BusinessDay, DayHistory},
    TransactionType,
};
use serde_json::Value;

use crate::{
    request::Request,
    response::{classify, minor, text, Reply, HOST_MAY_HAVE_ACTED, OK},
    ToslaPos,
};

/// Lines asked for per page: the default of both reference clients (MEWS, the AKÖde SDK).
pub const PAGE_SIZE: u32 = 10;
/// Pages read at most for one day; a day with more is unavailable.
pub const MAX_PAGES: u32 = 500;

/// `transactionDate` of a business day (`yyyyMMdd` as a number).
pub fn transaction_date(day: BusinessDay) -> u32 {
    let (y, m, d) = day.ymd();
    u32::try_from(y).unwrap_or(0) * 10_000 + u32::from(m) * 100 + u32::from(d)
}

/// One page of a day's history, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// `Count` (absent: `None`).
    pub count: Option<u64>,
    /// How many transactions the page holds (every type).
    pub entries: u64,
    /// Its approved captures, cancels and refunds.
    pub lines: Vec<BankLine>,
}

/// A history line as one of ours, `None` for a line that is not (an authorization, a
/// refusal), or why it cannot be told.
fn read_line(v: &Value) -> Result<Option<BankLine>, String> {
    let kind = text(v, "TransactionType");
    let kind = match kind.as_str() {
        "1" | "2" => return Ok(None),
        "3" => TransactionType::Capture,
        "4" => TransactionType::Cancel,
        "5" => TransactionType::Refund,
        _ => return Err("a history line of an unknown transaction type".to_owned()),
    };
    let line = Reply(v.clone());
    let host = line.host_code();
    match classify(&line) {
        Verdict::Approved => {}
        Verdict::Declined | Verdict::Error => return Ok(None),
        Verdict::Unknown
            if line.code() == OK
                && !host.is_empty()
                && !HOST_MAY_HAVE_ACTED.contains(&host.as_str())
                && !line.names_system_error() =>
        {
            return Ok(None)
        }
        Verdict::Unknown => return Err(format!("a {kind:?} line in state {}", line.bank_code())),
    }
    let amount =
        minor(v, "Amount").ok_or_else(|| format!("a {kind:?} line without a readable amount"))?;
    let order_id = line.order_id();
    if order_id.is_empty() {
        return Err(format!("a {kind:?} line without an order id"));
    }
    Ok(Some(BankLine {
        order_id,
        kind,
        amount,
        rrn: line.reference(),
    }))
}

/// Reads one page's answer.
pub fn read_page(reply: &Reply) -> Result<Page, String> {
    let v = &reply.0;
    if reply.code() != OK {
        return Err(format!(
            "the day history was answered with code {}",
            reply.bank_code()
        ));
    }
    let count = match v.get("Count") {
        None | Some(Value::Null) => None,
        Some(_) => Some(
            minor(v, "Count")
                .and_then(|c| u64::try_from(c).ok())
                .ok_or_else(|| "an unreadable Count".to_owned())?,
        ),
    };
    let entries: &[Value] = match v.get("Transactions") {
        Some(Value::Array(a)) => a,
        None | Some(Value::Null) if count == Some(0) => &[],
        _ => return Err("a page without its Transactions".to_owned()),
    };
    let mut lines = Vec::new();
    for e in entries {
        if let Some(l) = read_line(e)? {
            lines.push(l);
        }
    }
    Ok(Page {
        count,
        entries: u64::try_from(entries.len()).unwrap_or(u64::MAX),
        lines,
    })
}

/// Every page of a day, from `page(1)` on, by the paging rules above.
pub async fn all_pages<F, Fut>(mut page: F) -> Result<Vec<BankLine>, String>
where
    F: FnMut(u32) -> Fut,
    Fut: Future<Output = Result<Page, String>>,
{
    let mut lines = Vec::new();
    let mut seen = 0u64;
    let mut total = None;
    for n in 1..=MAX_PAGES {
        let p = page(n).await?;
        if p.count.is_some_and(|c| c < p.entries) {
            return Err(format!("page {n} holds more lines than its Count"));
        }
        if p.entries == 0 {
            return match total {
                Some(t) if seen != t => Err(format!("{seen} lines read of the {t} counted")),
                _ => Ok(lines),
            };
        }
        if n == 1 {
            total = p.count.filter(|c| *c > p.entries);
        }
        seen += p.entries;
        lines.extend(p.lines);
        match total {
            Some(t) if seen > t => return Err(format!("more lines than the {t} counted")),
            Some(t) if seen == t => return Ok(lines),
            _ => {}
        }
    }
    Err(format!("more than {MAX_PAGES} pages"))
}

/// The day's approved captures, cancels and refunds at Tosla, every page.
pub async fn day_history(s: &Session<'_, ToslaPos>, day: BusinessDay) -> DayHistory {
    let date = transaction_date(day);
    let pages = all_pages(|page| async move {
        let req = Request::History {
            transaction_date: date,
            page,
            page_size: PAGE_SIZE,
        };
        match s.call(&req).await {
            Ok(reply) => read_page(&reply),
            Err(e) => Err(format!("page {page} could not be read ({})", e.code())),
        }
    })
    .await;
    match pages {
        Ok(lines) => DayHistory::Lines(lines),
        Err(reason) => DayHistory::Unavailable { reason },
    }
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
