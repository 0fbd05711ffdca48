//! What the simulated bank does with a request: the kit's order book for the money rules
//! (`OrderBook::new(true)`: a refund before the end-of-day cut is refused, a void after it
//! is refused), InterVPOS-shaped answers for its refusals.
//!
//! | case | ProcReturnCode | ErrorCode | ErrorMessage | source |
//! |---|---|---|---|---|
//! | wrong shop / user / password | 81 | B810002 | Terminal Aktif Degil | MEWS fixture (code reused) |
//! | Bonus inquiry not enabled | 81 | B810005 | Bonus sorgu yetkisi yok | simulator |
//! | technical error (faults), unreadable form | 91 | B910001 | Sistem hatasi | simulator |
//! | no such order | 99 | E39 | Islem bulunamadi | simulator (MEWS lists E39 as invalid transaction) |
//! | capture of no open pre-auth | 99 | E31 | Kapatilacak on provizyon yok | simulator (MEWS: E31 invalid transaction) |
//! | capture above the pre-auth | 99 | E32 | Tutar provizyon tutarini asiyor | simulator |
//! | zero or unparsable amount | 99 | E33 | Tutar gecersiz | simulator |
//! | currency mismatch | 99 | E34 | Para birimi uyusmuyor | simulator |
//! | nothing to void (voided, refunded) | 99 | E40 | Iptal edilecek islem yok | simulator |
//! | void after the end-of-day cut | 99 | E41 | Gun sonu yapilmis islem iptal edilemez | simulator |
//! | refund before the end-of-day cut | 99 | E42 | Gun sonu yapilmamis islem iade edilemez | simulator |
//! | refund above the remaining amount | 99 | E43 | Iade tutari kalan tutari asiyor | simulator |
//! | nothing to refund | 99 | E44 | Iade edilecek satis yok | simulator |
//! | card not in the Bonus programme | 99 | E51 | Kart Bonus programina dahil degil | simulator |
//! | unknown `TxnType` | 99 | E02 | Gecersiz islem tipi | simulator |

use paygate_bankkit::{
    form::Form,
    sim::{OrderState, Refusal, SimOrder},
};

use super::{InterPosSim, SimShop};

/// `(ProcReturnCode, ErrorCode, ErrorMessage)`.
pub type Code = (&'static str, &'static str, &'static str);

pub const BAD_USER: Code = ("81", "B810002", "Terminal Aktif Degil");
const NO_BONUS: Code = ("81", "B810005", "Bonus sorgu yetkisi yok");
pub const TECHNICAL: Code = ("91", "B910001", "Sistem hatasi");
pub const NOT_FOUND: Code = ("99", crate::response::NOT_FOUND, "Islem bulunamadi");
const NO_PREAUTH: Code = ("99", "E31", "Kapatilacak on provizyon yok");
const ABOVE_PREAUTH: Code = ("99", "E32", "Tutar provizyon tutarini asiyor");
const BAD_AMOUNT: Code = ("99", "E33", "Tutar gecersiz");
const CURRENCY: Code = ("99", "E34", "Para birimi uyusmuyor");
const NOTHING_TO_VOID: Code = ("99", "E40", "Iptal edilecek islem yok");
const AFTER_CUTOFF: Code = (
    "99",
    crate::response::AFTER_CUTOFF,
    "Gun sonu yapilmis islem iptal edilemez",
);
const BEFORE_CUTOFF: Code = ("99", "E42", "Gun sonu yapilmamis islem iade edilemez");
const ABOVE_REMAINING: Code = ("99", "E43", "Iade tutari kalan tutari asiyor");
const NOTHING_TO_REFUND: Code = ("99", "E44", "Iade edilecek satis yok");
const NOT_BONUS: Code = ("99", "E51", "Kart Bonus programina dahil degil");
const BAD_TYPE: Code = ("99", "E02", "Gecersiz islem tipi");

/// BINs the simulator treats as Denizbank Bonus cards.
pub const BONUS_BINS: &[&str] = &["402277", "408579", "520932", "544445"];

/// The simulated Bonus balance of a card: its last six digits read as kuruş.
pub fn bonus_of(pan: &str) -> i64 {
    pan.get(pan.len().saturating_sub(6)..)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// InterVPOS amounts: comma decimals.
pub fn amount_text(minor: i64) -> String {
    paygate_bankkit::amount::to_decimal(minor).replace('.', ",")
}

/// An answer's pairs.
pub type Answer = Vec<(&'static str, String)>;

/// A refusal.
pub fn refused(order_id: &str, code: Code) -> Answer {
    vec![
        ("OrderId", order_id.to_owned()),
        ("ProcReturnCode", code.0.to_owned()),
        ("HostRefNum", String::new()),
        ("AuthCode", String::new()),
        ("TxnResult", "Failed".to_owned()),
        ("ErrorMessage", code.2.to_owned()),
        ("TRXDATE", String::new()),
        ("TransId", String::new()),
        ("ErrorCode", code.1.to_owned()),
        ("Amount", "0".to_owned()),
    ]
}

fn approved(order_id: &str, rrn: &str, auth_code: &str, amount: i64, day: u32) -> Answer {
    vec![
        ("OrderId", order_id.to_owned()),
        ("ProcReturnCode", "00".to_owned()),
        ("HostRefNum", rrn.to_owned()),
        ("AuthCode", auth_code.to_owned()),
        ("TxnResult", "Success".to_owned()),
        ("ErrorMessage", String::new()),
        ("TRXDATE", trxdate(day)),
        ("TransId", format!("T{rrn}")),
        ("ErrorCode", String::new()),
        ("EarnedBonus", "0,00".to_owned()),
        ("UsedBonus", "0,00".to_owned()),
        ("AvailableBonus", "0,00".to_owned()),
        ("Amount", amount_text(amount)),
    ]
}

fn trxdate(day: u32) -> String {
    format!("{:02}.{:02}.2024 12:00:00", day % 28 + 1, day / 28 % 12 + 1)
}

/// `PurchAmount`: digits with an optional dot or comma and at most two decimals.
pub fn parse_amount(s: &str) -> Option<i64> {
    let s = s.trim();
    let (int, frac) = s.split_once(['.', ',']).unwrap_or((s, ""));
    let ok = !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.len() <= 2
        && frac.bytes().all(|b| b.is_ascii_digit());
    ok.then(|| crate::response::parse_amount(s))
        .flatten()
        .filter(|a| *a > 0)
}

/// Answers one authenticated request.
pub fn handle(sim: &InterPosSim, shop: &SimShop, f: &Form) -> Answer {
    let v = |k: &str| f.get(k).unwrap_or("").trim().to_owned();
    let order_id = v("orgOrderId");
    let client = shop.shop_code.as_str();
    let mut book = sim.state.book();
    let today = book.today();
    let done = |r: Result<paygate_bankkit::sim::SimTxn, Code>| match r {
        Ok(t) => approved(&order_id, &t.rrn, &t.auth_code, t.amount, t.day),
        Err(code) => refused(&order_id, code),
    };
    match v("TxnType").as_str() {
        "PostAuth" => {
            let Some(order) = book.get(client, &order_id).cloned() else {
                return refused(&order_id, NOT_FOUND);
            };
            let Some(amount) = parse_amount(&v("PurchAmount")) else {
                return refused(&order_id, BAD_AMOUNT);
            };
            if v("Currency") != order.currency.numeric() {
                return refused(&order_id, CURRENCY);
            }
            done(
                book.postauth(client, &order_id, amount)
                    .map_err(|r| match r {
                        Refusal::AmountAbovePreauth => ABOVE_PREAUTH,
                        Refusal::ZeroAmount => BAD_AMOUNT,
                        _ => NO_PREAUTH,
                    }),
            )
        }
        "Void" => {
            let capture_live = book.get(client, &order_id).is_some_and(|o| {
                o.state == OrderState::Sale
                    && o.history.iter().any(|t| t.kind == "postauth" && !t.voided)
            });
            let voided = if capture_live && sim.extra.void_reverses_capture_only {
                book.reverse_capture(client, &order_id)
            } else {
                book.void(client, &order_id)
            };
            done(voided.map_err(|r| match r {
                Refusal::NotFound => NOT_FOUND,
                Refusal::AfterEndOfDay => AFTER_CUTOFF,
                _ => NOTHING_TO_VOID,
            }))
        }
        "Refund" => {
            if book.get(client, &order_id).is_none() {
                return refused(&order_id, NOT_FOUND);
            }
            let Some(amount) = parse_amount(&v("PurchAmount")) else {
                return refused(&order_id, BAD_AMOUNT);
            };
            done(book.refund(client, &order_id, amount).map_err(|r| match r {
                Refusal::RefundBeforeEndOfDay => BEFORE_CUTOFF,
                Refusal::RefundAboveRemaining => ABOVE_REMAINING,
                Refusal::ZeroAmount => BAD_AMOUNT,
                _ => NOTHING_TO_REFUND,
            }))
        }
        "StatusHistory" => {
            drop(book);
            if sim.state.fault_plan().take_hidden(client, &order_id) {
                // A late booking (fault plan): the first query after it sees no record.
                return refused(&order_id, NOT_FOUND);
            }
            match sim.state.book().get(client, &order_id) {
                Some(o) => status_answer(o, today),
                None => refused(&order_id, NOT_FOUND),
            }
        }
        "BonusInquiry" => bonus(shop, f),
        _ => refused(&order_id, BAD_TYPE),
    }
}

/// The `StatusHistory` answer of an order.
pub fn status_answer(o: &SimOrder, today: u32) -> Answer {
    let first = o.history.first();
    let captured = o.history.iter().any(|t| t.kind == "postauth" && !t.voided);
    let (stat, status) = match o.state {
        OrderState::Declined => ("N", "D"),
        OrderState::Voided => ("V", "V"),
        OrderState::Preauth => ("N", "A"),
        OrderState::Sale if o.day < today => ("N", "S"),
        OrderState::Sale if captured => ("N", "K"),
        OrderState::Sale => ("N", "C"),
    };
    let void_date = o
        .history
        .iter()
        .rev()
        .find(|t| t.kind == "void")
        .map(|t| trxdate(t.day))
        .unwrap_or_else(|| "1.1.0001 00:00:00".to_owned());
    vec![
        ("OrderId", o.order_id.clone()),
        ("ProcReturnCode", "00".to_owned()),
        ("TxnResult", "Success".to_owned()),
        ("BatchNo", "1".to_owned()),
        (
            "TransId",
            first.map(|t| format!("T{}", t.rrn)).unwrap_or_default(),
        ),
        ("TRXDATE", trxdate(o.day)),
        ("TxnStat", stat.to_owned()),
        ("PurchAmount", amount_text(o.amount)),
        ("VoidDate", void_date),
        ("TxnStatus", status.to_owned()),
        ("ChargeTypeCd", "S".to_owned()),
        ("ErrorCode", String::new()),
        ("ErrorMessage", String::new()),
        ("RefundedAmount", amount_text(o.refunded)),
        (
            "AuthCode",
            first.map(|t| t.auth_code.clone()).unwrap_or_default(),
        ),
        (
            "HostRefNum",
            first.map(|t| t.rrn.clone()).unwrap_or_default(),
        ),
    ]
}

fn bonus(shop: &SimShop, f: &Form) -> Answer {
    let v = |k: &str| f.get(k).unwrap_or("").trim().to_owned();
    let order_id = v("OrderId");
    if !shop.bonus_inquiry {
        return refused(&order_id, NO_BONUS);
    }
    let pan = v("Pan");
    let expiry = v("Expiry");
    let cvv = v("Cvv2");
    let pan_ok = (13..=19).contains(&pan.len())
        && pan.bytes().all(|b| b.is_ascii_digit())
        && paygate_domain::bank::luhn_valid(&pan);
    let exp_ok = expiry.len() == 4
        && expiry.bytes().all(|b| b.is_ascii_digit())
        && matches!(expiry[..2].parse::<u8>(), Ok(1..=12));
    let cvv_ok = (3..=4).contains(&cvv.len()) && cvv.bytes().all(|b| b.is_ascii_digit());
    if !(pan_ok && exp_ok && cvv_ok) {
        return refused(&order_id, ("99", "E12", "Kart bilgileri gecersiz"));
    }
    if !BONUS_BINS.iter().any(|b| pan.starts_with(b)) {
        return refused(&order_id, NOT_BONUS);
    }
    let mut a = approved(&order_id, "", "", 0, 0);
    for (k, val) in a.iter_mut() {
        if *k == "AvailableBonus" {
            *val = amount_text(bonus_of(&pan));
        }
    }
    a.push(("BonusToBonus", "0".to_owned()));
    a.push(("FoldedBonus", "0".to_owned()));
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_and_balances() {
        assert_eq!(parse_amount("10.00"), Some(1_000));
        assert_eq!(parse_amount("10,5"), Some(1_050));
        assert_eq!(parse_amount("123.1"), Some(12_310));
        for bad in ["", "0", "1.234", "-1", "1e2"] {
            assert_eq!(parse_amount(bad), None, "{bad}");
        }
        assert_eq!(amount_text(123_456), "1234,56");
        assert_eq!(bonus_of("4022774022774026"), 774_026);
    }
}
