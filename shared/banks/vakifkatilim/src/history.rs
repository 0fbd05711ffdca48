//! The daily reconciliation's read of the bank (`PosProvider::day_history`): `SelectOrder`
//! over the day, every page, its approved closes, reversals and refunds as [`BankLine`]s.
//!
//! `SelectOrder` lists one `OrderContract` per transaction (MEWS fixture
//! `test_data/vakifkatilimpos/history/success_history.json`: a sale and its reversal are two
//! entries of the same `MerchantOrderId`), each with its own time (`OrderDate`), type
//! (`OrderStatus`), result (`ResponseCode`, `TransactionStatus`) and amount (`TranAmount`).
//!
//! | `OrderStatus` | line |
//! |---|---|
//! | `1` sale, `2` pre-authorization | not listed (no operation of ours) |
//! | `3` pre-authorization close | `capture` |
//! | `6` reversal (İptal) | `cancel` |
//! | `4` refund (İade), `5` partial refund | `refund` |
//! | anything else | the day is unavailable |
//!
//! A line is approved with `ResponseCode 00` and `TransactionStatus 1`, declined (left out)
//! with `TransactionStatus 2` and a code other than `00`; any other pair (e.g. `0` with no
//! code: not finished), an unreadable `TranAmount` or `OrderDate`, or a line without its
//! order makes the day unavailable: "could not tell" is never "did not happen".

use paygate_bankkit::{amount, Session};
use paygate_domain::{
    daily::{BankLine, BusinessDay, DayHistory},
    TransactionType,
};

use crate::{
    request::Request,
    response::{Fields, Reply},
    status, VakifKatilim,
};

/// Entries asked per page (`UpperLimit`; MEWS's order history asks 100).
pub const PAGE_SIZE: u32 = 100;
/// Pages read at most for one day (20 000 entries); more is unavailable, never a cut list.
pub const MAX_PAGES: u32 = 200;

/// The request's range for `day`: `StartDate` the day, `EndDate` the next day. Whether the
/// bank's `EndDate` is inclusive is not in the public sources (MEWS's vector asks
/// `2024-03-30`..`2024-03-31`), so the range covers the day either way and the lines are
/// kept by their own `OrderDate`.
pub fn range(day: BusinessDay) -> (String, String) {
    (day.to_string(), day.next().to_string())
}

/// What one entry of a page is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// An approved capture, cancel or refund of the day.
    Line(BankLine),
    /// A sale or pre-authorization, a declined line, or a line of another day.
    Other,
}

/// Reads one `OrderContract` entry for `day`; `Err` names what could not be read.
pub fn read_entry(f: &Fields, day: BusinessDay) -> Result<Entry, String> {
    let kind = match f.get("OrderStatus") {
        "1" | "2" => return Ok(Entry::Other),
        "3" => TransactionType::Capture,
        "6" => TransactionType::Cancel,
        "4" | "5" => TransactionType::Refund,
        _ => return Err("a line of unknown type (OrderStatus)".to_owned()),
    };
    let date = f
        .get("OrderDate")
        .get(..10)
        .and_then(BusinessDay::parse)
        .ok_or("a line without a readable date (OrderDate)")?;
    if date != day {
        return Ok(Entry::Other);
    }
    match (f.code(), f.get("TransactionStatus")) {
        ("00", "1") => {}
        (code, "2") if !code.is_empty() && code != "00" => return Ok(Entry::Other),
        _ => {
            return Err(
                "a line whose result cannot be read (ResponseCode, TransactionStatus)".to_owned(),
            )
        }
    }
    let amount = amount::parse_decimal(f.get("TranAmount"))
        .filter(|a| *a > 0)
        .ok_or("a line without a readable amount (TranAmount)")?;
    let order_id = f.get("MerchantOrderId");
    if order_id.is_empty() {
        return Err("a line without its order (MerchantOrderId)".to_owned());
    }
    Ok(Entry::Line(BankLine {
        order_id: order_id.to_owned(),
        kind,
        amount,
        rrn: f.get("RRN").to_owned(),
    }))
}

/// One page read: how many entries it held, and the day's lines among them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Page {
    pub entries: usize,
    pub lines: Vec<BankLine>,
}

/// Reads one `SelectOrder` answer: `00` with its `VPosOrderData` is a page, `NonResult` an
/// empty one (past the last entry), anything else (`00` without its data, another code, a
/// money answer) is unavailable.
pub fn read_page(reply: &Reply, day: BusinessDay) -> Result<Page, String> {
    match reply.fields.code() {
        "00" if reply.order_data => {
            let mut page = Page {
                entries: reply.orders.len(),
                lines: Vec::new(),
            };
            for f in &reply.orders {
                if let Entry::Line(l) = read_entry(f, day)? {
                    page.lines.push(l);
                }
            }
            Ok(page)
        }
        "00" => Err("a history page without its data (VPosOrderData)".to_owned()),
        status::NOT_FOUND => Ok(Page::default()),
        _ => Err(format!(
            "the history page was refused ({})",
            reply.fields.bank_code()
        )),
    }
}

/// The day's approved captures, cancels and refunds at the bank, every page. Pages are read
/// from the entries received so far (`LowerLimit`) until one comes back empty, so a bank that
/// answers fewer entries than asked skips none of them; any failed page makes the whole day
/// unavailable.
pub async fn day_history(s: &Session<'_, VakifKatilim>, day: BusinessDay) -> DayHistory {
    let (start, end) = range(day);
    let mut lines = Vec::new();
    let mut seen: u32 = 0;
    for _ in 0..MAX_PAGES {
        let req = Request::History {
            start: &start,
            end: &end,
            lower: seen,
            limit: PAGE_SIZE,
        };
        let page = match s.call(&req).await {
            Ok(reply) => read_page(&reply, day),
            Err(e) => Err(format!("the history page could not be read ({})", e.code())),
        };
        match page {
            Ok(p) if p.entries == 0 => return DayHistory::Lines(lines),
            Ok(p) => {
                seen = seen.saturating_add(u32::try_from(p.entries).unwrap_or(u32::MAX));
                lines.extend(p.lines);
            }
            Err(reason) => return DayHistory::Unavailable { reason },
        }
    }
    DayHistory::Unavailable {
        reason: format!("the day has more than {MAX_PAGES} pages of history"),
    }
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
