//! What the simulated service does with a request: the kit's order book for the money rules,
//! Param's `Sonuc` codes for its refusals (dev.param.com.tr "Hata Kodları"; the texts are the
//! list's English ones), and its `TP_Islem_Sorgulama4` rendering (MEWS fixtures).
//!
//! | book refusal | method | Sonuc |
//! |---|---|---|
//! | wrong `G` object or `GUID` | any | -100 Account is not found |
//! | unknown order | any | -209 Transaction information could not found |
//! | nothing to close, release, cancel or refund | OnProv_Kapa, Iptal_OnProv, Kismi2 | -210 No action was found for the Cancellation/Return |
//! | cancel of a cancelled order | Iptal_OnProv, Kismi2 IPTAL | -211 Transaction status: Cancellation |
//! | `IPTAL` of a refunded order | Kismi2 IPTAL | -212 Transaction status: Refund |
//! | `IADE` on the sale's own day | Kismi2 IADE | -213 (cancel it instead) |
//! | `IPTAL` after the sale's day | Kismi2 IPTAL | -214 (refund it instead) |
//! | `IPTAL` for less than the whole amount | Kismi2 IPTAL | -1 (simulator text; the code is not documented) |
//! | zero amount | OnProv_Kapa, Kismi2 | -113 The amount should not be less than or equal to 0 |
//! | `Prov_Tutar` with a dot | OnProv_Kapa | -112 Amount format is invalid |
//! | amount above the held or the refundable amount | OnProv_Kapa, Kismi2 IADE | -1 (simulator text) |
//! | `Tutar` not an `xs:double`, unknown method or `Durum` | any | `soap:Fault` |
//!
//! An open pre-authorization is released on any day (the cut applies to `IPTAL` only).

use paygate_bankkit::{
    amount,
    sim::{OrderState, Refusal, SimOrder, SimTxn},
    xml::Element,
};

use super::{
    wire::{Answer, Fields},
    ParamSim, SimClient,
};

pub const APPROVED: &str = "İşlem Başarılı";
const BAD_ACCOUNT: (&str, &str) = ("-100", "Account is not found");
pub const NOT_FOUND: (&str, &str) = ("-209", "Transaction information could not found");
const NOTHING: (&str, &str) = ("-210", "No action was found for the Cancellation/Return");
const CANCELLED: (&str, &str) = ("-211", "Transaction status: Cancellation");
const REFUNDED: (&str, &str) = ("-212", "Transaction status: Refund");
pub const REFUND_SAME_DAY: (&str, &str) =
    ("-213", "Action to be returned is requested to be canceled");
pub const CANCEL_AFTER_DAY: (&str, &str) =
    ("-214", "Action to be returned is requested to be replyed");
const PARTIAL_CANCEL: (&str, &str) = ("-1", "İptal işleminde tutarın tamamı yazılmalıdır.");
const ZERO: (&str, &str) = ("-113", "The amount should not be less than or equal to 0");
const DOT: (&str, &str) = (
    "-112",
    "Amount format is invalid. Do not use dot. For the Kuruş format send with a comma",
);
const ABOVE: (&str, &str) = ("-1", "Tutar, işlem tutarından büyük olamaz.");

/// The money methods (the kit's fault plan applies to these).
pub const MONEY: [&str; 3] = [
    "TP_Islem_Odeme_OnProv_Kapa",
    "TP_Islem_Iptal_OnProv",
    "TP_Islem_Iptal_Iade_Kismi2",
];

/// Answers one readable request: authenticates the account, then dispatches on the method.
pub(crate) fn handle(sim: &ParamSim, method: &str, req: &Element) -> Answer {
    let text = |path: &[&str]| req.text_at(path).unwrap_or("").trim().to_owned();
    let client = sim.user(|c| {
        c.client_code == text(&["G", "CLIENT_CODE"])
            && c.client_username == text(&["G", "CLIENT_USERNAME"])
            && c.client_password.matches(&text(&["G", "CLIENT_PASSWORD"]))
            && c.guid.matches(&text(&["GUID"]))
    });
    let Some(client) = client else {
        return refused(method, BAD_ACCOUNT);
    };
    let ctx = Ctx {
        sim,
        client,
        method,
    };
    let order = text(&["Siparis_ID"]);
    match method {
        "TP_Islem_Odeme_OnProv_Kapa" => ctx.close(&order, &text(&["Prov_Tutar"])),
        "TP_Islem_Iptal_OnProv" => ctx.release(&order),
        "TP_Islem_Iptal_Iade_Kismi2" => {
            let Some(amount) = xs_double(&text(&["Tutar"])) else {
                return Answer::Fault("Tutar is not a valid xs:double".into());
            };
            match text(&["Durum"]).as_str() {
                "IPTAL" => ctx.cancel(&order, amount),
                "IADE" => ctx.refund(&order, amount),
                _ => Answer::Fault("Durum must be IPTAL or IADE".into()),
            }
        }
        "TP_Islem_Sorgulama4" => ctx.status(&order),
        "TP_Islem_Izleme" => ctx.monitor(),
        other => Answer::Fault(format!("Server did not recognize the method {other}")),
    }
}

/// A money answer (dev.param.com.tr: `Sonuc`, `Sonuc_Str`, `Banka_Sonuc_Kod`,
/// `Bank_AuthCode`, `Bank_Trans_ID`, `Bank_Extra`, `Bank_HostRefNum`).
pub fn money(method: &str, (code, msg): (&str, &str), t: Option<&SimTxn>) -> Answer {
    let (auth, rrn) = t.map_or(("", ""), |t| (t.auth_code.as_str(), t.rrn.as_str()));
    Answer::result(
        method,
        Fields::default()
            .with("Sonuc", code)
            .with("Sonuc_Str", msg)
            .with("Banka_Sonuc_Kod", if t.is_some() { "0" } else { "-1" })
            .with("Bank_AuthCode", auth)
            .with("Bank_Trans_ID", rrn)
            .with("Bank_Extra", "")
            .with("Bank_HostRefNum", rrn),
    )
}

fn refused(method: &str, why: (&str, &str)) -> Answer {
    money(method, why, None)
}

/// A comma-decimal TL amount (`1,10`; a dot is Param's `-112`).
fn comma_amount(s: &str) -> Result<i64, (&'static str, &'static str)> {
    if s.contains('.') {
        return Err(DOT);
    }
    let (int, frac) = s.split_once(',').unwrap_or((s, ""));
    let plain = !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.len() <= 2
        && frac.bytes().all(|b| b.is_ascii_digit());
    match plain.then(|| amount::parse_decimal(s)).flatten() {
        Some(0) => Err(ZERO),
        Some(a) => Ok(a),
        None => Err(DOT),
    }
}

/// An `xs:double` amount as .NET reads it (`10`, `10.5`, `10.01`; a comma is not one).
fn xs_double(s: &str) -> Option<i64> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let plain = !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit());
    // More than two decimals: not a kuruş amount (treated as unreadable).
    plain.then(|| amount::parse_decimal(s)).flatten()
}

struct Ctx<'a> {
    sim: &'a ParamSim,
    client: &'a SimClient,
    method: &'a str,
}

impl Ctx<'_> {
    fn key(&self) -> &str {
        &self.client.client_code
    }

    fn ok(&self, t: &SimTxn) -> Answer {
        money(self.method, ("1", APPROVED), Some(t))
    }

    fn no(&self, why: (&str, &str)) -> Answer {
        refused(self.method, why)
    }

    fn close(&self, order: &str, total: &str) -> Answer {
        let amount = match comma_amount(total) {
            Ok(a) => a,
            Err(why) => return self.no(why),
        };
        match self.sim.state.book().postauth(self.key(), order, amount) {
            Ok(t) => self.ok(&t),
            Err(Refusal::AmountAbovePreauth) => self.no(ABOVE),
            Err(Refusal::ZeroAmount) => self.no(ZERO),
            Err(Refusal::NotFound) => self.no(NOT_FOUND),
            Err(_) => self.no(NOTHING),
        }
    }

    fn release(&self, order: &str) -> Answer {
        let mut book = self.sim.state.book();
        let today = book.today();
        match book.get_mut(self.key(), order) {
            None => return self.no(NOT_FOUND),
            Some(o) if o.state == OrderState::Voided => return self.no(CANCELLED),
            Some(o) if o.state != OrderState::Preauth => return self.no(NOTHING),
            // A hold is released on any day.
            Some(o) => o.day = today,
        }
        match book.void(self.key(), order) {
            Ok(t) => self.ok(&t),
            Err(_) => self.no(NOTHING),
        }
    }

    fn cancel(&self, order: &str, amount: i64) -> Answer {
        let mut book = self.sim.state.book();
        let why = match book.get(self.key(), order) {
            None => NOT_FOUND,
            Some(o) if o.state == OrderState::Voided => CANCELLED,
            Some(o) if o.state != OrderState::Sale => NOTHING,
            Some(o) if o.refunded > 0 => REFUNDED,
            Some(_) if amount == 0 => ZERO,
            Some(o) if amount != o.amount => PARTIAL_CANCEL,
            Some(_) => match book.void(self.key(), order) {
                Ok(t) => return self.ok(&t),
                Err(Refusal::AfterEndOfDay) => CANCEL_AFTER_DAY,
                Err(_) => NOTHING,
            },
        };
        self.no(why)
    }

    fn refund(&self, order: &str, amount: i64) -> Answer {
        let result = self.sim.state.book().refund(self.key(), order, amount);
        match result {
            Ok(t) => self.ok(&t),
            Err(Refusal::RefundBeforeEndOfDay) => self.no(REFUND_SAME_DAY),
            Err(Refusal::RefundAboveRemaining) => self.no(ABOVE),
            Err(Refusal::ZeroAmount) => self.no(ZERO),
            Err(Refusal::NotFound) => self.no(NOT_FOUND),
            Err(_) => {
                let voided = self
                    .sim
                    .state
                    .book()
                    .get(self.key(), order)
                    .is_some_and(|o| o.state == OrderState::Voided);
                self.no(if voided { CANCELLED } else { NOTHING })
            }
        }
    }

    /// The order a query names, or `None` (unknown, or hidden once by a late booking).
    fn queried(&self, order: &str) -> Option<SimOrder> {
        if self.sim.state.fault_plan().take_hidden(self.key(), order) {
            return None;
        }
        self.sim.state.book().get(self.key(), order).cloned()
    }

    fn status(&self, order: &str) -> Answer {
        let Some(o) = self.queried(order) else {
            return Answer::result(
                self.method,
                Fields::default()
                    .with("Sonuc", NOT_FOUND.0)
                    .with("Sonuc_Str", NOT_FOUND.1),
            );
        };
        Answer::Result {
            method: self.method.to_owned(),
            fields: Fields::default()
                .with("Sonuc", "1")
                .with("Sonuc_Str", "Başarılı"),
            dt: Some(dt_bilgi(&o)),
        }
    }
}

impl Ctx<'_> {
    /// Every transaction of the account, newest first (the simulator has business days, not
    /// clock times: it ignores `Tarih_Bas`/`Tarih_Bit` and dates day `n` as 2026-01-(n+1)).
    fn monitor(&self) -> Answer {
        let book = self.sim.state.book();
        let mut rows: Vec<((u32, usize), Fields)> = Vec::new();
        for (client, o) in book.orders() {
            if client != self.key() {
                continue;
            }
            for (seq, t) in o.history.iter().enumerate() {
                let (kind, sign) = match t.kind {
                    "void" => ("İptal", "-"),
                    "refund" => ("İade", "-"),
                    "preauth" => ("Ön Provizyon", ""),
                    _ => ("Satış", ""),
                };
                let four = |minor: i64| format!("{sign}{}00", amount::to_decimal(minor));
                let commission = t.amount * 175 / 10_000;
                rows.push((
                    (t.day, seq),
                    Fields::default()
                        .with("Sonuc_Str", "Başarılı")
                        .with("Tip_Str", kind)
                        .with("Tarih", format!("2026-01-{:02}T12:00:00+03:00", t.day + 1))
                        .with("Taksit", "0")
                        .with("Komisyon_Oran", "1.7500")
                        .with("Komisyon_Tutar", four(commission))
                        .with("Net_Tutar", four(t.amount - commission))
                        .with("Tutar", four(t.amount))
                        .with("Islem_Guvenlik", "NONSECURE")
                        .with("Dekont_ID", &t.rrn)
                        .with("ORJ_ORDER_ID", &o.order_id)
                        .with("Sonuc", "1")
                        .with("Toplam_Iade_Tutar", format!("{}00", amount::to_decimal(0)))
                        .with("PB", "TRL"),
                ));
            }
        }
        rows.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
        Answer::Rows {
            method: self.method.to_owned(),
            fields: Fields::default()
                .with("Sonuc", "1")
                .with("Sonuc_Str", "Başarılı"),
            rows: rows.into_iter().map(|(_, f)| f).collect(),
        }
    }
}

/// `DT_Bilgi` of an order, shaped like the MEWS fixtures (`status_*_response.json`).
pub fn dt_bilgi(o: &SimOrder) -> Fields {
    let pre = o.history.iter().find(|t| t.kind == "preauth");
    let capture = o
        .history
        .iter()
        .rev()
        .find(|t| t.kind == "postauth" && !t.voided);
    let main = capture.or_else(|| o.history.first());
    let (durum, odeme, aciklama) = match o.state {
        OrderState::Voided => ("CANCEL", "12", "İptal"),
        OrderState::Declined => ("FAIL", "0", "Başarısız"),
        OrderState::Sale if o.refunded > 0 && o.refundable() == 0 => ("REFUND", "13", "İade"),
        OrderState::Sale if o.refunded > 0 => ("PARTIAL_REFUND", "13", "İade"),
        _ => ("SUCCESS", "1", "İşlem Başarılı"),
    };
    let (tip, total) = match pre {
        Some(p) => ("PRE_AUTH", p.amount),
        None => ("SALE", o.amount),
    };
    let trans_stat = match o.state {
        OrderState::Voided => "V",
        OrderState::Preauth => "A",
        _ => "C",
    };
    let captured = match (pre, o.state) {
        (Some(_), OrderState::Preauth) => String::new(),
        (Some(_), _) => capture.map(|c| c.amount.to_string()).unwrap_or_default(),
        (None, _) => o.amount.to_string(),
    };
    let extra = format!(
        "<Extra><AUTH_CODE>{auth}</AUTH_CODE><CAPTURE_AMT>{captured}</CAPTURE_AMT>\
         <HOST_REF_NUM>{rrn}</HOST_REF_NUM><ORIG_TRANS_AMT>{total}</ORIG_TRANS_AMT>\
         <PROC_RET_CD>00</PROC_RET_CD><TRANS_STAT>{trans_stat}</TRANS_STAT></Extra>",
        auth = main.map_or("", |t| t.auth_code.as_str()),
        rrn = main.map_or("", |t| t.rrn.as_str()),
    );
    Fields::default()
        .with("Odeme_Sonuc", odeme)
        .with("Odeme_Sonuc_Aciklama", aciklama)
        .with("Siparis_ID", &o.order_id)
        .with("Durum", durum)
        .with("Toplam_Tutar", amount::to_decimal(total))
        .with("Taksit", "1")
        .with("Toplam_Iade_Tutar", amount::to_decimal(o.refunded))
        .with("KK_No", "581877******2285")
        .with("Bank_Extra", extra)
        .with("Islem_Tip", tip)
        .with("Bank_Trans_ID", main.map_or("", |t| t.rrn.as_str()))
        .with("Bank_AuthCode", main.map_or("", |t| t.auth_code.as_str()))
        .with("Bank_HostRefNum", main.map_or("", |t| t.rrn.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts() {
        assert_eq!(comma_amount("1,10"), Ok(110));
        assert_eq!(comma_amount("100"), Ok(10_000));
        assert_eq!(comma_amount("1.10"), Err(DOT));
        assert_eq!(comma_amount("0,00"), Err(ZERO));
        assert_eq!(xs_double("1.02"), Some(102));
        assert_eq!(xs_double("10"), Some(1_000));
        for bad in ["1,02", "", "1.001", "-1"] {
            assert_eq!(xs_double(bad), None, "{bad}");
        }
    }
}
