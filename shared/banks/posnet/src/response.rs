//! Reading `posnetResponse` and mapping it onto the gateway's outcomes.
//!
//! Approval is `approved == 1` with an empty `respCode` (MEWS `PosNetResponseDataMapper`).
//! Anything else is a refusal carrying `respCode`/`respText`: `0400` "DB ERROR" and the host
//! codes `0068`/`0091`/`0092`/`0096` leave a money operation *unknown* (the bank may have
//! acted); packet and credential problems (`0148`, `0150`…) become `Error`; the rest
//! `Declined` (`0211` "GRUP KAPAMA YAPILMIS" marks a reversal refused after the end-of-day
//! cut). The crate README's code → outcome table names the sources.

use paygate_bankkit::{encoding, xml, Answer, BankReply, Verdict};
use paygate_domain::{BankOutcome, BankStatus, PointsBalance, PointsResult};

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

impl Reply {
    /// How the answer counts: approved (`approved 1`, no `respCode`), unknown (the codes
    /// after which the host may have acted), an error (technical or credential codes), or a
    /// decline.
    pub fn verdict(&self) -> Verdict {
        if self.is_approved() {
            Verdict::Approved
        } else if codes::is_unknown(self.code()) {
            Verdict::Unknown
        } else if self.is_technical() {
            Verdict::Error
        } else {
            Verdict::Declined
        }
    }
}

impl BankReply for Reply {
    /// Parses response bytes. The charset comes from the declaration (the bank sends
    /// `<?xml version='1.0' encoding='iso-8859-9'?>`); bytes that contradict it are read as
    /// ISO-8859-9, the service's charset. A document that is not a `posnetResponse` with an
    /// `approved` element is an error.
    fn decode(bytes: &[u8]) -> Result<Self, String> {
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
    fn outcome(&self) -> BankOutcome {
        let code = self.code().to_owned();
        let answer = Answer {
            approval: codes::APPROVED.to_owned(),
            auth_code: self.auth_code.clone(),
            rrn: self.host_log_key.clone(),
            after_cutoff: code == codes::BATCH_CLOSED,
            message: self.resp_text.clone(),
            code,
        };
        self.verdict().outcome_or(answer, |code, message| {
            format!("the bank could not tell the outcome ({code}: {message})")
        })
    }

    /// The order's state from an `agreement` answer.
    fn status(&self) -> BankStatus {
        crate::status::bank_status(self)
    }

    /// The balances of a `pointInquiry` answer: `pointInfo/totalPointAmount` is the card's
    /// WorldPuan in kuruş (last two digits are kuruş: `000000005871` = 58.71 TL).
    fn points(&self) -> PointsResult {
        if !self.is_approved() {
            let code = self.code().to_owned();
            let message = self.resp_text.clone();
            return if self.is_technical() || codes::is_unknown(&code) {
                PointsResult::Error { code, message }
            } else {
                PointsResult::Declined { code, message }
            };
        }
        let amount = self
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
}

#[cfg(test)]
#[path = "response_tests.rs"]
mod tests;
