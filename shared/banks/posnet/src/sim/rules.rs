//! The bank's rules, on the kit's order book, with Yapı Kredi's own codes (bank document §5):
//!
//! | situation | answer |
//! |---|---|
//! | wrong `mid`/`tid` | `0148 INVALID MID TID IP` |
//! | order id used before (sale/auth) | `approved 2`, `0127 ORDERID DAHA ONCE KULLANILMIS` |
//! | reference / order not found, auth code mismatch | `0123 ORJINAL ISLEM BULUNAMADI` |
//! | capt of a reversed authorization | `0015 PROVIZYON BULUNAMADI` |
//! | capt twice, capt of a sale, refund of an open authorization, currency mismatch | `0200 GECERSIZ ISLEM` |
//! | capt above the authorization, refund above the remaining amount, amount > 99.999,99 TL | `0205 GECERSIZ TUTAR` |
//! | reverse of a sale/capture after the end-of-day cut | `0211 GRUP KAPAMA YAPILMIS` |
//! | reverse of a reversed transaction | `0220 IPTAL ISLEMI YAPILMIS` |
//! | refund on the capture's own business day | `0411 ISLEM HENUZ FINANSALLASMAMIS` |
//! | reverse of a captured authorization | `0788 FINANSAL ISLEM YAPILMIS` |
//! | malformed field | `0150 PAKET HATALI (FIELD)` |
//!
//! An authorization may be reversed after the cut (the bank allows it for a week); a
//! reversed capture leaves the authorization open again.

use paygate_bankkit::sim::{OrderBook, OrderState, Refusal, SimOrder, SimTxn};
use paygate_domain::{ports::TestOrderState, Currency};

use super::parse::{bad_field, Op, Rejection, Request};
use crate::{codes, request::Reversal, status::Kind, wire};

/// One row of an `agreement` answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub kind: Kind,
    pub amount: i64,
    pub currency: Currency,
    pub ok: bool,
    pub host_log_key: String,
    pub auth_code: String,
    pub day: u32,
}

/// WorldPuan of a card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Points {
    pub total_point: i64,
    pub total_point_amount: i64,
}

/// What the bank answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Approved {
        host_log_key: String,
        auth_code: String,
        day: u32,
    },
    Status {
        order_id: String,
        rows: Vec<Row>,
    },
    Points(Points),
    Refused {
        approved: &'static str,
        code: &'static str,
        text: String,
        host_log_key: String,
        auth_code: String,
    },
}

pub fn refused(code: &'static str) -> Answer {
    Answer::Refused {
        approved: codes::NOT_APPROVED,
        code,
        text: codes::text(code).to_owned(),
        host_log_key: String::new(),
        auth_code: String::new(),
    }
}

impl From<Rejection> for Answer {
    fn from(r: Rejection) -> Self {
        Answer::Refused {
            approved: codes::NOT_APPROVED,
            code: r.code,
            text: r.text,
            host_log_key: String::new(),
            auth_code: String::new(),
        }
    }
}

/// The bank's reference for a book transaction: the kit's 12-digit rrn, zero-padded to
/// Posnet's 18 characters (`021450428990000191`-shaped).
pub fn host_log_key(rrn: &str) -> String {
    format!("{rrn:0>18}")
}

fn rrn_of(host_log_key: &str) -> Option<&str> {
    (host_log_key.len() == 18).then(|| &host_log_key[6..])
}

/// Bank key of an order from a sale's 20-character `orderID` (left-padded to 24).
pub fn order_key(order_id: &str) -> String {
    format!("{order_id:0>24}")
}

/// BIN prefixes of Yapı Kredi World cards the simulator knows (BKM list `540129`; the
/// bank's sample card `540063…`; MEWS's YKB status sample `450634…`).
pub const WORLD_BINS: [&str; 3] = ["540129", "540063", "450634"];

fn approved(t: &SimTxn) -> Answer {
    Answer::Approved {
        host_log_key: host_log_key(&t.rrn),
        auth_code: t.auth_code.clone(),
        day: t.day,
    }
}

fn amount(r: &Request) -> Result<i64, Answer> {
    match wire::parse_wire_amount(r.field("amount")) {
        Some(a) if a > wire::MAX_AMOUNT => Err(refused(codes::INVALID_AMOUNT)),
        Some(a) if a > 0 => Ok(a),
        _ => Err(bad_field("amount").into()),
    }
}

fn currency(r: &Request) -> Result<Currency, Answer> {
    wire::parse_currency_code(r.field("currencyCode"))
        .ok_or_else(|| bad_field("currencyCode").into())
}

fn valid_card(number: &str) -> bool {
    (12..=19).contains(&number.len()) && number.bytes().all(|b| b.is_ascii_digit())
}

fn valid_exp(exp: &str) -> bool {
    exp.len() == 4
        && exp.bytes().all(|b| b.is_ascii_digit())
        && exp[2..].parse::<u32>().is_ok_and(|m| (1..=12).contains(&m))
}

fn valid_order_id(id: &str, max: usize) -> bool {
    !id.is_empty() && id.len() <= max && id.chars().all(wire::is_order_id_char)
}

/// Runs one request against the book of merchant `r.mid` (credentials already checked).
pub fn handle(book: &mut OrderBook, r: &Request) -> Answer {
    let result = match r.op {
        Op::Sale | Op::Auth => payment(book, r),
        Op::Capt => capt(book, r),
        Op::Reverse => reverse(book, r),
        Op::Return => refund(book, r),
        Op::Agreement => agreement(book, r),
        Op::PointInquiry => point_inquiry(r),
    };
    result.unwrap_or_else(|refusal| refusal)
}

fn payment(book: &mut OrderBook, r: &Request) -> Result<Answer, Answer> {
    let id = r.field("orderID");
    if !valid_order_id(id, wire::PAYMENT_ORDER_ID_LEN) {
        return Err(bad_field("orderID").into());
    }
    if !valid_card(r.field("ccno")) {
        return Err(bad_field("ccno").into());
    }
    if !valid_exp(r.field("expDate")) {
        return Err(bad_field("expDate").into());
    }
    let cvc = r.field("cvc");
    if !(cvc == "XXX" || (3..=4).contains(&cvc.len()) && cvc.bytes().all(|b| b.is_ascii_digit())) {
        return Err(bad_field("cvc").into());
    }
    let inst = r.field("installment");
    if r.has("installment") && !(inst.len() == 2 && inst.bytes().all(|b| b.is_ascii_digit())) {
        return Err(bad_field("installment").into());
    }
    let (amount, currency) = (amount(r)?, currency(r)?);
    let key = order_key(id);
    let state = if r.op == Op::Auth {
        TestOrderState::Preauth
    } else {
        TestOrderState::Approved
    };
    match book.register(&r.mid, &key, amount, currency, state, false) {
        Ok(()) => {}
        Err(Refusal::Duplicate) => {
            let first = book.get(&r.mid, &key).and_then(|o| o.history.first());
            return Err(Answer::Refused {
                approved: codes::ALREADY_APPROVED,
                code: codes::DUPLICATE_ORDER,
                text: format!(
                    "{} {}",
                    codes::text(codes::DUPLICATE_ORDER),
                    codes::DUPLICATE_ORDER
                ),
                host_log_key: first.map(|t| host_log_key(&t.rrn)).unwrap_or_default(),
                auth_code: first.map(|t| t.auth_code.clone()).unwrap_or_default(),
            });
        }
        Err(_) => return Err(refused(codes::INVALID_OPERATION)),
    }
    book.get(&r.mid, &key)
        .and_then(|o| o.history.first())
        .map(approved)
        .ok_or_else(|| refused(codes::DB_ERROR))
}

/// The order and transaction a `hostLogKey` names.
fn by_key<'a>(
    book: &'a OrderBook,
    mid: &str,
    key: &str,
) -> Result<(&'a SimOrder, &'a SimTxn), Answer> {
    rrn_of(key)
        .and_then(|rrn| book.find_by_rrn(mid, rrn))
        .ok_or_else(|| refused(codes::NOT_FOUND))
}

fn capt(book: &mut OrderBook, r: &Request) -> Result<Answer, Answer> {
    let (amount, currency) = (amount(r)?, currency(r)?);
    let (order, txn) = by_key(book, &r.mid, r.field("hostLogKey"))?;
    if txn.kind != "preauth" || order.currency != currency {
        return Err(refused(codes::INVALID_OPERATION));
    }
    if order.state == OrderState::Voided {
        return Err(refused(codes::NO_PREAUTH));
    }
    let order_id = order.order_id.clone();
    book.postauth(&r.mid, &order_id, amount)
        .map(|t| approved(&t))
        .map_err(|e| match e {
            Refusal::AmountAbovePreauth => refused(codes::INVALID_AMOUNT),
            Refusal::ZeroAmount => bad_field("amount").into(),
            Refusal::NotFound => refused(codes::NOT_FOUND),
            _ => refused(codes::INVALID_OPERATION),
        })
}

fn book_kind(of: Reversal) -> &'static str {
    match of {
        Reversal::Sale => "sale",
        Reversal::Auth => "preauth",
        Reversal::Capt => "postauth",
    }
}

fn reverse(book: &mut OrderBook, r: &Request) -> Result<Answer, Answer> {
    let of = Reversal::parse(r.field("transaction"))
        .ok_or_else(|| Answer::from(bad_field("transaction")))?;
    let kind = book_kind(of);
    // Locate the order and the index of the transaction to reverse.
    let (order_id, index) = if r.has("hostLogKey") {
        let (order, txn) = by_key(book, &r.mid, r.field("hostLogKey"))?;
        let index = order
            .history
            .iter()
            .position(|t| t.rrn == txn.rrn)
            .unwrap_or_default();
        (order.order_id.clone(), index)
    } else if r.has("orderID") {
        let id = r.field("orderID");
        if !valid_order_id(id, wire::ORDER_ID_LEN) || id.len() != wire::ORDER_ID_LEN {
            return Err(bad_field("orderID").into());
        }
        let order = book
            .get(&r.mid, id)
            .ok_or_else(|| refused(codes::NOT_FOUND))?;
        let newest = |live: bool| {
            order
                .history
                .iter()
                .rposition(|t| t.kind == kind && (!live || !t.voided))
        };
        let index = newest(true)
            .or_else(|| newest(false))
            .ok_or_else(|| refused(codes::NOT_FOUND))?;
        (id.to_owned(), index)
    } else {
        return Err(bad_field("hostLogKey").into());
    };
    let today = book.today();
    let order = book
        .get_mut(&r.mid, &order_id)
        .ok_or_else(|| refused(codes::NOT_FOUND))?;
    let txn = order
        .history
        .get(index)
        .cloned()
        .ok_or_else(|| refused(codes::NOT_FOUND))?;
    let auth = r.field("authCode");
    if txn.kind != kind || (!auth.is_empty() && auth != txn.auth_code) {
        return Err(refused(codes::NOT_FOUND));
    }
    if txn.voided {
        return Err(refused(codes::ALREADY_REVERSED));
    }
    let captured = order
        .history
        .iter()
        .any(|t| t.kind == "postauth" && !t.voided);
    match of {
        Reversal::Auth if captured => return Err(refused(codes::ALREADY_CAPTURED)),
        Reversal::Sale | Reversal::Capt if txn.day < today || order.refunded > 0 => {
            return Err(refused(codes::BATCH_CLOSED))
        }
        _ => {}
    }
    if let Some(t) = order.history.get_mut(index) {
        t.voided = true;
    }
    if of == Reversal::Capt {
        // The capture is undone; the authorization holds again.
        if let Some(pre) = order.history.iter().find(|t| t.kind == "preauth") {
            order.amount = pre.amount;
            order.day = pre.day;
        }
        order.state = OrderState::Preauth;
    } else {
        order.state = OrderState::Voided;
    }
    let void = SimTxn {
        kind: "void",
        amount: txn.amount,
        // The reversed transaction's rrn with a leading 9: unique, since book rrns start with 6.
        rrn: format!("9{}", txn.rrn.get(1..).unwrap_or_default()),
        auth_code: txn.auth_code.clone(),
        day: today,
        voided: false,
    };
    order.history.push(void.clone());
    Ok(approved(&void))
}

fn refund(book: &mut OrderBook, r: &Request) -> Result<Answer, Answer> {
    let (amount, currency) = (amount(r)?, currency(r)?);
    let order_id = if r.has("hostLogKey") {
        let (order, txn) = by_key(book, &r.mid, r.field("hostLogKey"))?;
        if txn.kind == "preauth" {
            return Err(refused(codes::INVALID_OPERATION));
        }
        order.order_id.clone()
    } else if r.has("orderID") {
        let id = r.field("orderID");
        if !valid_order_id(id, wire::ORDER_ID_LEN) || id.len() != wire::ORDER_ID_LEN {
            return Err(bad_field("orderID").into());
        }
        id.to_owned()
    } else {
        return Err(bad_field("hostLogKey").into());
    };
    let order = book
        .get(&r.mid, &order_id)
        .ok_or_else(|| refused(codes::NOT_FOUND))?;
    match order.state {
        _ if order.currency != currency => return Err(refused(codes::INVALID_OPERATION)),
        OrderState::Preauth => return Err(refused(codes::INVALID_OPERATION)),
        OrderState::Voided | OrderState::Declined => return Err(refused(codes::NOT_FOUND)),
        OrderState::Sale => {}
    }
    book.refund(&r.mid, &order_id, amount)
        .map(|t| approved(&t))
        .map_err(|e| match e {
            Refusal::RefundBeforeEndOfDay => refused(codes::NOT_SETTLED),
            Refusal::ZeroAmount => bad_field("amount").into(),
            Refusal::NotFound => refused(codes::NOT_FOUND),
            _ => refused(codes::INVALID_AMOUNT),
        })
}

fn agreement(book: &OrderBook, r: &Request) -> Result<Answer, Answer> {
    let id = r.field("orderID");
    if id.len() != wire::ORDER_ID_LEN || !valid_order_id(id, wire::ORDER_ID_LEN) {
        return Err(bad_field("orderID").into());
    }
    let order = book
        .get(&r.mid, id)
        .ok_or_else(|| refused(codes::NOT_FOUND))?;
    let rows = if order.history.is_empty() {
        // A declined attempt: listed, not successful.
        vec![Row {
            kind: Kind::Sale,
            amount: order.amount,
            currency: order.currency,
            ok: false,
            host_log_key: String::new(),
            auth_code: String::new(),
            day: order.day,
        }]
    } else {
        order
            .history
            .iter()
            .map(|t| Row {
                kind: match t.kind {
                    "preauth" => Kind::Auth,
                    "postauth" => Kind::Capt,
                    "void" => Kind::Reverse,
                    "refund" => Kind::Return,
                    _ => Kind::Sale,
                },
                amount: t.amount,
                currency: order.currency,
                ok: true,
                host_log_key: host_log_key(&t.rrn),
                auth_code: t.auth_code.clone(),
                day: t.day,
            })
            .collect()
    };
    Ok(Answer::Status {
        order_id: id.to_owned(),
        rows,
    })
}

fn point_inquiry(r: &Request) -> Result<Answer, Answer> {
    let number = r.field("ccno");
    if !valid_card(number) {
        return Err(bad_field("ccno").into());
    }
    if !valid_exp(r.field("expDate")) {
        return Err(bad_field("expDate").into());
    }
    if !WORLD_BINS.iter().any(|bin| number.starts_with(bin)) {
        // Not a World card: no WorldPuan to ask about.
        return Err(refused(codes::INVALID_TXN));
    }
    let tail: i64 = number[number.len() - 6..].parse().unwrap_or_default();
    // 1 WorldPuan = half a kuruş, as in the bank's sample (11742 points = 58.71 TL).
    let total_point = 2 * (tail % 50_000 + 100);
    Ok(Answer::Points(Points {
        total_point,
        total_point_amount: total_point / 2,
    }))
}
