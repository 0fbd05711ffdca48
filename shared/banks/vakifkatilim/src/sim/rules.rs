//! What the simulated bank does with a request: the kit's order book for the money rules,
//! the bank's codes where the public sources show them, the simulator's own otherwise.
//!
//! | case | operation | ResponseCode | source |
//! |---|---|---|---|
//! | approved | any | `00` İşlem onaylandı | MEWS fixtures |
//! | unknown order, or an `OrderId` that is not the order's | money requests | `OrderDataNotFound` islem bilgisi bulunamadi. | MEWS `fail_order_not_found` |
//! | no order matches | queries | `NonResult` Kriterlere uygun sonuc bulunmamaktadir. | MEWS `fail_order_not_found` (status) |
//! | unknown `MerchantId`/`CustomerId`/`UserName` | any | `MerchantNotDefined` Uye isyeri kullanici tanimi bulunamadi. | MEWS `fail1` |
//! | wrong `HashPassword` or `HashData` | any | `HashDataError` | simulator |
//! | reversal past the end-of-day cut | `SaleReversal` | `EndOfDayCompleted` | simulator |
//! | refund on the sale's own business day | `DrawBack`, `PartialDrawBack` | `EndOfDayNotCompleted` | simulator |
//! | nothing to close/reverse/refund, wrong order type | money requests | `InvalidTransaction` | simulator |
//! | zero, unreadable or excessive amount | `PreAuthorizatenClose`, `SaleReversal`, `PartialDrawBack` | `InvalidAmount` | simulator |
//! | technical error (fault) | money requests | `SystemError` | simulator |
//! | unreadable request | any | `InvalidRequest` | simulator |
//!
//! The simulator's own codes are not the bank's (which the sources do not show): the adapter
//! reads them as unknown, and never meets the end-of-day ones because it checks the order's
//! `EndOfDayStatus` first.
//!
//! The order's record (`OrderContract`): `OrderStatus` of each entry is its transaction's
//! type (`1` sale, `2` pre-authorization, `3` close, `4` refund, `6` reversal);
//! `LastOrderStatus` the order's (`1` sale, `2` open pre-authorization, `3` closed,
//! `4` refunded, `5` partially refunded, `6` cancelled); `EndOfDayStatus` `1` while the
//! order's day is open, `2` after the cut (`2`, `3` and the closed day are this simulator's
//! reading, see the README).

use paygate_bankkit::{
    amount,
    sim::{OrderState, Refusal, SimOrder, SimTxn},
    xml::Element,
};
use paygate_domain::daily::BusinessDay;

use super::{
    wire::{Answer, Fields},
    SimClient, VakifKatilim,
};
use crate::hash::{hashed_password, verify, HashFields};

pub const APPROVED: (&str, &str) = ("00", "İşlem onaylandı");
pub const NOT_FOUND: (&str, &str) = ("OrderDataNotFound", "islem bilgisi bulunamadi.");
pub const NO_RESULT: (&str, &str) = ("NonResult", "Kriterlere uygun sonuc bulunmamaktadir.");
pub const BAD_USER: (&str, &str) = (
    "MerchantNotDefined",
    "Uye isyeri kullanici tanimi bulunamadi.",
);
pub const BAD_HASH: (&str, &str) = ("HashDataError", "Hash bilgisi hatalı.");
pub const AFTER_CUT: (&str, &str) = (
    "EndOfDayCompleted",
    "Gün sonu yapılmış işlem iptal edilemez, iade ediniz.",
);
pub const BEFORE_CUT: (&str, &str) = (
    "EndOfDayNotCompleted",
    "Gün sonu yapılmamış işlem iade edilemez, iptal ediniz.",
);
pub const NOTHING: (&str, &str) = ("InvalidTransaction", "İşlem bu sipariş için yapılamaz.");
pub const BAD_AMOUNT: (&str, &str) = ("InvalidAmount", "Geçersiz tutar.");
pub const SYSTEM_ERROR: (&str, &str) = ("SystemError", "Sistem hatası.");
pub const BAD_REQUEST: (&str, &str) = ("InvalidRequest", "Geçersiz istek.");

/// The bank's own id of an order (`OrderId`): its first transaction's sequence number, `0`
/// for a refused one.
pub fn bank_order_id(o: &SimOrder) -> String {
    o.history
        .first()
        .and_then(|t| t.rrn.parse::<u64>().ok())
        .map(|n| n.saturating_sub(600_000_000_000).to_string())
        .unwrap_or_else(|| "0".to_owned())
}

/// Answers one readable request: authenticates the user and its signature, then dispatches
/// on the operation.
pub(crate) fn handle(sim: &VakifKatilim, op: &str, req: &Element) -> Answer {
    let text = |name: &str| req.text_at(&[name]).unwrap_or("").trim().to_owned();
    let order = text("MerchantOrderId");
    let money = super::MONEY.contains(&op);
    let refuse = |why: (&str, &str)| {
        if money {
            Answer::money(why, &order, None)
        } else {
            Answer::orders(why, &order, Vec::new())
        }
    };
    let Some(client) = sim.user(|c| {
        c.merchant_id == text("MerchantId")
            && c.customer_id == text("CustomerId")
            && c.user_name == text("UserName")
    }) else {
        return refuse(BAD_USER);
    };
    let fields = HashFields {
        merchant_id: &client.merchant_id,
        merchant_order_id: &order,
        amount: &text("Amount"),
        ok_url: "",
        fail_url: "",
        user_name: &client.user_name,
    };
    let password = client.password.as_str();
    let password_ok = !money || text("HashPassword") == hashed_password(password);
    if !password_ok || !verify(&fields, password, &text("HashData")) {
        return refuse(BAD_HASH);
    }
    let ctx = Ctx { sim, client };
    match op {
        "SelectOrderByMerchantOrderId" => ctx.status(&order),
        "SelectOrder" => ctx.history(
            (&text("StartDate"), &text("EndDate")),
            &text("LowerLimit"),
            &text("UpperLimit"),
        ),
        _ => ctx.money(op, &order, &text("OrderId"), &text("Amount")),
    }
}

struct Ctx<'a> {
    sim: &'a VakifKatilim,
    client: &'a SimClient,
}

fn approved(order: &str, bank_id: &str, t: &SimTxn) -> Answer {
    let stan = &t.rrn[t.rrn.len().saturating_sub(6)..];
    Answer::money(APPROVED, order, Some((&t.auth_code, &t.rrn, stan, bank_id)))
}

/// Kuruş digits (`1001`), positive.
fn parse_kurus(s: &str) -> Option<i64> {
    amount::parse_minor(s).filter(|a| *a > 0)
}

impl Ctx<'_> {
    fn key(&self) -> &str {
        &self.client.merchant_id
    }

    fn money(&self, op: &str, order: &str, bank_id: &str, sent: &str) -> Answer {
        let refuse = |why| Answer::money(why, order, None);
        let mut book = self.sim.state.book();
        let Some(o) = book.get(self.key(), order).cloned() else {
            return refuse(NOT_FOUND);
        };
        if bank_order_id(&o) != bank_id || o.history.is_empty() {
            return refuse(NOT_FOUND);
        }
        let amount = match (op, sent) {
            ("PreAuthorizatenClose", _) if self.sim.extra.closes_whole_holds => Some(o.amount),
            ("PreAuthorizatenClose", "") => Some(o.amount),
            ("PreAuthorizatenClose" | "SaleReversal" | "PartialDrawBack", a) => parse_kurus(a),
            _ => Some(o.amount),
        };
        let Some(amount) = amount else {
            return refuse(BAD_AMOUNT);
        };
        let done = match op {
            "PreAuthorizatenClose" => book.postauth(self.key(), order, amount),
            "SaleReversal" if o.state != OrderState::Sale => Err(Refusal::NothingToVoid),
            "SaleReversal" if amount != o.amount => Err(Refusal::ZeroAmount),
            "PreAuthorizationReversal" if o.state != OrderState::Preauth => {
                Err(Refusal::NothingToVoid)
            }
            "SaleReversal" | "PreAuthorizationReversal" => book.void(self.key(), order),
            "DrawBack" if o.refunded > 0 => Err(Refusal::NothingToRefund),
            "DrawBack" => book.refund(self.key(), order, o.refundable()),
            "PartialDrawBack" => book.refund(self.key(), order, amount),
            _ => Err(Refusal::NothingToVoid),
        };
        match done {
            Ok(t) => approved(order, bank_id, &t),
            Err(Refusal::AfterEndOfDay) => refuse(AFTER_CUT),
            Err(Refusal::RefundBeforeEndOfDay) => refuse(BEFORE_CUT),
            Err(
                Refusal::AmountAbovePreauth | Refusal::RefundAboveRemaining | Refusal::ZeroAmount,
            ) => refuse(BAD_AMOUNT),
            Err(Refusal::NotFound) => refuse(NOT_FOUND),
            Err(_) => refuse(NOTHING),
        }
    }

    fn status(&self, order: &str) -> Answer {
        let hidden = self.sim.state.fault_plan().take_hidden(self.key(), order);
        let found = (!hidden)
            .then(|| self.sim.state.book().get(self.key(), order).cloned())
            .flatten();
        match found {
            Some(o) => Answer::orders(("00", ""), order, entries(&o, self.today())),
            None => Answer::orders(NO_RESULT, order, Vec::new()),
        }
    }

    /// One page of the merchant's orders (`LowerLimit` skipped, `UpperLimit` taken), by order
    /// id; each order's main entry. The dates are not simulated (every order is in range).
    /// `SelectOrder`: every transaction booked between `StartDate` and `EndDate` (both
    /// included, at most 90 days), one entry each, in booking order, dated by the book's
    /// calendar; `LowerLimit` entries skipped, at most `UpperLimit` and [`PAGE_CAP`] given;
    /// none left is `NonResult`.
    fn history(&self, (start, end): (&str, &str), lower: &str, upper: &str) -> Answer {
        let (Ok(lower), Ok(upper)) = (lower.parse::<usize>(), upper.parse::<usize>()) else {
            return Answer::orders(BAD_REQUEST, "", Vec::new());
        };
        let (Some(start), Some(end)) = (BusinessDay::parse(start), BusinessDay::parse(end)) else {
            return Answer::orders(BAD_REQUEST, "", Vec::new());
        };
        let today = self.today();
        let book = self.sim.state.book();
        let mut all: Vec<Fields> = Vec::new();
        let mut date = start;
        for _ in 0..=MAX_RANGE_DAYS {
            if date > end {
                break;
            }
            for (o, t) in book.booked_on(self.key(), date) {
                all.extend(entry_of(o, t, today, date));
            }
            date = date.next();
        }
        if date <= end {
            return Answer::orders(BAD_REQUEST, "", Vec::new());
        }
        let page: Vec<Fields> = all
            .into_iter()
            .skip(lower)
            .take(upper.min(PAGE_CAP))
            .collect();
        if page.is_empty() {
            return Answer::orders(NO_RESULT, "", Vec::new());
        }
        Answer::orders(("00", ""), "", page)
    }

    fn today(&self) -> u32 {
        self.sim.state.book().today()
    }
}

fn txn_status(kind: &str) -> &'static str {
    match kind {
        "preauth" => "2",
        "postauth" => "3",
        "refund" => "4",
        "void" => "6",
        _ => "1",
    }
}

/// The order's `LastOrderStatus`.
fn last_status(o: &SimOrder) -> &'static str {
    let closed = o.history.iter().any(|t| t.kind == "postauth" && !t.voided);
    match o.state {
        OrderState::Voided => "6",
        OrderState::Preauth => "2",
        OrderState::Sale if o.refunded > 0 && o.refundable() == 0 => "4",
        OrderState::Sale if o.refunded > 0 => "5",
        OrderState::Sale if closed => "3",
        _ => "1",
    }
}

/// Most entries one `SelectOrder` page gives, whatever `UpperLimit` asks (small, so the
/// adapter's paging is exercised; the bank's own cap is not in the public sources).
pub const PAGE_CAP: usize = 3;
/// The longest `SelectOrder` range (MEWS: "Tarih aralığı maksimum 90 gün olabilir").
const MAX_RANGE_DAYS: usize = 90;

/// The entry of transaction `t` of `o`, booked on `date` (`OrderDate` at noon of it).
fn entry_of(o: &SimOrder, t: &SimTxn, today: u32, date: BusinessDay) -> Option<Fields> {
    let i = o.history.iter().position(|h| h.rrn == t.rrn)?;
    let mut e = entries(o, today).into_iter().nth(i)?;
    for (k, v) in &mut e.0 {
        if *k == "OrderDate" {
            *v = format!("{date}T12:00:00.000");
        }
    }
    Some(e)
}

/// Every entry of an order's record, oldest first.
fn entries(o: &SimOrder, today: u32) -> Vec<Fields> {
    let closed = o
        .history
        .iter()
        .filter(|t| t.kind == "postauth")
        .map(|t| t.amount)
        .next_back()
        .unwrap_or(0);
    let cancelled = if o.state == OrderState::Voided {
        o.history
            .iter()
            .rev()
            .find(|t| t.kind == "void")
            .map_or(0, |t| t.amount)
    } else {
        0
    };
    let first = o.history.first().map_or(o.amount, |t| t.amount);
    let base = Fields::default()
        .with("OrderId", bank_order_id(o))
        .with("MerchantOrderId", &o.order_id)
        .with("MerchantId", "1");
    let order_level = |f: Fields, t: Option<&SimTxn>| {
        f.with("OrderType", "1")
            .with("TransactionStatus", if t.is_some() { "1" } else { "2" })
            .with("LastOrderStatus", last_status(o))
            .with("EndOfDayStatus", if o.day < today { "2" } else { "1" })
            .with("FEC", format!("{:0>4}", o.currency.numeric()))
            .with("TransactionSecurity", "1")
            .with("CardNumber", "5353********7017")
            .with("OrderDate", "2024-07-01T15:03:06.963")
            .with("FirstAmount", amount::to_decimal(first))
            .with("TranAmount", amount::to_decimal(t.map_or(0, |t| t.amount)))
            .with("FECAmount", "0.00")
            .with("CancelAmount", amount::to_decimal(cancelled))
            .with("DrawbackAmount", amount::to_decimal(o.refunded))
            .with("ClosedAmount", amount::to_decimal(closed))
            .with("InstallmentCount", "0")
    };
    if o.history.is_empty() {
        // A refused sale.
        return vec![order_level(base.with("OrderStatus", "1"), None)
            .with("ResponseCode", "51")
            .with("ResponseExplain", "Limit Yetersiz.")
            .with("ProvNumber", "")
            .with("RRN", "")
            .with("Stan", "")];
    }
    o.history
        .iter()
        .map(|t| {
            order_level(
                base.clone().with("OrderStatus", txn_status(t.kind)),
                Some(t),
            )
            .with("ResponseCode", APPROVED.0)
            .with("ResponseExplain", APPROVED.1)
            .with("ProvNumber", &o.history[0].auth_code)
            .with("RRN", &t.rrn)
            .with("Stan", &t.rrn[t.rrn.len().saturating_sub(6)..])
            .with("BatchId", "1")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_kurus_digits() {
        assert_eq!(parse_kurus("1001"), Some(1001));
        for bad in ["10.01", "", "-1", "0", "1e3"] {
            assert_eq!(parse_kurus(bad), None, "{bad}");
        }
    }
}
