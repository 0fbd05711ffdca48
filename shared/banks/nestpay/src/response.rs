//! `CC5Response`: decoding (ISO-8859-9 or UTF-8, as the document declares), the fields every
//! answer carries, and what an answer means for money.
//!
//! Approval needs both signals: `ProcReturnCode = 00` (MEWS decides by this) and
//! `Response = Approved` (CP.VPOS decides by this). When they disagree the answer is treated
//! as *unknown* and settled by a status query. Business refusals arrive as `Response=Error`
//! too (`CORE-2008`, `CORE-2508` …), so `Response` alone never means "technical"; the class of
//! a failure is read from `Extra/ERRORCODE` (see [`classify`] and the README table).

use paygate_bankkit::{amount, encoding, xml};

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

/// Decodes the body as its XML declaration says (ISO-8859-9 unless it declares UTF-8) and
/// reads the `CC5Response`.
pub fn parse(body: &[u8]) -> Result<Reply, String> {
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

/// What an answer to a money-moving request means.
pub fn outcome(reply: &Reply) -> paygate_domain::BankOutcome {
    use paygate_domain::BankOutcome;
    let code = reply.bank_code();
    let message = reply.message();
    let non_empty = |s: &str| {
        let s = s.trim();
        (!s.is_empty()).then(|| s.to_owned())
    };
    match classify(reply) {
        Verdict::Approved => BankOutcome::Approved {
            code: reply.proc_return_code.trim().to_owned(),
            auth_code: non_empty(&reply.auth_code),
            rrn: non_empty(&reply.host_ref_num),
        },
        Verdict::Declined => BankOutcome::Declined {
            code,
            message,
            after_cutoff: false,
        },
        Verdict::Error => BankOutcome::Error { code, message },
        Verdict::Unknown => BankOutcome::Unknown {
            reason: format!("the bank's answer does not settle the outcome ({code}: {message})"),
        },
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
            "91" => Verdict::Error,
            // Response received too late, time-out/reversal is trying, system malfunction
            // at the host: the request was submitted, the host may have acted.
            "68" | "92" | "96" => Verdict::Unknown,
            _ => Verdict::Declined,
        };
    }
    classify_code(code)
}

/// The class of an `ERRORCODE` value.
pub fn classify_code(code: &str) -> Verdict {
    if code.starts_with("BM-") {
        // Nestpay could not talk to the bank host: the request never got there.
        return Verdict::Error;
    }
    if let Some(iso) = code.strip_prefix("ISO8583-") {
        return match iso {
            // Issuer/switch inoperative (the host never got it), undefined errors.
            "91" | "9998" | "9999" => Verdict::Error,
            // "Response received too late", "Timeout, reversal is trying", "System
            // malfunction": the host had the request; the outcome is not known.
            "68" | "92" | "96" => Verdict::Unknown,
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
        // Failures at or after the acquirer exchange / commit phase.
        1003 | 1004 | 1005 | 2700 | 2800 | 2900 | 3000 => Verdict::Unknown,
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
mod tests {
    use super::*;

    /// MEWS `EstPosSerializerTest::decodeDataProvider` (ISO-8859-9, `CARDISSUER` as a
    /// character reference).
    const MEWS_DECODE: &str = "<?xml version=\"1.0\" encoding=\"ISO-8859-9\"?>\n<CC5Response>\n  <OrderId>20230910AF6A</OrderId>\n  <GroupId>20230910AF6A</GroupId>\n  <Response>Approved</Response>\n  <AuthCode>P18552</AuthCode>\n  <HostRefNum>325300733333</HostRefNum>\n  <ProcReturnCode>00</ProcReturnCode>\n  <TransId>23253WkfD10806</TransId>\n  <ErrMsg></ErrMsg>\n  <Extra>\n    <SETTLEID>2589</SETTLEID>\n    <TRXDATE>20230910 22:36:30</TRXDATE>\n    <ERRORCODE></ERRORCODE>\n    <CARDISSUER>Z&#x130;RAAT BANKASI</CARDISSUER>\n    <NUMCODE>00</NUMCODE>\n  </Extra>\n</CC5Response>";

    fn reply(response: &str, proc: &str, errorcode: &str) -> Reply {
        Reply {
            response: response.into(),
            proc_return_code: proc.into(),
            extra: vec![("ERRORCODE".into(), errorcode.into())],
            ..Reply::default()
        }
    }

    #[test]
    fn decodes_the_mews_fixture() {
        let r = parse(MEWS_DECODE.as_bytes()).unwrap();
        assert_eq!(r.order_id, "20230910AF6A");
        assert_eq!(
            (r.auth_code.as_str(), r.host_ref_num.as_str()),
            ("P18552", "325300733333")
        );
        assert_eq!(r.extra("CARDISSUER"), Some("ZİRAAT BANKASI"));
        assert_eq!(classify(&r), Verdict::Approved);
        assert_eq!(r.bank_code(), "00");
    }

    #[test]
    fn decodes_latin5_bytes_and_declared_utf8() {
        let doc = "<?xml version=\"1.0\" encoding=\"ISO-8859-9\"?><CC5Response><Response>Error</Response><ProcReturnCode>99</ProcReturnCode><ErrMsg>İptal edilmeye uygun satış işlemi bulunamadı.</ErrMsg><Extra><ERRORCODE>CORE-2008</ERRORCODE></Extra></CC5Response>";
        let r = parse(&encoding::encode(doc)).unwrap();
        assert_eq!(r.err_msg, "İptal edilmeye uygun satış işlemi bulunamadı.");
        let utf8 = doc.replace("ISO-8859-9", "UTF-8");
        assert_eq!(parse(utf8.as_bytes()).unwrap().err_msg, r.err_msg);
        // Latin-5 bytes labelled UTF-8 are refused, not guessed.
        assert!(parse(&encoding::encode(&utf8)).is_err());
        assert!(parse(b"<html>502</html>").is_err());
        assert!(parse(b"<CC5Response><Response>").is_err());
        assert_eq!(
            declared_encoding(b"<?xml version='1.0' encoding='utf-8'?><a/>").as_deref(),
            Some("utf-8")
        );
    }

    #[test]
    fn classification() {
        // MEWS fixtures: refund before end of day, void of nothing, issuer decline.
        assert_eq!(
            classify(&reply("Error", "99", "CORE-2508")),
            Verdict::Declined
        );
        assert_eq!(
            classify(&reply("Error", "99", "CORE-2008")),
            Verdict::Declined
        );
        assert_eq!(
            classify(&reply("Declined", "05", "ISO8583-05")),
            Verdict::Declined
        );
        // "Net Tutar 0." without ProcReturnCode.
        assert_eq!(
            classify(&reply("Declined", "", "215021")),
            Verdict::Declined
        );
        // Authentication and system errors.
        assert_eq!(classify(&reply("Error", "99", "CORE-2201")), Verdict::Error);
        assert_eq!(classify(&reply("Error", "99", "CORE-1001")), Verdict::Error);
        assert_eq!(classify(&reply("Error", "99", "BM-9103")), Verdict::Error);
        assert_eq!(classify(&reply("Error", "91", "")), Verdict::Error);
        assert_eq!(
            classify(&reply("Error", "99", "ISO8583-91")),
            Verdict::Error
        );
        // The host had the request and cannot say what it did.
        for (proc, code) in [
            ("96", ""),
            ("68", ""),
            ("92", ""),
            ("96", "ISO8583-96"),
            ("68", "ISO8583-68"),
            ("92", "ISO8583-92"),
        ] {
            assert_eq!(
                classify(&reply("Error", proc, code)),
                Verdict::Unknown,
                "{proc}/{code}"
            );
        }
        // May have been applied.
        assert_eq!(
            classify(&reply("Error", "99", "CORE-3000")),
            Verdict::Unknown
        );
        assert_eq!(classify(&reply("Approved", "99", "")), Verdict::Unknown);
        assert_eq!(classify(&reply("Declined", "00", "")), Verdict::Unknown);
        assert_eq!(classify(&reply("Approved", "00", "")), Verdict::Approved);
    }

    #[test]
    fn bank_code_prefers_errorcode() {
        assert_eq!(reply("Error", "99", "CORE-2508").bank_code(), "CORE-2508");
        assert_eq!(reply("Declined", "05", "").bank_code(), "05");
        assert_eq!(reply("Declined", "", "").bank_code(), "Declined");
        let mut r = reply("Declined", "05", "ISO8583-05");
        r.extra
            .push(("HOSTMSG".into(), "[RC 05] Red Onaylanmadı".into()));
        assert_eq!(r.message(), "[RC 05] Red Onaylanmadı");
        r.err_msg = "Genel red".into();
        assert_eq!(r.message(), "Genel red");
    }

    #[test]
    fn maxipuan() {
        let mut r = Reply {
            extra: vec![("MAXIPUAN".into(), "100000.00".into())],
            ..Reply::default()
        };
        assert_eq!(maxipuan_minor(&r), Some(10_000_000));
        r.extra = vec![("HOSTMSG".into(), "TOPLAMMAXIPUAN: 50.00 TL".into())];
        assert_eq!(maxipuan_minor(&r), Some(5_000));
        r.extra.clear();
        assert_eq!(maxipuan_minor(&r), None);
    }
}
