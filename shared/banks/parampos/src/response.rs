//! Param's answers: a SOAP envelope whose body holds `<Method>Response/<Method>Result` with
//! `Sonuc` (the result: `> 0` success), `Sonuc_Str`, and per method `Banka_Sonuc_Kod`,
//! `Bank_AuthCode`, `Bank_HostRefNum`, `Bank_Trans_ID` (dev.param.com.tr
//! "Transaction Cancellation and Returns"; MEWS `ParamPosResponseDataMapper`, success is
//! `Sonuc > 0`), or `DT_Bilgi` with the order (`TP_Islem_Sorgulama4`); or a `soap:Fault`.
//!
//! The class of a refusal is read from `Sonuc` (Param's own codes, dev.param.com.tr "Hata
//! Kodları") and, for `-1` ("Unsuccessful": the bank's decline), from the bank's ISO code in
//! `Banka_Sonuc_Kod` — see [`classify`] and the README table.

use paygate_bankkit::{amount, xml, Answer, BankReply, Verdict};
use paygate_domain::{BankOutcome, BankStatus};

use crate::status;

/// One flat list of fields (document order; missing ones read as empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fields(pub Vec<(String, String)>);

impl Fields {
    /// A field's trimmed text (`""` when absent).
    pub fn get(&self, key: &str) -> &str {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    }

    /// A decimal-TL field in kuruş (`None` when absent or unreadable).
    pub fn amount(&self, key: &str) -> Option<i64> {
        amount::parse_decimal(self.get(key))
    }
}

/// A decoded answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// The method answered (`TP_Islem_Sorgulama4` for `TP_Islem_Sorgulama4Response`).
    pub method: String,
    /// The `…Result` element's own fields.
    pub fields: Fields,
    /// `DT_Bilgi`'s fields, when the result has one.
    pub dt: Option<Fields>,
    /// A `soap:Fault`'s `faultstring`.
    pub fault: Option<String>,
    /// `DT_Bilgi`'s data set rows (`diffgr:diffgram/NewDataSet/Temp`, `TP_Islem_Izleme`).
    pub rows: Vec<Fields>,
}

impl Reply {
    /// `Sonuc`.
    pub fn sonuc(&self) -> &str {
        self.fields.get("Sonuc")
    }

    /// The bank's code for this answer: `Sonuc`, `fault` for a SOAP fault, else `unknown`.
    pub fn code(&self) -> String {
        if self.fault.is_some() {
            return "fault".to_owned();
        }
        let c = self.sonuc();
        if c.is_empty() { "unknown" } else { c }.to_owned()
    }
}

fn local(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

fn fields_of(e: &xml::Element) -> Fields {
    Fields(
        e.children
            .iter()
            .map(|c| (local(&c.name).to_owned(), c.text.clone()))
            .collect(),
    )
}

/// Param's codes after which the bank may have acted: `-205` (payment information could not
/// be saved, "repeat the process"), `-206` (the transaction could not be saved), `-207`
/// (system error).
pub const MAY_HAVE_ACTED: [&str; 3] = ["-205", "-206", "-207"];
/// The bank's ISO 8583 codes (in `Banka_Sonuc_Kod` beside `Sonuc -1`) after which the
/// issuer may have acted: late answer, issuer or switch inoperative, no route, system
/// malfunction.
pub const BANK_MAY_HAVE_ACTED: [&str; 4] = ["68", "91", "92", "96"];
/// A cancel (`IPTAL`) of a transaction that must be refunded instead: the sale's day is over.
pub const CANCEL_AFTER_DAY: &str = "-214";

/// The class of an answer's `Sonuc` (with `Banka_Sonuc_Kod` for `-1`). The README's code →
/// outcome table names the sources.
pub fn classify(sonuc: &str, bank_code: &str) -> Verdict {
    let Ok(n) = sonuc.trim().parse::<i64>() else {
        return Verdict::Unknown;
    };
    match n {
        1.. => Verdict::Approved,
        -1 if BANK_MAY_HAVE_ACTED.contains(&bank_code.trim()) => Verdict::Unknown,
        -1 => Verdict::Declined,
        // Account, security (IP), hash, GUID and field validation, test user, commission
        // and POS set-up: refused before processing.
        -121..=-100 | -204..=-200 => Verdict::Error,
        // Not saved / system error: may have acted.
        -207..=-205 => Verdict::Unknown,
        // POS or card not found, no such transaction, nothing to cancel/refund, already
        // cancelled or refunded, cancel instead of refund (same day), refund instead of
        // cancel (after the day).
        -214..=-208 => Verdict::Declined,
        // 0, and any code the list does not give (its meaning unknown): may have acted.
        _ => Verdict::Unknown,
    }
}

impl BankReply for Reply {
    /// Reads an answer (UTF-8, as the service declares it).
    fn decode(body: &[u8]) -> Result<Self, String> {
        let text = std::str::from_utf8(body).map_err(|_| "the answer is not UTF-8".to_owned())?;
        let root = xml::parse(text.trim_start_matches('\u{feff}')).map_err(|e| e.to_string())?;
        if local(&root.name) != "Envelope" {
            return Err(format!("unexpected root element <{}>", root.name));
        }
        let body = root
            .children
            .iter()
            .find(|c| local(&c.name) == "Body")
            .ok_or("an envelope without a Body")?;
        let first = body.children.first().ok_or("an empty Body")?;
        if local(&first.name) == "Fault" {
            let why = first
                .children
                .iter()
                .find(|c| local(&c.name) == "faultstring")
                .map(|c| c.text.clone())
                .unwrap_or_default();
            return Ok(Reply {
                fault: Some(why),
                ..Reply::default()
            });
        }
        let method = local(&first.name)
            .strip_suffix("Response")
            .ok_or_else(|| format!("unexpected body element <{}>", first.name))?
            .to_owned();
        let result = first
            .children
            .iter()
            .find(|c| local(&c.name) == format!("{method}Result"))
            .ok_or_else(|| format!("<{method}Response> without its Result"))?;
        let dt_bilgi = result
            .children
            .iter()
            .find(|c| local(&c.name) == "DT_Bilgi");
        let rows = dt_bilgi
            .and_then(|d| d.children.iter().find(|c| local(&c.name) == "diffgram"))
            .and_then(|g| g.children.iter().find(|c| local(&c.name) == "NewDataSet"))
            .map(|set| {
                set.children
                    .iter()
                    .filter(|r| local(&r.name) == "Temp")
                    .map(fields_of)
                    .collect()
            })
            .unwrap_or_default();
        let dt = dt_bilgi.filter(|d| !d.children.is_empty()).map(fields_of);
        Ok(Reply {
            method,
            fields: fields_of(result),
            dt,
            fault: None,
            rows,
        })
    }

    fn outcome(&self) -> BankOutcome {
        if let Some(why) = &self.fault {
            // A server fault says nothing about whether the method ran before it failed.
            return BankOutcome::Unknown {
                reason: paygate_bankkit::call::unsettled("fault", why),
            };
        }
        let f = &self.fields;
        let sonuc = self.sonuc();
        classify(sonuc, f.get("Banka_Sonuc_Kod")).outcome(Answer {
            approval: sonuc.to_owned(),
            auth_code: f.get("Bank_AuthCode").to_owned(),
            rrn: f.get("Bank_HostRefNum").to_owned(),
            code: self.code(),
            message: f.get("Sonuc_Str").to_owned(),
            after_cutoff: sonuc == CANCEL_AFTER_DAY,
        })
    }

    /// A `TP_Islem_Sorgulama4` answer.
    fn status(&self) -> BankStatus {
        match status::read(self).found() {
            Ok(dt) => status::state_of(&dt),
            Err(st) => st,
        }
    }
}

#[cfg(test)]
#[path = "response_tests.rs"]
mod tests;
