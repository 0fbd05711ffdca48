//! What the simulated bank does with a request: the kit's order book for the money rules,
//! PayFor's codes for its refusals, and its inquiry/history renderings.
//!
//! | book refusal | operation | ProcReturnCode | ErrMsg |
//! |---|---|---|---|
//! | unknown order, nothing to capture/void/refund, void after the end-of-day cut | PostAuth, Void, Refund | V013 | Seçili İşlem Bulunamadı! |
//! | refund on the sale's own business day | Refund | V014 | Bu işlem geri alınamaz, lütfen asıl işlemi iptal edin. |
//! | amount above the pre-auth / the remaining amount, zero or unreadable amount, unknown currency | PostAuth, Refund | M012 | Geçersiz tutar. (simulator text) |
//! | wrong `MbrId`/`MerchantId`/`UserCode`/`UserPass` | any | V001 | Kullanıcı bilgileri hatalı. (simulator text) |
//! | unknown `SecureType`/`TxnType` | any | M002 | Geçersiz işlem tipi. (simulator text) |
//! | unreadable `ReqDate` | TxnHistory by date | M002 | Geçersiz tarih. (simulator text) |
//! | no line on `ReqDate` | TxnHistory by date | V013 | Seçili İşlem Bulunamadı! |
//!
//! A `Void` reverses the order's latest transaction: a live `PostAuth` of a captured
//! pre-authorization is reversed alone (the order is an open pre-authorization again, as in
//! the MEWS fixture `success_pre_pay_post_pay_then_cancel`); a second `Void` releases the hold.
//! `OrderInquiry` then shows the open pre-authorization, or (variant `inquiry_shows_latest`)
//! the voided `PostAuth`.

use paygate_bankkit::{
    amount,
    sim::{OrderState, Refusal, SimOrder, SimTxn},
    xml::Element,
};
use paygate_domain::daily::BusinessDay;

use super::{
    wire::{Answer, Fields},
    FailedRefund, PayFor, SimClient,
};

pub const APPROVED: &str = "Onaylandı";
pub const NOT_FOUND: (&str, &str) = ("V013", "Seçili İşlem Bulunamadı!");
pub const REFUND_SAME_DAY: (&str, &str) = (
    "V014",
    "Bu işlem geri alınamaz, lütfen asıl işlemi iptal edin.",
);
const BAD_AMOUNT: (&str, &str) = ("M012", "Geçersiz tutar.");
const BAD_USER: (&str, &str) = ("V001", "Kullanıcı bilgileri hatalı.");
const BAD_TYPE: (&str, &str) = ("M002", "Geçersiz işlem tipi.");
const BAD_CARD: (&str, &str) = ("M041", "Geçersiz kart bilgisi.");
const BAD_DATE: (&str, &str) = ("M002", "Geçersiz tarih.");

/// BINs the simulator treats as QNB CardFinans cards (ParaPuan inquiry allowed); 415565 is
/// the QNB test card of the MEWS examples.
pub const PARAPUAN_BINS: &[&str] = &["415565", "435653", "524346", "545616"];

/// The simulated ParaPuan balance of a card: its last six digits read as kuruş.
pub fn parapuan_of(number: &str) -> i64 {
    number
        .get(number.len().saturating_sub(6)..)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// Answers one readable request: authenticates the user, then dispatches on `SecureType`
/// and `TxnType`.
pub(crate) fn handle(sim: &PayFor, req: &Element) -> Answer {
    let text = |name: &str| req.text_at(&[name]).unwrap_or("").trim().to_owned();
    let refuse = |(code, msg): (&str, &str), order: &str| Answer::money(code, msg, order, "", "");
    let client = sim.user(|c| {
        c.mbr_id == text("MbrId")
            && c.merchant_id == text("MerchantId")
            && c.user_code == text("UserCode")
            && c.user_pass.matches(&text("UserPass"))
    });
    let Some(client) = client else {
        return refuse(BAD_USER, "");
    };
    let org = text("OrgOrderId");
    let ctx = Ctx { sim, client };
    match (text("SecureType").as_str(), text("TxnType").as_str()) {
        ("NonSecure", "PostAuth") => ctx.post_auth(&org, &text("PurchAmount")),
        ("NonSecure", "Void") => ctx.void(&org),
        ("NonSecure", "Refund") => ctx.refund(&org, &text("PurchAmount")),
        ("Inquiry", "OrderInquiry") => ctx.inquiry(&org),
        ("Report", "TxnHistory") if text("OrderId").is_empty() && !text("ReqDate").is_empty() => {
            ctx.day(&text("ReqDate"))
        }
        ("Report", "TxnHistory") => ctx.history(&text("OrderId")),
        ("Inquiry", "ParaPuanInquiry") => parapuan(&text("Pan"), &text("Expiry"), &text("Cvv2")),
        _ => refuse(BAD_TYPE, &org),
    }
}

struct Ctx<'a> {
    sim: &'a PayFor,
    client: &'a SimClient,
}

fn approved(order: &str, t: &SimTxn) -> Answer {
    Answer::money("00", APPROVED, order, &t.auth_code, &t.rrn)
}

fn refused((code, msg): (&str, &str), order: &str) -> Answer {
    Answer::money(code, msg, order, "", "")
}

fn parse_amount(s: &str) -> Option<i64> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let plain = !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.len() <= 2
        && frac.bytes().all(|b| b.is_ascii_digit());
    plain
        .then(|| amount::parse_decimal(s))
        .flatten()
        .filter(|a| *a > 0)
}

impl Ctx<'_> {
    fn key(&self) -> &str {
        &self.client.merchant_id
    }

    fn post_auth(&self, order: &str, total: &str) -> Answer {
        let Some(amount) = parse_amount(total) else {
            return refused(BAD_AMOUNT, order);
        };
        match self.sim.state.book().postauth(self.key(), order, amount) {
            Ok(t) => approved(order, &t),
            Err(Refusal::AmountAbovePreauth | Refusal::ZeroAmount) => refused(BAD_AMOUNT, order),
            Err(_) => refused(NOT_FOUND, order),
        }
    }

    fn void(&self, order: &str) -> Answer {
        let mut book = self.sim.state.book();
        let capture_live = book.get(self.key(), order).is_some_and(|o| {
            o.state == OrderState::Sale
                && o.history.iter().any(|t| t.kind == "postauth" && !t.voided)
        });
        let done = if capture_live {
            book.reverse_capture(self.key(), order)
        } else {
            book.void(self.key(), order)
        };
        match done {
            Ok(t) => approved(order, &t),
            Err(_) => refused(NOT_FOUND, order),
        }
    }

    fn refund(&self, order: &str, total: &str) -> Answer {
        let Some(amount) = parse_amount(total) else {
            return refused(BAD_AMOUNT, order);
        };
        let result = self.sim.state.book().refund(self.key(), order, amount);
        let answer = match result {
            Ok(t) => return approved(order, &t),
            Err(Refusal::RefundBeforeEndOfDay) => REFUND_SAME_DAY,
            Err(Refusal::RefundAboveRemaining | Refusal::ZeroAmount) => BAD_AMOUNT,
            Err(_) => NOT_FOUND,
        };
        if answer != NOT_FOUND {
            let book = self.sim.state.book();
            let after = book
                .get(self.key(), order)
                .map(|o| o.history.len())
                .unwrap_or(0);
            let date = book.date_of(book.today());
            drop(book);
            let refund = FailedRefund {
                amount,
                code: answer.0,
                after,
                date,
            };
            self.sim.extra.failed.add(self.key(), order, refund);
        }
        refused(answer, order)
    }

    /// The order a query names, or `None` (unknown, or hidden once by a late booking).
    fn queried(&self, order: &str) -> Option<SimOrder> {
        if self.sim.state.fault_plan().take_hidden(self.key(), order) {
            return None;
        }
        self.sim.state.book().get(self.key(), order).cloned()
    }

    fn inquiry(&self, order: &str) -> Answer {
        match self.queried(order) {
            Some(o) => Answer::Flat(inquiry_fields(&o, self.sim.extra.inquiry_shows_latest)),
            None => Answer::Flat(
                Fields::default()
                    .with("OrderId", order)
                    .with("OrgOrderId", order)
                    .with("TxnType", "OrderInquiry")
                    .with("TxnStatus", "P")
                    .with("ProcReturnCode", NOT_FOUND.0)
                    .with("ErrMsg", NOT_FOUND.1),
            ),
        }
    }

    fn history(&self, order: &str) -> Answer {
        let Some(o) = self.queried(order) else {
            return history_error(order, NOT_FOUND);
        };
        let failed = self.sim.extra.failed.of(self.key(), order);
        Answer::History(history_entries(&o, &failed))
    }

    /// Every line of the merchant booked on `req_date`, in booking order, then the refunds
    /// refused that day.
    fn day(&self, req_date: &str) -> Answer {
        let Some(date) = parse_req_date(req_date) else {
            return history_error("", BAD_DATE);
        };
        let book = self.sim.state.book();
        let mut lines: Vec<Fields> = book
            .booked_on(self.key(), date)
            .into_iter()
            .map(|(o, t)| {
                common(o, t, t.kind != "preauth" && t.kind != "sale").with("ReqDate", req_date)
            })
            .collect();
        for (o, f) in book
            .orders()
            .filter(|(c, _)| *c == self.key())
            .flat_map(|(_, o)| {
                let failed = self.sim.extra.failed.of(self.key(), &o.order_id);
                failed.into_iter().map(move |f| (o, f))
            })
            .filter(|(_, f)| f.date == date)
        {
            lines.push(failed_refund(o, &f).with("ReqDate", req_date));
        }
        if lines.is_empty() {
            return history_error("", NOT_FOUND);
        }
        Answer::History(lines)
    }
}

/// The single-entry report PayFor answers a history it cannot give with.
fn history_error(order: &str, (code, message): (&str, &str)) -> Answer {
    Answer::History(vec![Fields::default()
        .with("OrderId", order)
        .with("OrgOrderId", order)
        .with("TxnType", "TxnHistory")
        .with("TxnStatus", "P")
        .with("TxnResult", "Failed")
        .with("ProcReturnCode", code)
        .with("ErrMsg", message)])
}

/// A `ReqDate` (`YYYYMMDD`).
fn parse_req_date(s: &str) -> Option<BusinessDay> {
    let digits = s.len() == 8 && s.bytes().all(|b| b.is_ascii_digit());
    digits
        .then(|| BusinessDay::parse(&format!("{}-{}-{}", &s[..4], &s[4..6], &s[6..])))
        .flatten()
}

fn txn_type(kind: &str) -> &'static str {
    match kind {
        "preauth" => "PreAuth",
        "postauth" => "PostAuth",
        "void" => "Void",
        "refund" => "Refund",
        _ => "Auth",
    }
}

fn common(o: &SimOrder, t: &SimTxn, org: bool) -> Fields {
    Fields::default()
        .with("OrderId", &o.order_id)
        .with("OrgOrderId", if org { o.order_id.as_str() } else { "" })
        .with("TxnType", txn_type(t.kind))
        .with("PurchAmount", amount::to_decimal(t.amount))
        .with("Currency", o.currency.numeric())
        .with("AuthCode", &t.auth_code)
        .with("HostRefNum", &t.rrn)
        .with("ProcReturnCode", "00")
        .with("ErrMsg", APPROVED)
        .with("TxnResult", "Success")
        .with("TxnStatus", if t.voided { "V" } else { "Y" })
}

/// The `OrderInquiry` fields of an existing order: its main transaction — the live capture,
/// else the sale or pre-authorization; or (`latest`) the latest main transaction, voided or
/// not.
fn inquiry_fields(o: &SimOrder, latest: bool) -> Fields {
    let main = if latest {
        o.history
            .iter()
            .rev()
            .find(|t| matches!(t.kind, "sale" | "preauth" | "postauth"))
    } else {
        o.history
            .iter()
            .rev()
            .find(|t| t.kind == "postauth" && !t.voided)
            .or_else(|| o.history.first())
    };
    let Some(main) = main else {
        // A declined order: the refused sale.
        return Fields::default()
            .with("OrderId", &o.order_id)
            .with("TxnType", "Auth")
            .with("PurchAmount", amount::to_decimal(o.amount))
            .with("Currency", o.currency.numeric())
            .with("ProcReturnCode", "05")
            .with("ErrMsg", "Red-Onaylanmadı")
            .with("TxnResult", "Failed")
            .with("TxnStatus", "N")
            .with("IsVoided", "false")
            .with("IsRefunded", "false")
            .with("RefundedAmount", "0");
    };
    let fully = o.refunded > 0 && o.refundable() == 0;
    common(o, main, main.kind == "postauth")
        .with("CardMask", "415565******6111")
        .with("IsVoided", if main.voided { "true" } else { "false" })
        .with("IsRefunded", if fully { "true" } else { "false" })
        .with("RefundedAmount", amount::to_decimal(o.refunded))
}

/// The line of a refused refund (MEWS `success_pay_refund_fail`).
fn failed_refund(o: &SimOrder, f: &FailedRefund) -> Fields {
    Fields::default()
        .with("OrderId", &o.order_id)
        .with("OrgOrderId", &o.order_id)
        .with("TxnType", "Refund")
        .with("PurchAmount", amount::to_decimal(f.amount))
        .with("Currency", o.currency.numeric())
        .with("ProcReturnCode", f.code)
        .with("TxnResult", "Failed")
        .with("TxnStatus", "N")
}

/// Every transaction of the order, oldest first, refused refunds in between.
fn history_entries(o: &SimOrder, failed: &[FailedRefund]) -> Vec<Fields> {
    let mut out: Vec<(usize, Fields)> = o
        .history
        .iter()
        .enumerate()
        .map(|(i, t)| {
            (
                2 * i + 1,
                common(o, t, t.kind != "preauth" && t.kind != "sale"),
            )
        })
        .collect();
    for f in failed {
        out.push((2 * f.after, failed_refund(o, f)));
    }
    out.sort_by_key(|(at, _)| *at);
    out.into_iter().map(|(_, f)| f).collect()
}

fn parapuan(pan: &str, expiry: &str, cvv2: &str) -> Answer {
    let luhn = (13..=19).contains(&pan.len())
        && pan.bytes().all(|b| b.is_ascii_digit())
        && paygate_domain::bank::luhn_valid(pan);
    let expiry_ok = expiry.len() == 4
        && expiry.bytes().all(|b| b.is_ascii_digit())
        && matches!(expiry[..2].parse::<u8>(), Ok(1..=12));
    let cvv_ok = (3..=4).contains(&cvv2.len()) && cvv2.bytes().all(|b| b.is_ascii_digit());
    if !(luhn && expiry_ok && cvv_ok) {
        return refused(BAD_CARD, "");
    }
    if !PARAPUAN_BINS.iter().any(|b| pan.starts_with(b)) {
        return refused(NOT_FOUND, "");
    }
    match Answer::money("00", APPROVED, "", "", "") {
        Answer::Flat(f) => {
            Answer::Flat(f.with("AvailablePoint", amount::to_decimal(parapuan_of(pan))))
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_and_balances() {
        assert_eq!(parse_amount("1.01"), Some(101));
        assert_eq!(parse_amount("100"), Some(10_000));
        for bad in ["1,01", "1.001", "", "-1", "0", "0.00"] {
            assert_eq!(parse_amount(bad), None, "{bad}");
        }
        assert_eq!(parapuan_of("4155650100416111"), 416_111);
    }
}
