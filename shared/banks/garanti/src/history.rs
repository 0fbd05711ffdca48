//! The daily reconciliation's read of the bank (`PosProvider::day_history`): `orderlistinq`,
//! GVPS's "date range inquiry", lists every transaction of the terminal between
//! `Order/StartDate` and `Order/EndDate` (`dd/MM/yyyy HH:mm`, at most 30 days), 500 a page
//! (`Order/ListPageNum` from 1). The answer's
//! `Order/OrderListInqResult/OrderTxnList{TotalTxnCount, TotalPageCount, ActPageNum, OrderTxn*}`
//! carries one `OrderTxn` per transaction: `TrxType` (`Satis`, `On Otorizasyon`,
//! `On Otorizasyon Kapama`, `Iptal`, `Iade`), `ResponseCode` (`00` approved), `Status`
//! (`Basarili`, `Onaylandi`, `Iptal` = voided since, `Basarisiz`), `AuthAmount` (kuruş),
//! `LastTrxDate` (`yyyy-MM-dd HH:mm:ss`), `OrderID`, `RetrefNum`.
//!
//! A day is asked as `D 00:00` to `D+1 00:00` and lines dated on another day (the end's
//! minute) are left out, so no second of the day falls between two requests. Every page is
//! read and the lines counted against `TotalTxnCount`; anything unreadable, a failed page or
//! a count that does not add up is [`DayHistory::Unavailable`], never a shorter day.

use paygate_bankkit::{amount::parse_minor, xml::Element, Session, Verdict};
use paygate_domain::{
    daily::{BankLine, BusinessDay, DayHistory},
    Currency, TransactionType,
};

use crate::{
    request::{ListRange, Request, TxnType, FIXED_AMOUNT},
    response::GvpsResponse,
    Garanti, GarantiConfig,
};

/// Most pages read for one day (500 lines each): more is refused, not truncated.
pub const MAX_PAGES: u32 = 200;

/// `dd/MM/yyyy HH:mm` of midnight starting `day`.
fn midnight(day: BusinessDay) -> String {
    let (y, m, d) = day.ymd();
    format!("{d:02}/{m:02}/{y:04} 00:00")
}

/// The `orderlistinq` of `day`'s page `page`.
pub fn list_request(cfg: &GarantiConfig, day: BusinessDay, page: u32) -> Request<'_> {
    let mut req = cfg.request(
        TxnType::OrderListInq,
        "",
        FIXED_AMOUNT.to_owned(),
        Currency::Try,
    );
    req.list = Some(ListRange {
        start: midnight(day),
        end: midnight(day.next()),
        page,
    });
    req
}

/// What one page of the list said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedPage {
    pub total_txns: u64,
    pub total_pages: u32,
    /// Every `OrderTxn` on the page, read or left out.
    pub count: u64,
    /// The approved captures, cancels and refunds of the day on the page.
    pub lines: Vec<BankLine>,
}

fn text(e: &Element, name: &str) -> String {
    e.text_at(&[name]).unwrap_or_default().trim().to_owned()
}

/// A GVPS word without Turkish letters, case or double spaces (`Ön Otorizasyon` is
/// `on otorizasyon`): the fixtures spell them in ASCII, a Latin-5 answer may not.
fn folded(s: &str) -> String {
    let ascii: String = s
        .chars()
        .map(|c| match c {
            'İ' | 'ı' => 'i',
            'Ö' | 'ö' => 'o',
            'Ü' | 'ü' => 'u',
            'Ş' | 'ş' => 's',
            'Ç' | 'ç' => 'c',
            'Ğ' | 'ğ' => 'g',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    ascii.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The gateway's operation of a `TrxType`: `Ok(None)` for authorizations (not ours), `Err`
/// for a type this reader does not know.
fn kind(trx_type: &str) -> Result<Option<TransactionType>, String> {
    match folded(trx_type).as_str() {
        "satis" | "on otorizasyon" => Ok(None),
        "on otorizasyon kapama" => Ok(Some(TransactionType::Capture)),
        "iptal" => Ok(Some(TransactionType::Cancel)),
        "iade" => Ok(Some(TransactionType::Refund)),
        _ => Err("unknown TrxType".to_owned()),
    }
}

/// One `OrderTxn`: `Ok(None)` when it is declined, of another day or an authorization.
fn line(t: &Element, day: BusinessDay) -> Result<Option<BankLine>, String> {
    let code = text(t, "ResponseCode");
    if code.is_empty() {
        return Err("OrderTxn without ResponseCode".to_owned());
    }
    if code != "00" {
        return Ok(None);
    }
    let date = text(t, "LastTrxDate");
    let on = date
        .get(..10)
        .and_then(BusinessDay::parse)
        .ok_or_else(|| "unreadable LastTrxDate".to_owned())?;
    if on != day {
        return Ok(None);
    }
    if !matches!(
        folded(&text(t, "Status")).as_str(),
        "basarili" | "onaylandi" | "iptal"
    ) {
        return Err("approved OrderTxn with another Status".to_owned());
    }
    let Some(kind) = kind(&text(t, "TrxType"))? else {
        return Ok(None);
    };
    let amount = parse_minor(&text(t, "AuthAmount")).ok_or("unreadable AuthAmount")?;
    let order_id = text(t, "OrderID");
    if order_id.is_empty() {
        return Err("OrderTxn without OrderID".to_owned());
    }
    Ok(Some(BankLine {
        order_id,
        kind,
        amount,
        rrn: text(t, "RetrefNum"),
    }))
}

fn count<T: std::str::FromStr>(list: &Element, name: &str) -> Result<T, String> {
    text(list, name)
        .parse()
        .map_err(|_| format!("unreadable {name}"))
}

/// Reads page `page` of an approved `orderlistinq` answer for `day`.
pub fn parse_page(resp: &GvpsResponse, day: BusinessDay, page: u32) -> Result<ListedPage, String> {
    let list = resp
        .root
        .at(&["Order", "OrderListInqResult", "OrderTxnList"])
        .ok_or_else(|| "no OrderTxnList".to_owned())?;
    let total_txns: u64 = count(list, "TotalTxnCount")?;
    let total_pages: u32 = if total_txns == 0 && text(list, "TotalPageCount").is_empty() {
        0
    } else {
        count(list, "TotalPageCount")?
    };
    let txns: Vec<&Element> = list.children_named("OrderTxn").collect();
    if !txns.is_empty() && count::<u32>(list, "ActPageNum")? != page {
        return Err("another page than asked".to_owned());
    }
    let mut lines = Vec::new();
    for t in &txns {
        lines.extend(line(t, day)?);
    }
    Ok(ListedPage {
        total_txns,
        total_pages,
        count: txns.len() as u64,
        lines,
    })
}

/// The pages of one day, read in order: what the next page is, and whether they add up.
#[derive(Debug, Default)]
pub struct Pages {
    /// `(TotalTxnCount, TotalPageCount)` of the first page.
    totals: Option<(u64, u32)>,
    seen: u64,
    lines: Vec<BankLine>,
}

impl Pages {
    /// Takes page `page` (1, 2, … in order): the next page to ask for, if any.
    pub fn take(&mut self, page: u32, p: ListedPage) -> Result<Option<u32>, String> {
        let totals = *self.totals.get_or_insert((p.total_txns, p.total_pages));
        if totals != (p.total_txns, p.total_pages) {
            return Err("the list changed between pages".to_owned());
        }
        if totals.1 > MAX_PAGES {
            return Err("too many pages".to_owned());
        }
        self.seen += p.count;
        self.lines.extend(p.lines);
        Ok((page < totals.1).then_some(page + 1))
    }

    /// The day's lines, once every line the bank counted has been read.
    pub fn finish(self) -> Result<Vec<BankLine>, String> {
        match self.totals {
            Some((total, _)) if total == self.seen => Ok(self.lines),
            Some(_) => Err("a page is missing lines".to_owned()),
            None => Err("no page read".to_owned()),
        }
    }
}

fn unavailable(reason: impl Into<String>) -> DayHistory {
    DayHistory::Unavailable {
        reason: reason.into(),
    }
}

/// Every page of `day`'s list.
pub(crate) async fn day_history(s: &Session<'_, Garanti>, day: BusinessDay) -> DayHistory {
    let mut pages = Pages::default();
    let mut page = 1;
    loop {
        let resp = match s.call(&list_request(s.config(), day, page)).await {
            Ok(r) if r.verdict() == Verdict::Approved => r,
            Ok(r) => return unavailable(format!("bank:{}", r.bank_code())),
            Err(e) => return unavailable(e.code()),
        };
        let next = parse_page(&resp, day, page).and_then(|p| pages.take(page, p));
        match next {
            Ok(Some(n)) => page = n,
            Ok(None) => break,
            Err(why) => return unavailable(why),
        }
    }
    match pages.finish() {
        Ok(lines) => DayHistory::Lines(lines),
        Err(why) => unavailable(why),
    }
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
