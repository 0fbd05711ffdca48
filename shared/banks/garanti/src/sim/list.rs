//! `orderlistinq`, the date range inquiry, from the book's dated history
//! ([`OrderBook::booked_on`](paygate_bankkit::sim::OrderBook::booked_on)): every transaction
//! of the terminal between `StartDate` and `EndDate` (`dd/MM/yyyy HH:mm`, at most 30 days),
//! [`LIST_PAGE_SIZE`] a page. The simulated bank books each transaction at noon of its
//! business day.

use paygate_bankkit::sim::SimTxn;
use paygate_domain::daily::BusinessDay;

use super::{
    wire::{ListLine, ListView},
    Sim,
};

/// Lines a page holds: GVPS pages by 500; the simulator by 3, so that paging is exercised.
pub const LIST_PAGE_SIZE: usize = 3;
/// The longest range GVPS lists (MEWS: "en fazla 30 gün").
pub const MAX_RANGE_DAYS: usize = 30;
/// The minute of its day the simulator books a transaction at.
const NOON: u16 = 12 * 60;

/// `dd/MM/yyyy HH:mm` as a day and a minute of it.
pub fn parse_at(s: &str) -> Option<(BusinessDay, u16)> {
    let (date, time) = s.trim().split_once(' ')?;
    let mut d = date.split('/');
    let (dd, mm, yyyy) = (d.next()?, d.next()?, d.next()?);
    if d.next().is_some() || dd.len() != 2 || mm.len() != 2 || yyyy.len() != 4 {
        return None;
    }
    let day = BusinessDay::parse(&format!("{yyyy}-{mm}-{dd}"))?;
    let (h, m) = time.split_once(':')?;
    let ok = |s: &str| s.len() == 2 && s.bytes().all(|b| b.is_ascii_digit());
    if !ok(h) || !ok(m) {
        return None;
    }
    let (h, m): (u16, u16) = (h.parse().ok()?, m.parse().ok()?);
    (h < 24 && m < 60).then_some((day, h * 60 + m))
}

fn trx_type(kind: &str) -> &'static str {
    match kind {
        "sale" => "Satis",
        "preauth" => "On Otorizasyon",
        "postauth" => "On Otorizasyon Kapama",
        "void" => "Iptal",
        _ => "Iade",
    }
}

fn currency_name(numeric: &str) -> &'static str {
    match numeric {
        "840" => "USD",
        "978" => "EUR",
        "826" => "GBP",
        _ => "TL",
    }
}

/// Page `page` of the range `[from, to]`, or why it is refused (a mandatory-field text).
pub fn list(
    sim: &Sim,
    from: (BusinessDay, u16),
    to: (BusinessDay, u16),
    page: usize,
) -> Result<ListView, &'static str> {
    if to < from {
        return Err("EndDate must not be before StartDate");
    }
    let mut days = vec![from.0];
    while days.last().is_some_and(|d| *d < to.0) {
        if days.len() > MAX_RANGE_DAYS {
            return Err("the date range must not exceed 30 days");
        }
        days.push(days.last().map_or(from.0, |d| d.next()));
    }
    let book = sim.state.book();
    let today = book.today();
    let terminal = sim.creds.terminal.terminal_id.as_str();
    let all: Vec<ListLine> = days
        .into_iter()
        .filter(|d| (from..=to).contains(&(*d, NOON)))
        .flat_map(|d| {
            let (y, m, dd) = d.ymd();
            let at = format!("{y:04}-{m:02}-{dd:02} 12:00:00");
            book.booked_on(terminal, d)
                .into_iter()
                .map(move |(o, t): (_, &SimTxn)| ListLine {
                    date_time: at.clone(),
                    trx_type: trx_type(t.kind),
                    order_id: o.order_id.clone(),
                    rrn: t.rrn.clone(),
                    auth_code: t.auth_code.clone(),
                    status: if t.voided { "Iptal" } else { "Basarili" },
                    amount: t.amount,
                    currency: currency_name(o.currency.numeric()),
                    settlement: if t.day < today { "Y" } else { "N" },
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let total = all.len();
    let lines = all
        .into_iter()
        .enumerate()
        .skip((page - 1).saturating_mul(LIST_PAGE_SIZE))
        .take(LIST_PAGE_SIZE)
        .map(|(i, l)| (i + 1, l))
        .collect();
    Ok(ListView {
        total,
        pages: total.div_ceil(LIST_PAGE_SIZE),
        page,
        lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_ends_are_dates_and_minutes() {
        let d = BusinessDay::parse("2026-11-26").unwrap();
        assert_eq!(parse_at("26/11/2026 00:00"), Some((d, 0)));
        assert_eq!(parse_at("26/11/2026 23:59"), Some((d, 23 * 60 + 59)));
        for bad in [
            "",
            "2026-11-26 00:00",
            "26/11/2026",
            "26/11/26 00:00",
            "31/11/2026 00:00",
            "26/11/2026 24:00",
            "26/11/2026 0:00",
        ] {
            assert_eq!(parse_at(bad), None, "{bad}");
        }
    }
}
