//! The simulated bank's calendar: which date each business day of the book (its `day`
//! counter, moved by the end-of-day cut) fell on, so a protocol can answer a history-by-date
//! call (`OrderBook::booked_on`).
//!
//! A business day takes the date on which the book entered it: the wall clock's Istanbul
//! date, the same one the gateway stamps its transactions with under `make dev`, or a
//! pinned date in tests ([`OrderBook::pin_date`]; each end-of-day cut then moves the pinned
//! date to the next day).

use paygate_domain::{daily::BusinessDay, Timestamp};

use super::{OrderBook, SimOrder, SimTxn};

#[derive(Debug, Default)]
pub(super) struct Dates {
    pinned: Option<BusinessDay>,
    /// The date of day `i`, for the days the book has entered.
    of_day: Vec<BusinessDay>,
}

impl Dates {
    // A simulated bank's own wall clock, as a real bank has (the gateway's clock is injected).
    #[allow(clippy::disallowed_methods)]
    fn today(&self) -> BusinessDay {
        self.pinned.unwrap_or_else(|| {
            let ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
            BusinessDay::of(Timestamp::from_unix_millis(ms))
        })
    }

    /// The book entered `day` (an end-of-day cut).
    pub(super) fn next_day(&mut self, day: u32) {
        if let Some(p) = self.pinned.as_mut() {
            *p = p.next();
        }
        self.enter(day);
    }

    pub(super) fn enter(&mut self, day: u32) {
        let today = self.today();
        let i = usize::try_from(day).unwrap_or(usize::MAX);
        // Days skipped over (none today) take the first date known after them.
        while self.of_day.len() <= i {
            self.of_day.push(today);
        }
        self.of_day[i] = today;
    }

    fn date_of(&self, day: u32) -> BusinessDay {
        usize::try_from(day)
            .ok()
            .and_then(|i| self.of_day.get(i).copied())
            .unwrap_or_else(|| self.today())
    }
}

impl OrderBook {
    /// Pins the bank's today to `date` (tests): the current business day falls on it, each
    /// later cut on the next date.
    pub fn pin_date(&mut self, date: BusinessDay) {
        self.dates.pinned = Some(date);
        self.dates.enter(self.day);
    }

    /// The date business day `day` fell on.
    pub fn date_of(&self, day: u32) -> BusinessDay {
        self.dates.date_of(day)
    }

    /// Every operation the bank booked on `date` for `client` (approved ones: the book holds
    /// no other), with its order, in booking order (the bank reference is a sequence).
    pub fn booked_on(&self, client: &str, date: BusinessDay) -> Vec<(&SimOrder, &SimTxn)> {
        let mut all: Vec<(&SimOrder, &SimTxn)> = self
            .orders()
            .filter(|(c, _)| *c == client)
            .flat_map(|(_, o)| o.history.iter().map(move |t| (o, t)))
            .filter(|(_, t)| self.date_of(t.day) == date)
            .collect();
        all.sort_by(|a, b| a.1.rrn.cmp(&b.1.rrn));
        all
    }
}

#[cfg(test)]
mod tests {
    use paygate_domain::{ports::TestOrderState, Currency};

    use super::*;

    #[test]
    fn operations_are_listed_on_the_date_of_their_business_day() {
        let d = BusinessDay::parse("2026-11-26").unwrap();
        let mut book = OrderBook::new(false);
        book.pin_date(d);
        book.register(
            "c1",
            "A",
            10_000,
            Currency::Try,
            TestOrderState::Preauth,
            false,
        )
        .unwrap();
        book.register(
            "c2",
            "B",
            5_000,
            Currency::Try,
            TestOrderState::Approved,
            false,
        )
        .unwrap();
        book.postauth("c1", "A", 9_000).unwrap();
        book.end_of_day();
        book.refund("c1", "A", 1_000).unwrap();
        let kinds = |date| {
            book.booked_on("c1", date)
                .iter()
                .map(|(o, t)| (o.order_id.clone(), t.kind, t.amount))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            kinds(d),
            vec![
                ("A".into(), "preauth", 10_000),
                ("A".into(), "postauth", 9_000)
            ]
        );
        assert_eq!(kinds(d.next()), vec![("A".into(), "refund", 1_000)]);
        assert!(kinds(d.previous()).is_empty());
        assert_eq!(book.date_of(book.today()), d.next());
        // Another client's orders are not this client's history.
        assert_eq!(book.booked_on("c2", d).len(), 1);
    }

    #[test]
    fn an_unpinned_book_dates_by_the_wall_clock() {
        let mut book = OrderBook::new(false);
        book.register("c", "A", 100, Currency::Try, TestOrderState::Approved, true)
            .unwrap();
        let today = book.date_of(book.today());
        // A "settled" order put before today keeps the day the book started on.
        assert_eq!(book.booked_on("c", book.date_of(0)).len(), 1);
        assert!(today >= book.date_of(0));
    }
}
