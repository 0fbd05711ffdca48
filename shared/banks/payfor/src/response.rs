//! PayFor's answers: the flat `PayforResponse` (money requests, `OrderInquiry`,
//! `ParaPuanInquiry`) and the `TxnHistoryReport` (`TxnHistory`: one `PaymentRequestExtended/
//! PaymentRequest` per transaction). The bank pads empty elements with CR LF and spaces
//! (MEWS `PayForPosSerializer::decode` strips them); the kit's XML reader trims every text.
//!
//! Approval is `ProcReturnCode = 00` (MEWS `PayForPosResponseDataMapper`; `ErrMsg
//! "Onaylandı"`). The class of a refusal is read from the code (see [`classify`] and the
//! README table).

use paygate_bankkit::{amount, xml, Verdict};
use paygate_domain::BankOutcome;

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

    /// `ProcReturnCode`.
    pub fn code(&self) -> &str {
        self.get("ProcReturnCode")
    }

    /// The bank's code for this answer: `ProcReturnCode`, else `unknown`.
    pub fn bank_code(&self) -> String {
        let c = self.code();
        if c.is_empty() { "unknown" } else { c }.to_owned()
    }

    /// The bank's message: `ErrMsg`, else `BankInternalResponseMessage`.
    pub fn message(&self) -> String {
        [self.get("ErrMsg"), self.get("BankInternalResponseMessage")]
            .into_iter()
            .find(|s| !s.is_empty())
            .unwrap_or("")
            .to_owned()
    }

    /// A decimal-TL field in kuruş (`None` when absent or unreadable).
    pub fn amount(&self, key: &str) -> Option<i64> {
        amount::parse_decimal(self.get(key))
    }
}

/// A decoded answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// The root element's name (`PayforResponse`, `TxnHistoryReport`).
    pub root: String,
    /// The root's own fields (empty for a history report).
    pub fields: Fields,
    /// A history report's transactions, in document order.
    pub history: Vec<Fields>,
}

fn fields_of(e: &xml::Element) -> Fields {
    Fields(
        e.children
            .iter()
            .map(|c| (c.name.clone(), c.text.clone()))
            .collect(),
    )
}

/// Reads an answer (UTF-8, as the bank declares it).
pub fn parse(body: &[u8]) -> Result<Reply, String> {
    let text = std::str::from_utf8(body).map_err(|_| "the answer is not UTF-8".to_owned())?;
    let root = xml::parse(text.trim_start_matches('\u{feff}')).map_err(|e| e.to_string())?;
    match root.name.as_str() {
        "PayforResponse" => Ok(Reply {
            root: root.name.clone(),
            fields: fields_of(&root),
            history: Vec::new(),
        }),
        "TxnHistoryReport" => {
            let history: Vec<Fields> = root
                .children_named("PaymentRequestExtended")
                .map(|x| x.child("PaymentRequest").map(fields_of))
                .collect::<Option<_>>()
                .ok_or_else(|| "a history entry without PaymentRequest".to_owned())?;
            Ok(Reply {
                root: root.name.clone(),
                fields: Fields::default(),
                history,
            })
        }
        other => Err(format!("unexpected root element <{other}>")),
    }
}

/// The class of a `ProcReturnCode`.
pub fn classify(code: &str) -> Verdict {
    match code.trim() {
        "00" => Verdict::Approved,
        // Credentials / user not allowed: refused before processing.
        "V001" | "V004" | "M049" => Verdict::Error,
        // "Sistem hatası", system malfunction, late answer, reversal in progress, or no code
        // at all: the host may have acted.
        "" | "V036" | "96" | "68" | "92" => Verdict::Unknown,
        _ => Verdict::Declined,
    }
}

/// What an answer to a money-moving request means.
pub fn outcome(reply: &Reply) -> BankOutcome {
    let f = &reply.fields;
    let non_empty = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    if reply.root != "PayforResponse" {
        return BankOutcome::Unknown {
            reason: "the bank answered a money request with a report".to_owned(),
        };
    }
    match classify(f.code()) {
        Verdict::Approved => BankOutcome::Approved {
            code: "00".to_owned(),
            auth_code: non_empty(f.get("AuthCode")),
            rrn: non_empty(f.get("HostRefNum")),
        },
        Verdict::Declined => BankOutcome::Declined {
            code: f.bank_code(),
            message: f.message(),
            after_cutoff: false,
        },
        Verdict::Error => BankOutcome::Error {
            code: f.bank_code(),
            message: f.message(),
        },
        Verdict::Unknown => BankOutcome::Unknown {
            reason: format!(
                "the bank's answer does not settle the outcome ({}: {})",
                f.bank_code(),
                f.message()
            ),
        },
    }
}

/// The ParaPuan balance of an approved `ParaPuanInquiry` answer: `AvailablePoint` (decimal
/// TL), else `KullanilabilirBonusPuan`.
pub fn parapuan_minor(f: &Fields) -> Option<i64> {
    ["AvailablePoint", "KullanilabilirBonusPuan"]
        .into_iter()
        .map(|k| f.get(k))
        .find(|v| !v.is_empty())
        .and_then(amount::parse_decimal)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MEWS `PayForPosSerializerTest::decodeDataProvider` `test1`.
    const MEWS_DECODE: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<PayforResponse>\n<AuthCode>S31432</AuthCode>\n<HostRefNum>326011208369</HostRefNum>\n<ProcReturnCode>00</ProcReturnCode>\n<TransId>20230917EF0E</TransId>\n<ErrMsg>Onaylandı</ErrMsg>\n<CardHolderName>John Doe</CardHolderName>\n<ArtiTaksit>0</ArtiTaksit>\n<BankInternalResponseMessage>\r\n   </BankInternalResponseMessage>\n<PAYFORFROMXMLREQUEST>1</PAYFORFROMXMLREQUEST>\n<SESSION_SYSTEM_USER>0</SESSION_SYSTEM_USER>\n</PayforResponse>";

    #[test]
    fn decodes_the_mews_fixture() {
        let r = parse(MEWS_DECODE.as_bytes()).unwrap();
        assert_eq!(r.fields.get("TransId"), "20230917EF0E");
        assert_eq!(r.fields.get("BankInternalResponseMessage"), "");
        assert_eq!(
            outcome(&r),
            BankOutcome::Approved {
                code: "00".into(),
                auth_code: Some("S31432".into()),
                rrn: Some("326011208369".into())
            }
        );
        assert!(parse(b"<html>502</html>").is_err());
        assert!(parse(b"<PayforResponse><ProcReturnCode>").is_err());
    }

    /// MEWS `refundTestDataProvider` `fail1` (refund before the end of day) and
    /// `cancelTestDataProvider` `fail1` (nothing to void).
    #[test]
    fn classification() {
        let doc = |code: &str, msg: &str| {
            parse(format!("<PayforResponse><AuthCode></AuthCode><HostRefNum>230423104777</HostRefNum><ProcReturnCode>{code}</ProcReturnCode><TransId>20221031714F</TransId><ErrMsg>{msg}</ErrMsg></PayforResponse>").as_bytes()).unwrap()
        };
        let v014 = outcome(&doc(
            "V014",
            "Bu işlem geri alınamaz, lüften asıl işlemi iptal edin.",
        ));
        assert!(
            matches!(&v014, BankOutcome::Declined { code, message, .. } if code == "V014" && message.starts_with("Bu işlem"))
        );
        assert!(
            matches!(outcome(&doc("V013", "Seçili İşlem Bulunamadı!")), BankOutcome::Declined { code, .. } if code == "V013")
        );
        assert!(matches!(
            outcome(&doc("V001", "x")),
            BankOutcome::Error { .. }
        ));
        for code in ["V036", "96", ""] {
            assert!(
                matches!(
                    outcome(&doc(code, "Sistem hatası")),
                    BankOutcome::Unknown { .. }
                ),
                "{code}"
            );
        }
    }

    #[test]
    fn parapuan() {
        let f = Fields(vec![("AvailablePoint".into(), "12.34".into())]);
        assert_eq!(parapuan_minor(&f), Some(1_234));
        let f = Fields(vec![("KullanilabilirBonusPuan".into(), "5,00".into())]);
        assert_eq!(parapuan_minor(&f), Some(500));
        assert_eq!(parapuan_minor(&Fields::default()), None);
    }
}
