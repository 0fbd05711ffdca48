//! What the simulated bank does with an authenticated request: the kit's order book for the
//! money, Kuveyt Türk's rules and codes for its refusals, and the `OrderContract` it shows.
//!
//! | rule | method | answer |
//! |---|---|---|
//! | reversal past the sale's business day | SaleReversal | `InvalidRequestError` "İptal işlemi satışla aynı gün yapılmalıdır. Geçmiş tarihli işlem için iade yapınız." (MEWS serializer fixture) |
//! | reversal of a reversed sale | SaleReversal | `21` "İşlem daha önce iptal edilmiştir." (MEWS `tdv2_fail_already_cancelled`) |
//! | refund of a reversed sale | DrawBack, PartialDrawback | `Value/ResponseCode 28` "İptal Edilen İşlem İade Yapılamaz" (MEWS refund `fail1`) |
//! | `DrawBack` not of the sale's whole amount (or after a partial refund) | DrawBack | `TransactionAmountMismatchException` "Satış tutarı ile iade tutarı eşleşmemektedir. Değerleri kontrol ediniz." (mewebstudio/pos#204) |
//! | `DrawBack` on the sale's business day | DrawBack | `DbLayerError`, business result without code: "İade işlemi, satışla aynı gün içerisinde yapılamaz. İptal işlemi yapabilirsiniz." (MEWS functional test) |
//! | `PartialDrawback` of the whole sale on its business day | PartialDrawback | `DbLayerError`, business result without code: "Kısmi iade işlemi, satışla aynı gün içerisindeyse tutarın tamamı için yapılamaz. …" (MEWS `tdv2_fail_partial_refund_not_allowed`) |
//! | unknown order, references that do not match the sale, a refunded sale reversed, an amount above what is left or unreadable | any | `InvalidRequestError` (simulator texts) |
//!
//! A `PartialDrawback` of less than the whole sale goes through on the sale's day (MEWS
//! functional test `testPartialRefundSuccess`).

use paygate_bankkit::{
    amount,
    sim::{OrderState, Refusal, SimOrder, SimTxn},
};

use super::{
    wire::{self, Failure, SoapRequest},
    KuveytSim, SimClient,
};
use crate::{request::method, response::Fields};

const CUT: Failure = (
    "InvalidRequestError",
    "İptal işlemi satışla aynı gün yapılmalıdır. Geçmiş tarihli işlem için iade yapınız.",
);
const ALREADY_REVERSED: Failure = ("21", "İşlem daha önce iptal edilmiştir.");
const MISMATCH: Failure = (
    "TransactionAmountMismatchException",
    "Satış tutarı ile iade tutarı eşleşmemektedir. Değerleri kontrol ediniz.",
);
const REFUND_SAME_DAY: Failure = (
    "",
    "İade işlemi, satışla aynı gün içerisinde yapılamaz. İptal işlemi yapabilirsiniz.",
);
const PARTIAL_WHOLE_SAME_DAY: Failure = (
    "",
    "Kısmi iade işlemi, satışla aynı gün içerisindeyse tutarın tamamı için yapılamaz. Tutarın \
     tamamı için iptal işlemi yapabilirsiniz.",
);
const NOT_FOUND: Failure = ("InvalidRequestError", "Orijinal işlem bulunamadı.");
const REFS: Failure = ("InvalidRequestError", "İşlem referansları uyuşmamaktadır.");
const REFUNDED: Failure = (
    "InvalidRequestError",
    "İadesi yapılmış işlem iptal edilemez.",
);
const BAD_AMOUNT: Failure = ("InvalidRequestError", "Geçersiz tutar.");

/// Whether the method moves money (the fault plan and counters apply to it).
pub fn moves_money(m: &str) -> bool {
    matches!(
        m,
        method::SALE_REVERSAL | method::DRAW_BACK | method::PARTIAL_DRAWBACK
    )
}

/// The bank's order number of an order: from its sale's reference.
pub fn bank_order_id(sale: &SimTxn) -> String {
    let digits = &sale.rrn[sale.rrn.len().saturating_sub(8)..];
    format!("1{digits}")
}

/// The `Stan` of a transaction: the last six digits of its `RRN` (as in the MEWS fixtures).
pub fn stan(t: &SimTxn) -> String {
    t.rrn[t.rrn.len().saturating_sub(6)..].to_owned()
}

/// `2024-04-<15 + day>T12:00:00` (day 0 = the MEWS fixtures' 2024-04-15).
fn date(day: u32) -> String {
    format!("2024-04-{:02}T12:00:00", 15 + day % 14)
}

/// Answers one authenticated request of `user`.
pub(crate) fn handle(sim: &KuveytSim, user: &SimClient, req: &SoapRequest) -> Vec<u8> {
    let m = req.method.as_str();
    let order_id = req.message.get("MerchantOrderId");
    match m {
        method::ORDER_DETAIL => detail(sim, user, order_id),
        method::SALE_REVERSAL | method::DRAW_BACK | method::PARTIAL_DRAWBACK => {
            match money(sim, user, req) {
                Ok(answer) => answer,
                Err(failure) => wire::refusal(m, failure),
            }
        }
        _ => wire::fault_answer(m),
    }
}

fn detail(sim: &KuveytSim, user: &SimClient, order_id: &str) -> Vec<u8> {
    let client = &user.merchant_id;
    let hidden = sim.state.fault_plan().take_hidden(client, order_id);
    let order = if hidden {
        None
    } else {
        sim.state.book().get(client, order_id).cloned()
    };
    let today = sim.state.book().today();
    let contracts: Vec<Fields> = order.iter().map(|o| contract(user, o, today)).collect();
    wire::answer(
        method::ORDER_DETAIL,
        &[],
        "true",
        &Fields::default(),
        &contracts,
    )
}

/// The `OrderContract` of an order (the fields of MEWS fixture `tdv2_success_tx_pay`).
fn contract(user: &SimClient, o: &SimOrder, today: u32) -> Fields {
    let sale = o.history.iter().find(|t| t.kind == "sale");
    let (code, explain, last) = match (o.state, sale) {
        (OrderState::Voided, Some(_)) => ("00", "İşlem gerçekleştirildi.", "6"),
        (OrderState::Sale, Some(_)) if o.refunded > 0 && o.refundable() == 0 => {
            ("00", "İşlem gerçekleştirildi.", "4")
        }
        (OrderState::Sale, Some(_)) if o.refunded > 0 => ("00", "İşlem gerçekleştirildi.", "5"),
        (OrderState::Sale, Some(_)) => ("00", "İşlem gerçekleştirildi.", "1"),
        _ => ("05", "Red-Onaylanmadı", "8"),
    };
    let (auth, rrn, bank_id, stan) = sale
        .map(|t| {
            (
                t.auth_code.clone(),
                t.rrn.clone(),
                bank_order_id(t),
                stan(t),
            )
        })
        .unwrap_or_else(|| (String::new(), String::new(), "0".into(), String::new()));
    let cancelled = if o.state == OrderState::Voided {
        o.amount
    } else {
        0
    };
    Fields::default()
        .with("IsSelected", "false")
        .with("IsSelectable", "true")
        .with("OrderId", bank_id)
        .with("MerchantOrderId", &o.order_id)
        .with("MerchantId", &user.merchant_id)
        .with("CardHolderName", "John Doe")
        .with("CardType", "MasterCard")
        .with("CardNumber", "518896******2544")
        .with("OrderDate", date(o.day))
        .with("OrderStatus", "1")
        .with("LastOrderStatus", last)
        .with("OrderType", "1")
        .with("TransactionStatus", "1")
        .with("FirstAmount", amount::to_decimal(o.amount))
        .with("CancelAmount", amount::to_decimal(cancelled))
        .with("DrawbackAmount", amount::to_decimal(o.refunded))
        .with("ClosedAmount", "0.00")
        .with("FEC", crate::request::currency_code(o.currency))
        .with("InstallmentCount", "0")
        .with("TransactionSecurity", "1")
        .with("ResponseCode", code)
        .with("ResponseExplain", explain)
        .with("EndOfDayStatus", if o.day < today { "2" } else { "1" })
        .with("ProvNumber", auth)
        .with("RRN", rrn)
        .with("Stan", stan)
        .with("MerchantUserName", &user.user_name)
        .with("EndOfDayDate", "")
}

/// A reversal or refund: the order, its references, then the rules.
fn money(sim: &KuveytSim, user: &SimClient, req: &SoapRequest) -> Result<Vec<u8>, Failure> {
    let m = req.method.as_str();
    let client = user.merchant_id.as_str();
    let order_id = req.message.get("MerchantOrderId");
    let mut book = sim.state.book();
    let today = book.today();
    let o = book.get(client, order_id).cloned().ok_or(NOT_FOUND)?;
    let sale = o
        .history
        .iter()
        .find(|t| t.kind == "sale")
        .cloned()
        .ok_or(NOT_FOUND)?;
    let f = &req.fields;
    let refs_match = f.get("OrderId") == bank_order_id(&sale)
        && f.get("RRN") == sale.rrn
        && f.get("Stan") == stan(&sale)
        && f.get("ProvisionNumber") == sale.auth_code;
    if !refs_match {
        return Err(REFS);
    }
    let amount = parse_amount(req.message.get("Amount")).ok_or(BAD_AMOUNT)?;
    if f.get("Amount") != req.message.get("Amount") {
        return Err(BAD_AMOUNT);
    }
    let approved = |t: &SimTxn| Ok(approved(m, &o, &sale, t));
    if m == method::SALE_REVERSAL {
        if o.state == OrderState::Voided {
            return Err(ALREADY_REVERSED);
        }
        if amount != o.amount {
            return Err(MISMATCH);
        }
        if o.refunded > 0 {
            return Err(REFUNDED);
        }
        return match book.void(client, order_id) {
            Ok(t) => approved(&t),
            Err(Refusal::AfterEndOfDay) => Err(CUT),
            Err(_) => Err(NOT_FOUND),
        };
    }
    if o.state == OrderState::Voided {
        return Ok(refund_of_reversed(m, &o, &sale));
    }
    let same_day = o.day >= today;
    if m == method::DRAW_BACK {
        if amount != o.amount || o.refunded > 0 {
            return Err(MISMATCH);
        }
        if same_day {
            return Err(REFUND_SAME_DAY);
        }
    } else if same_day && amount == o.amount {
        return Err(PARTIAL_WHOLE_SAME_DAY);
    }
    match book.refund(client, order_id, amount) {
        Ok(t) => approved(&t),
        Err(_) => Err(BAD_AMOUNT),
    }
}

/// Kuveyt's kuruş digits, above zero.
fn parse_amount(s: &str) -> Option<i64> {
    (!s.is_empty() && s.len() <= 15 && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse::<i64>().ok())
        .flatten()
        .filter(|a| *a > 0)
}

fn approved(m: &str, o: &SimOrder, sale: &SimTxn, t: &SimTxn) -> Vec<u8> {
    let value = Fields::default()
        .with("IsEnrolled", "false")
        .with("IsVirtual", "false")
        .with("ProvisionNumber", &t.auth_code)
        .with("RRN", &t.rrn)
        .with("Stan", stan(t))
        .with("ResponseCode", "00")
        .with("ResponseMessage", "OTORİZASYON VERİLDİ")
        .with("OrderId", bank_order_id(sale))
        .with("TransactionTime", date(t.day))
        .with("MerchantOrderId", &o.order_id)
        .with("CurrencyCode", crate::request::currency_code(o.currency))
        .with("MerchantId", "")
        .with("BusinessKey", format!("20240415{}", t.rrn));
    wire::answer(m, &[], "true", &value, &[])
}

/// MEWS refund `fail1`: the code in `Value`, no `Results`.
fn refund_of_reversed(m: &str, o: &SimOrder, sale: &SimTxn) -> Vec<u8> {
    let value = Fields::default()
        .with("IsEnrolled", "")
        .with("IsVirtual", "")
        .with("RRN", &sale.rrn)
        .with("Stan", stan(sale))
        .with("ResponseCode", "28")
        .with("ResponseMessage", "İptal Edilen İşlem İade Yapılamaz")
        .with("OrderId", bank_order_id(sale))
        .with("MerchantOrderId", &o.order_id)
        .with("CurrencyCode", crate::request::currency_code(o.currency))
        .with("MerchantId", "");
    wire::answer(m, &[], "", &value, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_and_references() {
        assert_eq!(parse_amount("101"), Some(101));
        for bad in ["1.01", "", "-1", "0", "1e3"] {
            assert_eq!(parse_amount(bad), None, "{bad}");
        }
        let t = SimTxn {
            kind: "sale",
            amount: 1,
            rrn: "600000000042".into(),
            auth_code: "100042".into(),
            day: 0,
            voided: false,
        };
        assert_eq!(
            (bank_order_id(&t), stan(&t)),
            ("100000042".into(), "000042".into())
        );
    }
}
