//! What the simulated bank does with a `VposRequest`: the kit's order book for the money
//! rules (`OrderBook::new(false)`: refunds the same day are allowed; a cancel after the
//! end-of-day cut is refused; a cancel of a capture releases the whole order, or — variant
//! `capture_cancel_only` — the capture alone), VakıfBank's codes for its refusals.
//!
//! | case | ResultCode | ResultDetail | source |
//! |---|---|---|---|
//! | unknown merchant / wrong password | 9039 | Üye işyeri bulunamadı. | MEWS fixture |
//! | wrong terminal on a capture | 9040 | Terminal bulunamadı. | simulator |
//! | unreadable request | 9001 | İstek okunamadı. | simulator |
//! | technical error (faults) | 9998 | Sistem geçici olarak hizmet veremiyor. | simulator |
//! | no such reference | 1016 | Referans işlem bulunamadı. | simulator |
//! | already cancelled | 1083 | Referans islem daha önceden iptal edilmis. | MEWS fixture |
//! | fully refunded | 1059 | İşlemin tamamı iade edilmiş. | MEWS fixture |
//! | cancel after the end-of-day cut | 1082 | Gün sonu yapılmış işlem iptal edilemez. | simulator |
//! | cancel of a refunded sale | 1084 | İade işlemi olan işlem iptal edilemez. | simulator |
//! | capture of no open pre-auth | 1085 | Kapatılacak açık provizyon bulunamadı. | simulator |
//! | capture above the pre-auth | 1086 | Kapama tutarı provizyon tutarını aşamaz. | simulator |
//! | refund above the remaining amount | 1087 | İade tutarı kalan tutarı aşamaz. | simulator |
//! | zero or unparsable amount | 1088 | Tutar geçersiz. | simulator |
//! | other transaction types | 1089 | İşlem tipi desteklenmiyor. | simulator |
//! | refund of a pre-auth or cancelled sale | 1090 | İade edilecek satış bulunamadı. | simulator |
//! | currency mismatch | 1091 | Para birimi uyuşmuyor. | simulator |

use paygate_bankkit::{
    sim::{OrderState, Refusal},
    xml::Element,
};

use super::{
    wire::{host_date, rrn_of, transaction_id, VposAnswer},
    PayFlexSim,
};

/// A code and its text.
pub type Code = (&'static str, &'static str);

pub const UNKNOWN_MERCHANT: Code = ("9039", "Üye işyeri bulunamadı.");
pub const UNKNOWN_TERMINAL: Code = ("9040", "Terminal bulunamadı.");
pub const UNREADABLE: Code = ("9001", "İstek okunamadı.");
pub const TECHNICAL: Code = ("9998", "Sistem geçici olarak hizmet veremiyor.");
const NO_REFERENCE: Code = ("1016", "Referans işlem bulunamadı.");
const ALREADY_CANCELLED: Code = ("1083", "Referans islem daha önceden iptal edilmis.");
const FULLY_REFUNDED: Code = ("1059", "İşlemin tamamı iade edilmiş.");
const AFTER_CUTOFF: Code = (
    crate::response::AFTER_CUTOFF,
    "Gün sonu yapılmış işlem iptal edilemez.",
);
const REFUNDED_SALE: Code = ("1084", "İade işlemi olan işlem iptal edilemez.");
const NO_OPEN_PREAUTH: Code = ("1085", "Kapatılacak açık provizyon bulunamadı.");
const ABOVE_PREAUTH: Code = ("1086", "Kapama tutarı provizyon tutarını aşamaz.");
const ABOVE_REMAINING: Code = ("1087", "İade tutarı kalan tutarı aşamaz.");
const BAD_AMOUNT: Code = ("1088", "Tutar geçersiz.");
const BAD_TYPE: Code = ("1089", "İşlem tipi desteklenmiyor.");
const NOTHING_TO_REFUND: Code = ("1090", "İade edilecek satış bulunamadı.");
const CURRENCY: Code = ("1091", "Para birimi uyuşmuyor.");

fn refuse(c: Code) -> VposAnswer {
    VposAnswer::refused(c.0, c.1)
}

/// `CurrencyAmount`: digits, an optional dot and at most two decimals.
pub fn parse_amount(s: &str) -> Option<i64> {
    let s = s.trim();
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let ok = !int.is_empty()
        && int.len() <= 12
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.len() <= 2
        && frac.bytes().all(|b| b.is_ascii_digit())
        && !(s.contains('.') && frac.is_empty());
    ok.then(|| paygate_bankkit::amount::parse_decimal(s))
        .flatten()
        .filter(|a| *a > 0)
}

/// Whether the request names a known merchant (and terminal, when it carries one).
pub fn authenticate<'s>(
    sim: &'s PayFlexSim,
    req: &Element,
) -> Result<&'s super::SimMerchant, Code> {
    let t = |n: &str| req.text_at(&[n]).unwrap_or("").trim().to_owned();
    let merchant =
        super::merchant(sim, &t("MerchantId"), &t("Password")).ok_or(UNKNOWN_MERCHANT)?;
    let terminal = t("TerminalNo");
    if !terminal.is_empty() && terminal != merchant.terminal_no {
        return Err(UNKNOWN_TERMINAL);
    }
    Ok(merchant)
}

/// Answers one authenticated `VposRequest`.
pub fn handle(sim: &PayFlexSim, merchant: &super::SimMerchant, req: &Element) -> VposAnswer {
    let t = |n: &str| req.text_at(&[n]).unwrap_or("").trim().to_owned();
    let kind = t("TransactionType");
    let reference = t("ReferenceTransactionId");
    let client = merchant.merchant_id.as_str();
    let mut book = sim.state.book();
    let Some((order_id, target_kind)) = book
        .find_by_rrn(client, rrn_of(&reference))
        .filter(|_| !reference.is_empty())
        .map(|(o, txn)| (o.order_id.clone(), txn.kind))
    else {
        return refuse(
            if matches!(kind.as_str(), "Capture" | "Cancel" | "Refund") {
                NO_REFERENCE
            } else {
                BAD_TYPE
            },
        );
    };
    let Some(order) = book.get(client, &order_id).cloned() else {
        return refuse(NO_REFERENCE);
    };
    let applied = match kind.as_str() {
        "Capture" => {
            let Some(amount) = parse_amount(&t("CurrencyAmount")) else {
                return refuse(BAD_AMOUNT);
            };
            if t("CurrencyCode") != order.currency.numeric() {
                return refuse(CURRENCY);
            }
            if target_kind != "preauth" {
                return refuse(NO_OPEN_PREAUTH);
            }
            book.postauth(client, &order_id, amount)
                .map_err(|r| match r {
                    Refusal::AmountAbovePreauth => ABOVE_PREAUTH,
                    Refusal::ZeroAmount => BAD_AMOUNT,
                    _ if order.state == OrderState::Voided => ALREADY_CANCELLED,
                    _ => NO_OPEN_PREAUTH,
                })
        }
        "Cancel" => {
            if order.state == OrderState::Voided {
                return refuse(ALREADY_CANCELLED);
            }
            if target_kind == "refund" || target_kind == "void" {
                return refuse(BAD_TYPE);
            }
            if order.refunded > 0 {
                return refuse(REFUNDED_SALE);
            }
            let voided = if target_kind == "postauth" && sim.extra.capture_cancel_only {
                book.reverse_capture(client, &order_id)
            } else {
                book.void(client, &order_id)
            };
            voided.map_err(|r| match r {
                Refusal::AfterEndOfDay => AFTER_CUTOFF,
                _ => ALREADY_CANCELLED,
            })
        }
        "Refund" => {
            let Some(amount) = parse_amount(&t("CurrencyAmount")) else {
                return refuse(BAD_AMOUNT);
            };
            if !matches!(target_kind, "sale" | "postauth") {
                return refuse(NOTHING_TO_REFUND);
            }
            book.refund(client, &order_id, amount).map_err(|r| match r {
                Refusal::RefundAboveRemaining => ABOVE_REMAINING,
                Refusal::ZeroAmount => BAD_AMOUNT,
                _ if order.refunded > 0 && order.refundable() == 0 => FULLY_REFUNDED,
                _ if order.state == OrderState::Voided => ALREADY_CANCELLED,
                _ => NOTHING_TO_REFUND,
            })
        }
        _ => return refuse(BAD_TYPE),
    };
    match applied {
        Ok(txn) => VposAnswer {
            merchant_id: client.to_owned(),
            transaction_type: kind,
            transaction_id: transaction_id(&txn),
            reference,
            result_code: crate::response::APPROVED.to_owned(),
            result_detail: "İŞLEM BAŞARILI".to_owned(),
            auth_code: txn.auth_code.clone(),
            host_date: host_date(txn.day),
            rrn: txn.rrn.clone(),
            terminal_no: merchant.terminal_no.clone(),
            amount: Some(txn.amount),
            currency: order.currency.numeric().to_owned(),
        },
        Err(code) => refuse(code),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts() {
        assert_eq!(parse_amount("1.01"), Some(101));
        assert_eq!(parse_amount("1000.00"), Some(100_000));
        assert_eq!(parse_amount("5"), Some(500));
        for bad in ["", "0", "0.00", "1,01", "1.001", "1.", "-1", "1e3"] {
            assert_eq!(parse_amount(bad), None, "{bad}");
        }
    }
}
