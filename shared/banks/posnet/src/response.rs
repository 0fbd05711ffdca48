//! Reading `posnetResponse` and mapping it onto the gateway's outcomes.
//!
//! Approval is `approved == 1` with an empty `respCode` (MEWS `PosNetResponseDataMapper`).
//! Anything else is a refusal carrying `respCode`/`respText`; codes for technical or
//! credential problems (`0148`, `0150`, `0400`…) become `Error`, the rest `Declined`
//! (`0211` "GRUP KAPAMA YAPILMIS" marks a reversal refused after the end-of-day cut).

use paygate_bankkit::{encoding, xml};
use paygate_domain::{BankOutcome, PointsBalance, PointsResult};

use crate::{codes, wire};

/// The programme name of Yapı Kredi's points.
pub const POINTS_PROGRAMME: &str = "WorldPuan";

/// One answer of the XML service.
#[derive(Debug, Clone)]
pub struct Reply {
    pub approved: String,
    pub resp_code: String,
    pub resp_text: String,
    pub host_log_key: String,
    pub auth_code: String,
    /// The whole document, for operation-specific parts (`transactions`, `pointInfo`).
    pub root: xml::Element,
}

impl Reply {
    pub fn is_approved(&self) -> bool {
        self.approved == codes::APPROVED && self.resp_code.is_empty()
    }

    /// The code to report: `respCode`, or the `approved` value when the bank gave none.
    pub fn code(&self) -> &str {
        if self.resp_code.is_empty() {
            &self.approved
        } else {
            &self.resp_code
        }
    }

    pub fn is_technical(&self) -> bool {
        codes::is_technical(self.code())
    }
}

/// Parses response bytes. The charset comes from the declaration (the bank sends
/// `<?xml version='1.0' encoding='iso-8859-9'?>`); bytes that contradict it are read as
/// ISO-8859-9, the service's charset. A document that is not a `posnetResponse` with an
/// `approved` element is an error.
pub fn parse(bytes: &[u8]) -> Result<Reply, String> {
    let text = wire::decode_document(bytes).unwrap_or_else(|_| encoding::decode(bytes));
    let root = xml::parse(&text).map_err(|e| e.to_string())?;
    if root.name != "posnetResponse" {
        return Err(format!("unexpected root element `{}`", root.name));
    }
    let field = |name: &str| root.text_at(&[name]).unwrap_or_default().to_owned();
    let approved = root
        .text_at(&["approved"])
        .ok_or_else(|| "answer without `approved`".to_owned())?
        .to_owned();
    Ok(Reply {
        resp_code: field("respCode"),
        resp_text: field("respText"),
        host_log_key: field("hostlogkey"),
        auth_code: field("authCode"),
        approved,
        root,
    })
}

/// The outcome of a money-moving answer (capt, reverse, return).
pub fn outcome(reply: &Reply) -> BankOutcome {
    if reply.is_approved() {
        return BankOutcome::Approved {
            code: codes::APPROVED.to_owned(),
            auth_code: Some(reply.auth_code.clone()).filter(|s| !s.is_empty()),
            rrn: Some(reply.host_log_key.clone()).filter(|s| !s.is_empty()),
        };
    }
    let code = reply.code().to_owned();
    let message = reply.resp_text.clone();
    if codes::is_unknown(&code) {
        BankOutcome::Unknown {
            reason: format!("the bank could not tell the outcome ({code}: {message})"),
        }
    } else if reply.is_technical() {
        BankOutcome::Error { code, message }
    } else {
        BankOutcome::Declined {
            after_cutoff: code == codes::BATCH_CLOSED,
            code,
            message,
        }
    }
}

/// The balances of a `pointInquiry` answer: `pointInfo/totalPointAmount` is the card's
/// WorldPuan in kuruş (last two digits are kuruş: `000000005871` = 58.71 TL).
pub fn points(reply: &Reply) -> PointsResult {
    if !reply.is_approved() {
        let code = reply.code().to_owned();
        let message = reply.resp_text.clone();
        return if reply.is_technical() {
            PointsResult::Error { code, message }
        } else {
            PointsResult::Declined { code, message }
        };
    }
    let amount = reply
        .root
        .text_at(&["pointInfo", "totalPointAmount"])
        .and_then(wire::parse_wire_amount);
    match amount {
        Some(minor) => PointsResult::Ok {
            balances: vec![PointsBalance {
                name: POINTS_PROGRAMME.to_owned(),
                value: paygate_bankkit::amount::to_decimal(minor),
                amount_minor: minor,
            }],
        },
        None => PointsResult::Error {
            code: "response".to_owned(),
            message: "approved points answer without a readable pointInfo/totalPointAmount"
                .to_owned(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(doc: &str) -> Reply {
        parse(doc.as_bytes()).unwrap()
    }

    #[test]
    fn approved_refund_sample_maps_to_approved_with_references() {
        // PARA tests/samples/response/posnet/refund_successful.xml (comments dropped).
        let r = reply(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><posnetResponse><approved>1</approved>\
             <hostlogkey>0001000004P0503281</hostlogkey><authCode>007912</authCode><tranDate>050531135646</tranDate>\
             <instInfo><inst1>03</inst1><amnt1>000000005000</amnt1></instInfo>\
             <pointInfo><point>00000010</point><pointAmount>000000000005</pointAmount><totalPoint>00011742</totalPoint>\
             <totalPointAmount>000000005871</totalPointAmount></pointInfo></posnetResponse>",
        );
        assert_eq!(
            outcome(&r),
            BankOutcome::Approved {
                code: "1".into(),
                auth_code: Some("007912".into()),
                rrn: Some("0001000004P0503281".into()),
            }
        );
        // The same pointInfo read as a balance: 000000005871 → 58.71 TL.
        assert_eq!(
            points(&r),
            PointsResult::Ok {
                balances: vec![PointsBalance {
                    name: "WorldPuan".into(),
                    value: "58.71".into(),
                    amount_minor: 5871
                }]
            }
        );
    }

    #[test]
    fn refusals_carry_the_bank_code_and_text() {
        // PARA post_authorization_failed.xml.
        let r = reply(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><posnetResponse><approved>0</approved>\
             <respCode>0225</respCode><respText>ONAYLANMADI:0225 ISL. YAPILAMIY 0225</respText></posnetResponse>",
        );
        assert_eq!(
            outcome(&r),
            BankOutcome::Declined {
                code: "0225".into(),
                message: "ONAYLANMADI:0225 ISL. YAPILAMIY 0225".into(),
                after_cutoff: false
            }
        );
        // MEWS fail2: approved 2 + 0127 is a refusal, even with a hostlogkey present.
        let dup = reply(
            "<posnetResponse><approved>2</approved><respCode>0127</respCode>\
             <respText>ORDERID DAHA ONCE KULLANILMIS 0127</respText><hostlogkey>020527337090000191</hostlogkey>\
             <authCode>273370</authCode><tranDate>190703093340</tranDate></posnetResponse>",
        );
        assert!(matches!(outcome(&dup), BankOutcome::Declined { code, .. } if code == "0127"));
        let cut = reply("<posnetResponse><approved>0</approved><respCode>0211</respCode><respText>GRUP KAPAMA YAPILMIS</respText></posnetResponse>");
        assert!(matches!(
            outcome(&cut),
            BankOutcome::Declined {
                after_cutoff: true,
                ..
            }
        ));
        // An approved flag with an error code is not an approval.
        let odd = reply("<posnetResponse><approved>1</approved><respCode>0205</respCode><respText>x</respText></posnetResponse>");
        assert!(matches!(outcome(&odd), BankOutcome::Declined { code, .. } if code == "0205"));
    }

    #[test]
    fn credential_and_technical_codes_are_errors() {
        // MEWS fail1, ISO-8859-9 on the wire ('ı' is one byte).
        let bytes = encoding::encode(
            "<?xml version='1.0' encoding='iso-8859-9'?><posnetResponse><approved>0</approved><respCode>0148</respCode>\
             <respText>INVALID MID TID IP. Hatalı IP:89.244.149.137</respText></posnetResponse>",
        );
        let r = parse(&bytes).unwrap();
        assert_eq!(
            outcome(&r),
            BankOutcome::Error {
                code: "0148".into(),
                message: "INVALID MID TID IP. Hatalı IP:89.244.149.137".into()
            }
        );
        assert!(matches!(points(&r), PointsResult::Error { code, .. } if code == "0148"));
        let declined = reply("<posnetResponse><approved>0</approved><respCode>0012</respCode><respText>RED-GECERSIZ ISLEM</respText></posnetResponse>");
        assert!(matches!(points(&declined), PointsResult::Declined { code, .. } if code == "0012"));
    }

    #[test]
    fn host_codes_that_cannot_tell_are_unknown() {
        for code in ["0068", "0096", "0092"] {
            let r = reply(&format!(
                "<posnetResponse><approved>0</approved><respCode>{code}</respCode><respText>HOST</respText></posnetResponse>"
            ));
            assert!(matches!(outcome(&r), BankOutcome::Unknown { .. }), "{code}");
        }
    }

    #[test]
    fn unreadable_answers_are_errors() {
        for bad in [
            "",
            "<html>502</html>",
            "<posnetResponse><respCode>1</respCode></posnetResponse>",
            "<posnetResponse>",
        ] {
            assert!(parse(bad.as_bytes()).is_err(), "{bad}");
        }
        let no_points = reply("<posnetResponse><approved>1</approved></posnetResponse>");
        assert!(matches!(points(&no_points), PointsResult::Error { .. }));
    }
}
