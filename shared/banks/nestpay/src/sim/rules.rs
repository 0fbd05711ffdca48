//! What the simulated bank does with a request: the kit's order book for the money rules,
//! Nestpay's codes and messages for its refusals, and its status/history renderings.
//!
//! Refusal → answer (sources in the crate README):
//!
//! | book refusal | operation | ERRORCODE | ErrMsg |
//! |---|---|---|---|
//! | not found, nothing to void, after end of day | Void | CORE-2008 | İptal edilmeye uygun satış işlemi bulunamadı. |
//! | not found, no open pre-auth | PostAuth | CORE-2115 | PostAuth sadece iliskili bir PreAuth icin yapilabilir. |
//! | amount above pre-auth | PostAuth | CORE-2512 | Not authorized to exceed pre authorization amount. |
//! | zero amount | PostAuth | CORE-2506 | Cannot post auth on zero net amount. |
//! | not found | Credit | CORE-2123 | There is no matching order to refund |
//! | refund before end of day | Credit | CORE-2508 | Iade yapilamaz, siparis gunsonuna girmemis. |
//! | above remaining | Credit | CORE-2503 | Net miktardan fazlasi iade edilemez. |
//! | zero amount / nothing left | Credit | CORE-2504 | Sifir miktarli iade yapilamaz. |
//! | not a sale (pre-auth, voided, declined) | Credit | CORE-2117 | Credit is not valid because there are no settled or captured transactions … |

use paygate_bankkit::{
    sim::{OrderBook, OrderState, Refusal, SimOrder},
    xml::Element,
};
use paygate_domain::Currency;

use super::{wire::Answer, Nestpay, SimClient};

/// Answers one readable request: authenticates the client, then dispatches on `Type` (or,
/// for queries, on the `Extra` element).
pub(crate) fn handle(sim: &Nestpay, req: &Element) -> Answer {
    let text = |name: &str| req.text_at(&[name]).unwrap_or("").trim().to_owned();
    let (name, password, client_id) = (text("Name"), text("Password"), text("ClientId"));
    let today = sim.state.book().today();
    let date = trxdate(today);
    let trans_id = sim.extra.next_trans_id(today);
    let refuse = |code: &str, msg: &str| Answer::refused("Error", "", code, msg, &trans_id, &date);
    if name.is_empty() {
        return refuse("CORE-1011", "'User Name' can not be null or empty.");
    }
    if client_id.is_empty() {
        return refuse("CORE-1013", "'Merchant Id' can not be null or empty.");
    }
    let client =
        sim.user(|c| c.client_id == client_id && c.name == name && c.password.matches(&password));
    let Some(client) = client else {
        return refuse("CORE-2201", "The user is not authenticated.");
    };
    let order_id = text("OrderId");
    let extra = |name: &str| req.text_at(&["Extra", name]).map(str::trim);
    let ctx = Ctx {
        sim,
        client,
        order_id: &order_id,
        trans_id: &trans_id,
        date: &date,
    };
    match text("Type").as_str() {
        "PostAuth" => ctx.post_auth(&text("Total"), req.text_at(&["Currency"])),
        "Void" => ctx.void(),
        "Credit" => ctx.credit(req.text_at(&["Total"]), req.text_at(&["Currency"])),
        "" if extra("ORDERSTATUS") == Some("QUERY") => ctx.order_status(),
        "" if extra("ORDERHISTORY") == Some("QUERY") => ctx.order_history(),
        "" if extra("MAXIPUANSORGU") == Some("MAXIPUANSORGU") => ctx.maxipuan(req),
        "" => refuse("CORE-2003", "Transaction type is empty."),
        _ => refuse(
            "CORE-2001",
            "This is an invalid transaction type. Auth, PreAuth, PostAuth, Credit, Void are valid.",
        ),
    }
}

struct Ctx<'a> {
    sim: &'a Nestpay,
    client: &'a SimClient,
    order_id: &'a str,
    trans_id: &'a str,
    date: &'a str,
}

impl Ctx<'_> {
    fn refuse(&self, order_id: &str, code: &str, msg: &str) -> Answer {
        Answer::refused("Error", order_id, code, msg, self.trans_id, self.date)
    }

    fn approved(&self, auth_code: &str, rrn: &str) -> Answer {
        Answer::approved(self.order_id, auth_code, rrn, self.trans_id, self.date)
    }

    fn order(&self, book: &OrderBook) -> Option<SimOrder> {
        book.get(&self.client.client_id, self.order_id).cloned()
    }

    fn post_auth(&self, total: &str, currency: Option<&str>) -> Answer {
        const NO_PREAUTH: (&str, &str) = (
            "CORE-2115",
            "PostAuth sadece iliskili bir PreAuth icin yapilabilir.",
        );
        let mut book = self.sim.state.book();
        let Some(order) = self.order(&book) else {
            return self.refuse("", NO_PREAUTH.0, NO_PREAUTH.1);
        };
        if let Some(refusal) = currency.and_then(|c| self.currency_refusal(c, order.currency)) {
            return refusal;
        }
        // Without `Total` the whole pre-authorization is closed (PARA sample).
        let amount = if total.is_empty() {
            order.amount
        } else {
            match parse_total(total) {
                Ok(a) => a,
                Err((code, msg)) => return self.refuse(self.order_id, code, msg),
            }
        };
        match book.postauth(&self.client.client_id, self.order_id, amount) {
            Ok(t) => self.approved(&t.auth_code, &t.rrn),
            Err(Refusal::AmountAbovePreauth) => self.refuse(
                self.order_id,
                "CORE-2512",
                "Not authorized to exceed pre authorization amount.",
            ),
            Err(Refusal::ZeroAmount) => self.refuse(
                self.order_id,
                "CORE-2506",
                "Cannot post auth on zero net amount.",
            ),
            Err(_) => self.refuse(self.order_id, NO_PREAUTH.0, NO_PREAUTH.1),
        }
    }

    fn void(&self) -> Answer {
        if self.order_id.is_empty() {
            return self.refuse("", "CORE-2002", "Insufficient parameter for void.");
        }
        let mut book = self.sim.state.book();
        let client = &self.client.client_id;
        let capture_live = book.get(client, self.order_id).is_some_and(|o| {
            o.state == OrderState::Sale
                && o.history.iter().any(|t| t.kind == "postauth" && !t.voided)
        });
        let voided = if capture_live && self.sim.extra.void_reverses_capture_only {
            book.reverse_capture(client, self.order_id)
        } else {
            book.void(client, self.order_id)
        };
        match voided {
            Ok(t) => self.approved(&t.auth_code, &t.rrn),
            // Unknown order, already voided/refunded, or past the end-of-day cut: Nestpay
            // has no sale left that a void could reverse (MEWS cancel fixtures).
            Err(_) => self.refuse(
                "",
                "CORE-2008",
                "İptal edilmeye uygun satış işlemi bulunamadı.",
            ),
        }
    }

    fn credit(&self, total: Option<&str>, currency: Option<&str>) -> Answer {
        const ZERO: (&str, &str) = ("CORE-2504", "Sifir miktarli iade yapilamaz.");
        let mut book = self.sim.state.book();
        let Some(order) = self.order(&book) else {
            return self.refuse("", "CORE-2123", "There is no matching order to refund");
        };
        let total = total.map(str::trim).unwrap_or("");
        let amount = if total.is_empty() {
            Ok(0)
        } else {
            parse_total(total)
        };
        let refused = match (
            amount,
            currency.and_then(|c| self.currency_refusal(c, order.currency)),
        ) {
            (_, Some(refusal)) => return refusal,
            (Err((code, msg)), _) => return self.refuse(self.order_id, code, msg),
            (Ok(amount), None) => {
                match book.refund(&self.client.client_id, self.order_id, amount) {
                    Ok(t) => return self.approved(&t.auth_code, &t.rrn),
                    Err(r) => (amount, r),
                }
            }
        };
        let (amount, refusal) = refused;
        let (code, msg) = match refusal {
            Refusal::RefundBeforeEndOfDay => ("CORE-2508", "Iade yapilamaz, siparis gunsonuna girmemis."),
            Refusal::RefundAboveRemaining => ("CORE-2503", "Net miktardan fazlasi iade edilemez."),
            Refusal::NothingToRefund if order.state != OrderState::Sale => (
                "CORE-2117",
                "Credit is not valid because there are no settled or captured transactions with Order.",
            ),
            _ => ZERO,
        };
        drop(book);
        self.sim.extra.record_failed_refund(
            &self.sim.state,
            &self.client.client_id,
            self.order_id,
            amount,
            self.trans_id,
        );
        self.refuse(self.order_id, code, msg)
    }

    fn currency_refusal(&self, given: &str, order: Currency) -> Option<Answer> {
        match currency_of(given) {
            Err((code, msg)) => Some(self.refuse(self.order_id, code, msg)),
            Ok(c) if c != order => Some(self.refuse(
                self.order_id,
                "CORE-2119",
                "Currency mismatch between request and related transaction history",
            )),
            Ok(_) => None,
        }
    }

    /// The order a status or history query names, or the answer when there is none to
    /// show (no order id, a late booking not yet visible, an unknown order).
    fn queried_order(&self) -> Result<SimOrder, Box<Answer>> {
        if self.order_id.is_empty() {
            return Err(Box::new(self.refuse(
                "",
                "CORE-2014",
                "Invalid query request detected. Please, control the request xml.",
            )));
        }
        if self
            .sim
            .state
            .fault_plan()
            .take_hidden(&self.client.client_id, self.order_id)
        {
            // A late booking (fault plan): the first status query after it sees no record.
            return Err(Box::new(super::history::not_found(self.order_id)));
        }
        let book = self.sim.state.book();
        self.order(&book)
            .ok_or_else(|| Box::new(super::history::not_found(self.order_id)))
    }

    fn order_status(&self) -> Answer {
        match self.queried_order() {
            Ok(order) => super::history::order_status(&order),
            Err(answer) => *answer,
        }
    }

    fn order_history(&self) -> Answer {
        let order = match self.queried_order() {
            Ok(order) => order,
            Err(answer) => return *answer,
        };
        let failed = self
            .sim
            .extra
            .failed
            .of(&self.client.client_id, self.order_id);
        super::history::order_history(&order, &failed)
    }

    fn maxipuan(&self, req: &Element) -> Answer {
        let text = |name: &str| req.text_at(&[name]).unwrap_or("").trim().to_owned();
        if !self.client.points_inquiry {
            return self.refuse(
                "",
                "CORE-2202",
                "User has not permission to do this operation",
            );
        }
        let number = text("Number");
        if !valid_pan(&number) {
            return self.refuse(
                "",
                "CORE-2012",
                "Kredi karti numarasi gecerli formatta degil.",
            );
        }
        if !valid_expiry(&text("Expires")) {
            return self.refuse(
                "",
                "CORE-2011",
                "The credit card expiry date is not in a valid format.",
            );
        }
        let cvv = text("Cvv2Val");
        if !(3..=4).contains(&cvv.len()) || !cvv.bytes().all(|b| b.is_ascii_digit()) {
            return self.refuse("", "CORE-2515", "Invalid Cvv.");
        }
        if let Some(Err((code, msg))) = req.text_at(&["Currency"]).map(currency_of) {
            return self.refuse("", code, msg);
        }
        if !MAXIMUM_BINS.iter().any(|bin| number.starts_with(bin)) {
            return Answer::refused(
                "Declined",
                "",
                "CORE-2205",
                "Point transaction is not permitted to the card",
                self.trans_id,
                self.date,
            );
        }
        let minor = maxipuan_of(&number);
        let value = paygate_bankkit::amount::to_decimal(minor);
        Answer::approved("", "", "", self.trans_id, self.date)
            .with_extra("HOSTMSG", format!("TOPLAMMAXIPUAN: {value} TL"))
            .with_extra("MAXIPUAN", value)
    }
}

/// BINs the simulator treats as İşbank Maximum cards (points inquiry allowed).
pub const MAXIMUM_BINS: &[&str] = &[
    "435508", "450803", "454318", "454358", "454359", "454360", "540667", "540668", "543771",
    "552096",
];

/// The simulated MaxiPuan balance of a card: its last six digits read as kuruş
/// (`…100712` → 1007.12 TL).
pub fn maxipuan_of(number: &str) -> i64 {
    number
        .get(number.len().saturating_sub(6)..)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// `Total`: digits with an optional dot and at most two decimals (Nestpay refuses comma
/// decimals and more precision as unparsable).
pub fn parse_total(s: &str) -> Result<i64, (&'static str, &'static str)> {
    if s.starts_with('-') {
        return Err(("CORE-1024", "'Amount' can not be negative."));
    }
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let ok = !int.is_empty()
        && int.len() <= 15
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.len() <= 2
        && frac.bytes().all(|b| b.is_ascii_digit())
        && !(s.contains('.') && frac.is_empty());
    if !ok {
        return Err(("CORE-2007", "Unparsable number usage."));
    }
    paygate_bankkit::amount::parse_decimal(s).ok_or(("CORE-2007", "Unparsable number usage."))
}

fn currency_of(s: &str) -> Result<Currency, (&'static str, &'static str)> {
    match s.trim() {
        "949" => Ok(Currency::Try),
        "840" => Ok(Currency::Usd),
        "978" => Ok(Currency::Eur),
        "826" => Ok(Currency::Gbp),
        c if c.len() == 3 && c.bytes().all(|b| b.is_ascii_digit()) => {
            Err(("CORE-2105", "Currency not allowed for merchant."))
        }
        _ => Err((
            "CORE-2106",
            "Invalid Currency type. Currency is not in ISO-4217 specification.",
        )),
    }
}

fn valid_pan(n: &str) -> bool {
    if !(13..=19).contains(&n.len()) || !n.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    paygate_domain::bank::luhn_valid(n)
}

fn valid_expiry(s: &str) -> bool {
    let Some((m, y)) = s.split_once('/') else {
        return false;
    };
    m.len() == 2
        && y.len() == 2
        && y.bytes().all(|b| b.is_ascii_digit())
        && matches!(m.parse::<u8>(), Ok(1..=12))
}

/// `TRXDATE` of business day `day` (day 0 = 2024-01-01).
pub fn trxdate(day: u32) -> String {
    let (y, m, d) = super::history::civil(day);
    format!("{y:04}{m:02}{d:02} 12:00:00")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals() {
        assert_eq!(parse_total("1.01"), Ok(101));
        assert_eq!(parse_total("100"), Ok(10_000));
        assert_eq!(parse_total("25.4"), Ok(2_540));
        for bad in ["1,01", "1.001", "1.", ".5", "", "1e3", "-1"] {
            assert!(parse_total(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_total("-1").unwrap_err().0, "CORE-1024");
    }

    #[test]
    fn cards() {
        assert!(valid_pan("4543600299100712"));
        assert!(!valid_pan("4543600299100713"));
        assert!(!valid_pan("45436002991"));
        assert!(
            valid_expiry("03/30")
                && !valid_expiry("3/30")
                && !valid_expiry("13/30")
                && !valid_expiry("0330")
        );
        assert_eq!(maxipuan_of("4543600299100712"), 100_712);
    }
}
