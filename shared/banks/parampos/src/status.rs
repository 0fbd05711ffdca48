//! The order's state at Param, from `TP_Islem_Sorgulama4`'s `DT_Bilgi` (MEWS
//! `ParamPosResponseDataMapper::mapStatusResponse` and its fixtures `status_*_response.json`):
//!
//! - `Durum`: `SUCCESS`, `CANCEL`, `REFUND`, `PARTIAL_REFUND`, `FAIL`, `BANK_FAIL`;
//! - `Islem_Tip`: `SALE`, `PRE_AUTH` (a pre-authorization, open or closed), `POST_AUTH`;
//! - `Toplam_Tutar` (decimal TL: the sale, or the held amount), `Toplam_Iade_Tutar` (refunded
//!   so far, decimal TL);
//! - `Bank_Extra`: the acquirer's own record as an escaped `<Extra>` document, whose
//!   `TRANS_STAT` tells an open pre-authorization (`A`) from a closed one (`C`, with the
//!   captured amount in kuruş in `CAPTURE_AMT`; fixture `status_post_pay_response`: held 10.01,
//!   captured 1021).
//!
//! No such order is `Sonuc -209` ("Transaction information could not found", Param's error
//! list; that `TP_Islem_Sorgulama4` uses it is this crate's reading, see the README). Anything
//! else that is not `Sonuc > 0` with a `DT_Bilgi` is a failed read (unavailable), never "not
//! found"; an answer whose figures do not fit its `Durum` is unavailable too.

use paygate_bankkit::{amount, xml, StatusRead};
use paygate_domain::{BankState, BankStatus};

use crate::response::{Fields, Reply};

/// `Sonuc` of "no such transaction".
pub const NOT_FOUND: &str = "-209";

/// What a `TP_Islem_Sorgulama4` answer says: no such order, a failed read, or `DT_Bilgi`.
pub type Inquiry = StatusRead<Fields>;

/// Reads a `TP_Islem_Sorgulama4` answer.
pub fn read(reply: &Reply) -> Inquiry {
    if reply.fault.is_some() || reply.method != "TP_Islem_Sorgulama4" {
        return Inquiry::Failed { code: reply.code() };
    }
    let ok = reply.sonuc().parse::<i64>().is_ok_and(|n| n > 0);
    match &reply.dt {
        Some(dt) if ok => Inquiry::Found(dt.clone()),
        _ if reply.sonuc() == NOT_FOUND => Inquiry::NotFound { code: reply.code() },
        _ => Inquiry::Failed { code: reply.code() },
    }
}

/// Reads a `TP_Islem_Sorgulama4` answer to a query for `order_id`: a `DT_Bilgi` about another
/// order (its `Siparis_ID`) is a failed read, never that order's state.
pub fn read_for(reply: &Reply, order_id: &str) -> Inquiry {
    match read(reply) {
        Inquiry::Found(dt) if dt.get("Siparis_ID") != order_id => Inquiry::Failed {
            code: "Siparis_ID".to_owned(),
        },
        other => other,
    }
}

/// `Bank_Extra`'s `TRANS_STAT` and `CAPTURE_AMT` (kuruş), when the document is readable.
pub fn extra(dt: &Fields) -> Option<(String, Option<i64>)> {
    let doc = xml::parse(dt.get("Bank_Extra")).ok()?;
    let stat = doc.text_at(&["TRANS_STAT"])?.to_owned();
    let captured = doc.text_at(&["CAPTURE_AMT"]).and_then(amount::parse_minor);
    Some((stat, captured))
}

/// The order's state from `DT_Bilgi`.
pub fn state_of(dt: &Fields) -> BankStatus {
    let status = |state: BankState, amount: i64, refunded: i64| BankStatus {
        found: true,
        state,
        amount,
        refunded_amount: refunded,
        code: dt.get("Durum").to_owned(),
        auth_code: dt.get("Bank_AuthCode").to_owned(),
        rrn: dt.get("Bank_HostRefNum").to_owned(),
    };
    let Some(total) = dt.amount("Toplam_Tutar").filter(|a| *a > 0) else {
        return BankStatus::unavailable("Toplam_Tutar");
    };
    let refunded = match dt.get("Toplam_Iade_Tutar") {
        "" => Some(0),
        s => amount::parse_decimal(s),
    };
    let Some(refunded) = refunded else {
        return BankStatus::unavailable("Toplam_Iade_Tutar");
    };
    let extra = extra(dt);
    let stat = extra.as_ref().map(|(s, _)| s.as_str());
    // The amount sold: a sale's total, a closed pre-authorization's captured amount.
    let sold = match dt.get("Islem_Tip") {
        "SALE" => Some(total),
        "PRE_AUTH" | "POST_AUTH" => extra.as_ref().and_then(|(_, c)| *c),
        _ => None,
    };
    match (dt.get("Durum"), dt.get("Islem_Tip")) {
        ("SUCCESS", "PRE_AUTH") if stat == Some("A") && refunded == 0 => {
            status(BankState::Preauth, total, 0)
        }
        ("SUCCESS", "SALE" | "PRE_AUTH" | "POST_AUTH") if stat != Some("A") && refunded == 0 => {
            match sold {
                Some(s) if s > 0 => status(BankState::Approved, s, 0),
                _ => BankStatus::unavailable("CAPTURE_AMT"),
            }
        }
        ("CANCEL", _) if refunded == 0 => status(BankState::Cancelled, sold.unwrap_or(total), 0),
        ("REFUND", _) => match sold {
            Some(s) if refunded == s => status(BankState::Refunded, s, refunded),
            _ => BankStatus::unavailable("Toplam_Iade_Tutar"),
        },
        ("PARTIAL_REFUND", _) => match sold {
            Some(s) if refunded > 0 && refunded < s => {
                status(BankState::PartiallyRefunded, s, refunded)
            }
            _ => BankStatus::unavailable("Toplam_Iade_Tutar"),
        },
        ("FAIL" | "BANK_FAIL", _) => status(BankState::Declined, total, 0),
        (durum, tip) => BankStatus::unavailable(&format!("Durum:{durum}/{tip}")),
    }
}
