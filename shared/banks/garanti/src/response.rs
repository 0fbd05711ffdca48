//! Response decoding (`GVPSResponse`, UTF-8 or ISO-8859-9) and the classification of its
//! `Transaction/Response{Source, Code, ReasonCode}` into the gateway's outcomes.

use paygate_bankkit::{
    encoding,
    xml::{self, Element, XmlError},
    Answer, BankReply,
};
use paygate_domain::{BankOutcome, BankStatus, PointsResult};

use crate::status::is_not_found;

pub use paygate_bankkit::Verdict;

/// GVPS reason codes (with `Code` `92`) that are request, credential or set-up errors: the
/// request was refused before anything was processed. Sources: MEWS fixtures (`0002`), a GVPS
/// reason-code table (README), ActiveMerchant's fixture (`0651`).
const TECHNICAL_REASONS: &[&str] = &[
    // The request itself: invalid characters, mandatory field, expiry format, order id length.
    "0001", "0002", "0003", "0231",
    // Security code, user password (wrong HashData), not authorised, user not on terminal,
    // user closed.
    "0099", "0651", "0652", "0653", "0654",
    // Terminal set-up: no terminal, wrong merchant, no recurring/currency/3D/MOTO/GarantiPay
    // permission, IP not allowed, MD verification.
    "0752", "0753", "0756", "0759", "0763", "0764", "0769", "0785", "0804",
];
/// GVPS reason codes after which the host may have acted: `9998` time-out, `0122`/`0770`/
/// `0771`/`0773` "İşleminizi gerçekleştiremiyoruz", `99` system error ("call the bank"),
/// `9999` general exception. None says the request was refused before processing, so a money
/// request answered with one is `Unknown` (settled by reading the order), never "nothing moved".
const UNKNOWN_REASONS: &[&str] = &["9998", "0122", "0770", "0771", "0773", "99", "9999"];
/// ISO 8583 host codes that say the host had the request but cannot say what it did:
/// `68` "response received too late", `91` issuer or switch inoperative (also a switch's
/// answer when the issuer timed out), `96` "system malfunction", `99` general error.
/// Never "nothing moved".
const HOST_UNKNOWN: &[&str] = &["68", "91", "96", "99"];
/// ISO 8583 host codes that are technical refusals before processing rather than declines:
/// `06` error, `19` re-enter transaction, `90` cut-off in progress, `92` no routing to the
/// institution, `98` reserved.
const HOST_TECHNICAL: &[&str] = &["06", "19", "90", "92", "98"];

/// Classifies an answer from its `Source`, `Code` and `ReasonCode`.
pub fn classify(source: &str, code: &str, reason: &str) -> Verdict {
    match code {
        "00" => Verdict::Approved,
        "" => Verdict::Unknown,
        "92" if !source.eq_ignore_ascii_case("HOST") => {
            if UNKNOWN_REASONS.contains(&reason) {
                Verdict::Unknown
            } else if TECHNICAL_REASONS.contains(&reason) || reason.is_empty() {
                Verdict::Error
            } else {
                Verdict::Declined
            }
        }
        c if HOST_UNKNOWN.contains(&c) => Verdict::Unknown,
        c if HOST_TECHNICAL.contains(&c) => Verdict::Error,
        _ => Verdict::Declined,
    }
}

/// The text of a body: by its XML declaration (ISO-8859-9 family → Latin-5), else UTF-8,
/// falling back to Latin-5 for bytes that are not UTF-8 (observed on GVPS answers).
pub fn decode_body(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if declared_latin5(bytes) {
        return encoding::decode(bytes);
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => encoding::decode(bytes),
    }
}

/// The encoding named in the XML declaration, if any (lower-cased).
pub fn declared_encoding(bytes: &[u8]) -> Option<String> {
    let head = bytes.get(..bytes.len().min(200))?;
    let head = String::from_utf8_lossy(head);
    encoding::xml_declared_encoding(&head)
}

fn declared_latin5(bytes: &[u8]) -> bool {
    matches!(
        declared_encoding(bytes).as_deref(),
        Some("iso-8859-9" | "iso8859-9" | "windows-1254" | "cp1254" | "latin5" | "iso-8859-1")
    )
}

/// A parsed `GVPSResponse`.
#[derive(Debug, Clone)]
pub struct GvpsResponse {
    pub root: Element,
    pub source: String,
    pub code: String,
    pub reason_code: String,
    pub message: String,
    pub error_msg: String,
    pub sys_err_msg: String,
    pub order_id: String,
    pub rrn: String,
    pub auth_code: String,
}

/// Parses an answer; anything but a `GVPSResponse` with a `Transaction/Response` is an error.
pub fn parse_response(bytes: &[u8]) -> Result<GvpsResponse, XmlError> {
    let root = xml::parse(&decode_body(bytes))?;
    if root.name != "GVPSResponse" {
        return Err(XmlError(format!("unexpected root element {}", root.name)));
    }
    let resp = root
        .at(&["Transaction", "Response"])
        .ok_or_else(|| XmlError("no Transaction/Response".into()))?;
    let t = |e: &Element, name: &str| e.text_at(&[name]).unwrap_or_default().trim().to_owned();
    let txn = root.child("Transaction").cloned().unwrap_or_default();
    Ok(GvpsResponse {
        source: t(resp, "Source"),
        code: t(resp, "Code"),
        reason_code: t(resp, "ReasonCode"),
        message: t(resp, "Message"),
        error_msg: t(resp, "ErrorMsg"),
        sys_err_msg: t(resp, "SysErrMsg"),
        order_id: root
            .text_at(&["Order", "OrderID"])
            .unwrap_or_default()
            .trim()
            .to_owned(),
        rrn: t(&txn, "RetrefNum"),
        auth_code: t(&txn, "AuthCode"),
        root,
    })
}

impl GvpsResponse {
    pub fn verdict(&self) -> Verdict {
        classify(&self.source, &self.code, &self.reason_code)
    }

    /// The code carried in outcomes: the GVPS `ReasonCode` for a `92` from GVPS (it is what
    /// names the rule, e.g. `0214`), otherwise the host's `Code` (`05`, `51`, …).
    pub fn bank_code(&self) -> String {
        if self.code == "92"
            && !self.reason_code.is_empty()
            && !self.source.eq_ignore_ascii_case("HOST")
        {
            self.reason_code.clone()
        } else {
            self.code.clone()
        }
    }

    /// The bank's message: `ErrorMsg`, else `SysErrMsg`, else `Message`.
    pub fn text(&self) -> String {
        [&self.error_msg, &self.sys_err_msg, &self.message]
            .into_iter()
            .find(|s| !s.is_empty())
            .cloned()
            .unwrap_or_default()
    }
}

impl BankReply for GvpsResponse {
    fn decode(body: &[u8]) -> Result<Self, String> {
        parse_response(body).map_err(|e| e.to_string())
    }

    /// The outcome of a money-moving request (postauth, void, refund).
    fn outcome(&self) -> BankOutcome {
        self.verdict().outcome_or(
            Answer {
                approval: self.code.clone(),
                auth_code: self.auth_code.clone(),
                rrn: self.rrn.clone(),
                code: self.bank_code(),
                message: self.text(),
                after_cutoff: false,
            },
            |code, text| format!("the bank answered without a final result ({code}: {text})"),
        )
    }

    /// An `orderinq` answer alone: "no such order", or unavailable. A found order is read
    /// with its history (`query`), which alone shows voids and refunds.
    fn status(&self) -> BankStatus {
        if is_not_found(self) {
            return BankStatus::not_found(&self.bank_code());
        }
        if self.verdict() != Verdict::Approved {
            return BankStatus::unavailable(&self.bank_code());
        }
        BankStatus::unavailable("history:unread")
    }

    fn points(&self) -> PointsResult {
        crate::points::result(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MEWS `paymentTestDataProvider.success1`, as XML.
    const APPROVED: &str = "<GVPSResponse><Mode></Mode><Order><OrderID>20221101D723</OrderID><GroupID></GroupID></Order>\
        <Transaction><Response><Source>HOST</Source><Code>00</Code><ReasonCode>00</ReasonCode><Message>Approved</Message>\
        <ErrorMsg></ErrorMsg><SysErrMsg></SysErrMsg></Response><RetrefNum>230508300434</RetrefNum><AuthCode>304919</AuthCode>\
        <BatchNum>004951</BatchNum><SequenceNum>000015</SequenceNum><ProvDate>20221101 13:14:19</ProvDate></Transaction></GVPSResponse>";

    fn gvps(source: &str, code: &str, reason: &str, err: &str, sys: &str) -> String {
        format!(
            "<GVPSResponse><Order><OrderID>O1</OrderID></Order><Transaction><Response><Source>{source}</Source>\
             <Code>{code}</Code><ReasonCode>{reason}</ReasonCode><Message>Declined</Message><ErrorMsg>{err}</ErrorMsg>\
             <SysErrMsg>{sys}</SysErrMsg></Response><RetrefNum></RetrefNum><AuthCode> </AuthCode></Transaction></GVPSResponse>"
        )
    }

    #[test]
    fn approved_carries_auth_code_and_rrn() {
        let r = parse_response(APPROVED.as_bytes()).unwrap();
        assert_eq!(
            r.outcome(),
            BankOutcome::Approved {
                code: "00".into(),
                auth_code: Some("304919".into()),
                rrn: Some("230508300434".into())
            }
        );
        assert_eq!(r.order_id, "20221101D723");
    }

    /// MEWS fixtures: `fail_1` (92/0002 mandatory field), cancel `fail1` (HOST 05, RPC-05),
    /// refund `fail1` (92/0208), ActiveMerchant `0651` (wrong password/hash).
    #[test]
    fn fixtures_map_to_declines_and_errors() {
        let mandatory = gvps(
            "GVPS",
            "92",
            "0002",
            "Giriş yaptığınız işlem tipi için zorunlu alanları kontrol ediniz",
            "TxnAmount field must not be zero DOUBLE value because of the Mandatory Rule:zero",
        );
        assert!(matches!(
            parse_response(mandatory.as_bytes()).unwrap().outcome(),
            BankOutcome::Error { ref code, ref message } if code == "0002" && message.starts_with("Giriş")
        ));
        let host = gvps(
            "HOST",
            "05",
            "05",
            "İşleminizi gerçekleştiremiyoruz.Tekrar deneyiniz",
            "RPC-05 condition was raised",
        );
        assert!(matches!(
            parse_response(host.as_bytes()).unwrap().outcome(),
            BankOutcome::Declined { ref code, after_cutoff: false, .. } if code == "05"
        ));
        let refund = gvps(
            "GVPS",
            "92",
            "0208",
            "İade etmek istediğiniz işlem geçerli değil",
            "ErrorId: 0208",
        );
        assert!(matches!(
            parse_response(refund.as_bytes()).unwrap().outcome(),
            BankOutcome::Declined { ref code, ref message, .. } if code == "0208" && message == "İade etmek istediğiniz işlem geçerli değil"
        ));
        let auth = gvps("GVPS", "92", "0651", "", "ErrorId: 0651");
        assert!(matches!(
            parse_response(auth.as_bytes()).unwrap().outcome(),
            BankOutcome::Error { ref code, ref message } if code == "0651" && message == "ErrorId: 0651"
        ));
        let timeout = gvps("GVPS", "92", "9998", "Zaman aşımı oluştu", "");
        assert!(matches!(
            parse_response(timeout.as_bytes()).unwrap().outcome(),
            BankOutcome::Unknown { .. }
        ));
        let cut_off = gvps("HOST", "90", "90", "", "");
        assert!(matches!(
            parse_response(cut_off.as_bytes()).unwrap().outcome(),
            BankOutcome::Error { ref code, .. } if code == "90"
        ));
    }

    /// Answers after which the bank may have acted are unknown on a money request, never
    /// "nothing moved": GVPS's system errors and the host's "too late", "issuer inoperative",
    /// "system malfunction" and general error.
    #[test]
    fn may_have_acted_answers_are_unknown() {
        let gvps_codes = ["9998", "0122", "0770", "0771", "0773", "99", "9999"];
        let host_codes = ["68", "91", "96", "99"];
        let answers = gvps_codes
            .iter()
            .map(|c| gvps("GVPS", "92", c, "İşleminizi gerçekleştiremiyoruz", ""))
            .chain(host_codes.iter().map(|c| gvps("HOST", c, c, "", "")));
        for doc in answers {
            let r = parse_response(doc.as_bytes()).unwrap();
            assert!(
                matches!(r.outcome(), BankOutcome::Unknown { .. }),
                "{}: {:?}",
                r.bank_code(),
                r.outcome()
            );
            assert!(!r.status().is_conclusive(), "{}", r.bank_code());
        }
    }

    #[test]
    fn unusable_answers_are_errors() {
        assert!(parse_response(b"<html>busy</html>").is_err());
        assert!(parse_response(b"<GVPSResponse><Order/></GVPSResponse>").is_err());
        assert!(parse_response(b"<GVPSResponse>").is_err());
    }

    #[test]
    fn latin5_and_utf8_bodies_decode() {
        let text = gvps(
            "GVPS",
            "92",
            "0214",
            "İade tutarı, satış tutarından büyük olamaz",
            "",
        );
        let latin5 = [
            b"<?xml version=\"1.0\" encoding=\"ISO-8859-9\"?>".as_slice(),
            &encoding::encode(&text),
        ]
        .concat();
        assert_eq!(
            parse_response(&latin5).unwrap().error_msg,
            "İade tutarı, satış tutarından büyük olamaz"
        );
        // Undeclared Latin-5 bytes (not valid UTF-8) still decode.
        assert_eq!(
            parse_response(&encoding::encode(&text)).unwrap().error_msg,
            "İade tutarı, satış tutarından büyük olamaz"
        );
        let utf8 = format!("\u{FEFF}<?xml version='1.0' encoding='UTF-8'?>{text}");
        assert_eq!(
            parse_response(utf8.as_bytes()).unwrap().error_msg,
            "İade tutarı, satış tutarından büyük olamaz"
        );
        assert_eq!(
            declared_encoding(b"<?xml version=\"1.0\" encoding = \"ISO-8859-9\" ?><a/>").as_deref(),
            Some("iso-8859-9")
        );
        assert_eq!(declared_encoding(b"<a/>"), None);
    }
}
