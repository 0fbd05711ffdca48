//! `CC5Response`: decoding (ISO-8859-9 or UTF-8, as the document declares), the fields every
//! answer carries, and what an answer means for money.
//!
//! Approval needs both signals: `ProcReturnCode = 00` (MEWS decides by this) and
//! `Response = Approved` (CP.VPOS decides by this). When they disagree the answer is treated
//! as *unknown* and settled by a status query. Business refusals arrive as `Response=Error`
//! too (`CORE-2008`, `CORE-2508` …), so `Response` alone never means "technical"; the class of
//! a failure is read from `Extra/ERRORCODE` (see [`classify`] and the README table).

use paygate_bankkit::{amount, encoding, xml, Answer, BankReply};
use paygate_domain::{BankOutcome, BankStatus, PointsResult};

use crate::status;

/// The fields of a `CC5Response` (missing elements read as empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    pub order_id: String,
    pub response: String,
    pub auth_code: String,
    pub host_ref_num: String,
    pub proc_return_code: String,
    pub trans_id: String,
    pub err_msg: String,
    /// `Extra` children in document order.
    pub extra: Vec<(String, String)>,
}

impl Reply {
    /// An `Extra` value (`None` when absent).
    pub fn extra(&self, key: &str) -> Option<&str> {
        self.extra
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The bank's code for this answer: `Extra/ERRORCODE` when set (`CORE-2508`,
    /// `ISO8583-05`), else `ProcReturnCode`, else `Response`.
    pub fn bank_code(&self) -> String {
        [
            self.extra("ERRORCODE").unwrap_or(""),
            &self.proc_return_code,
            &self.response,
        ]
        .into_iter()
        .map(str::trim)
        .find(|s| !s.is_empty())
        .unwrap_or("unknown")
        .to_owned()
    }

    /// The bank's message: `ErrMsg`, else `Extra/HOSTMSG`, else `Response`.
    pub fn message(&self) -> String {
        [
            self.err_msg.as_str(),
            self.extra("HOSTMSG").unwrap_or(""),
            &self.response,
        ]
        .into_iter()
        .map(str::trim)
        .find(|s| !s.is_empty())
        .unwrap_or("")
        .to_owned()
    }

    fn proc_approved(&self) -> bool {
        self.proc_return_code.trim() == "00"
    }

    fn response_approved(&self) -> bool {
        self.response.trim().eq_ignore_ascii_case("Approved")
    }
}

/// The encoding named in an XML declaration, lower-cased (`None` without a declaration).
pub fn declared_encoding(body: &[u8]) -> Option<String> {
    let head = &body[..body.len().min(200)];
    let head = String::from_utf8_lossy(head);
    let decl = head.trim_start_matches('\u{feff}').trim_start();
    paygate_bankkit::encoding::xml_declared_encoding(decl)
}

fn decode(body: &[u8]) -> Result<String, String> {
    match declared_encoding(body).as_deref() {
        // No declaration: XML's default is UTF-8; a Latin-5 body without one is still read.
        None => Ok(String::from_utf8(body.to_vec()).unwrap_or_else(|_| encoding::decode(body))),
        Some("utf-8" | "utf8") => String::from_utf8(body.to_vec())
            .map_err(|_| "the answer declares UTF-8 but is not".to_owned()),
        Some("iso-8859-9" | "windows-1254" | "latin5" | "iso8859-9") => Ok(encoding::decode(body)),
        Some(other) => Err(format!("unsupported answer encoding {other}")),
    }
}

pub use paygate_bankkit::Verdict;

impl BankReply for Reply {
    /// Decodes the body as its XML declaration says (ISO-8859-9 unless it declares UTF-8)
    /// and reads the `CC5Response`.
    fn decode(body: &[u8]) -> Result<Self, String> {
        let text = decode(body)?;
        let root = xml::parse(&text).map_err(|e| e.to_string())?;
        if root.name != "CC5Response" {
            return Err(format!("unexpected root element <{}>", root.name));
        }
        let field = |name: &str| root.text_at(&[name]).unwrap_or("").to_owned();
        let extra = root
            .child("Extra")
            .map(|e| {
                e.children
                    .iter()
                    .map(|c| (c.name.clone(), c.text.clone()))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Reply {
            order_id: field("OrderId"),
            response: field("Response"),
            auth_code: field("AuthCode"),
            host_ref_num: field("HostRefNum"),
            proc_return_code: field("ProcReturnCode"),
            trans_id: field("TransId"),
            err_msg: field("ErrMsg"),
            extra,
        })
    }

    fn outcome(&self) -> BankOutcome {
        classify(self).outcome(Answer {
            approval: self.proc_return_code.trim().to_owned(),
            auth_code: self.auth_code.clone(),
            rrn: self.host_ref_num.clone(),
            code: self.bank_code(),
            message: self.message(),
            after_cutoff: false,
        })
    }

    /// An `ORDERSTATUS` answer alone (the query adds `ORDERHISTORY` where needed).
    fn status(&self) -> BankStatus {
        match status::read_status(self).found() {
            Ok(line) => status::combine(&line, None),
            Err(st) => st,
        }
    }

    /// A `MAXIPUANSORGU` answer.
    fn points(&self) -> PointsResult {
        classify(self).points(
            maxipuan_minor(self),
            "Maximum",
            "a MAXIPUAN balance",
            self.bank_code(),
            self.message(),
        )
    }
}

/// Classifies an answer; see the module doc and the README's mapping table.
pub fn classify(reply: &Reply) -> Verdict {
    match (reply.proc_approved(), reply.response_approved()) {
        (true, true) => return Verdict::Approved,
        (true, false) | (false, true) => return Verdict::Unknown,
        (false, false) => {}
    }
    let code = reply.extra("ERRORCODE").unwrap_or("").trim();
    if code.is_empty() {
        return match reply.proc_return_code.trim() {
            // Response received too late, issuer or switch inoperative, time-out/reversal
            // is trying, system malfunction at the host: the request was submitted, the
            // host may have acted.
            "68" | "91" | "92" | "96" => Verdict::Unknown,
            _ => Verdict::Declined,
        };
    }
    classify_code(code)
}

/// The class of an `ERRORCODE` value.
pub fn classify_code(code: &str) -> Verdict {
    if let Some(bm) = code.strip_prefix("BM-") {
        return match bm {
            // Host name unknown, port closed, the acquirer request could not be made: the
            // request never left Nestpay.
            "9100" | "9101" | "1008" => Verdict::Error,
            // A host IO error, a general connection failure, a host message Nestpay could
            // not parse, an invalid reversal: the host may have had the request.
            _ => Verdict::Unknown,
        };
    }
    if let Some(iso) = code.strip_prefix("ISO8583-") {
        return match iso {
            // "Response received too late", "Issuer or switch is inoperative", "Timeout,
            // reversal is trying", "System malfunction", the issuer's undefined errors: the
            // host had the request; the outcome is not known.
            "68" | "91" | "92" | "96" | "9998" | "9999" => Verdict::Unknown,
            _ => Verdict::Declined,
        };
    }
    let Some(n) = code
        .strip_prefix("CORE-")
        .and_then(|n| n.parse::<u32>().ok())
    else {
        // Numeric or unknown codes (e.g. `215021` "Net Tutar 0.") are business declines.
        return Verdict::Declined;
    };
    match n {
        // Failures in the commit phases (first, last), at the acquirer, while reading its
        // answer.
        1002 | 1003 | 1004 | 1005 | 2700 | 2800 | 2900 | 3000 => Verdict::Unknown,
        // System errors before processing, request validation (field sizes, Mode, …).
        1000..=1099 => Verdict::Error,
        // Invalid/empty transaction type, parameters, unparsable numbers; bad request XML.
        2001..=2007 | 2013 | 2014 => Verdict::Error,
        // Currency not allowed / not ISO 4217 / no currency definition: configuration.
        2105 | 2106 | 2118 => Verdict::Error,
        // Authentication, permission, IP and day/time allowance settings.
        2200..=2203 | 2252 | 2254..=2256 => Verdict::Error,
        // Virtual terminal locked/undefined, lock check, parameter production failures.
        2311..=2315 | 2400 | 2500 | 2501 => Verdict::Error,
        _ => Verdict::Declined,
    }
}

/// The İşbank Maximum balance in an approved `MAXIPUANSORGU` answer: `Extra/MAXIPUAN`
/// (decimal TL), else the `TOPLAMMAXIPUAN: 50.00 TL` figure of `Extra/HOSTMSG`.
pub fn maxipuan_minor(reply: &Reply) -> Option<i64> {
    if let Some(v) = reply.extra("MAXIPUAN").filter(|v| !v.trim().is_empty()) {
        return amount::parse_decimal(v);
    }
    let msg = reply.extra("HOSTMSG")?;
    let at = msg.find("TOPLAMMAXIPUAN")?;
    let rest = msg[at + "TOPLAMMAXIPUAN".len()..]
        .trim_start()
        .trim_start_matches(':')
        .trim_start();
    let figure: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
        .collect();
    amount::parse_decimal(&figure)
}

#[cfg(test)]
#[path = "response_tests.rs"]
mod tests;
