//! Vakıf Katılım's answers. A money request is answered with the transaction's fields at the
//! top (`ResponseCode`, `ResponseMessage`, `ProvisionNumber`, `RRN`, `Stan`, `OrderId`,
//! `MerchantOrderId`, `TransactionTime`) and the request echoed in `VPosMessage`; a query
//! with `VPosOrderData` holding one `OrderContract` per transaction (MEWS
//! `VakifKatilimPosResponseDataMapperTest`, `test_data/vakifkatilimpos/history`). The bank
//! declares `encoding="utf-16"` over UTF-8 bytes and pads with `&#x0;` (MEWS
//! `VakifKatilimPosSerializer::decode` strips both); the root's name is not relied on.
//!
//! Approval is `ResponseCode 00`. What every other code counts as is [`classify`] (README
//! table): a code the sources do not show as a refusal is unknown.

use paygate_bankkit::{encoding, xml, Answer, BankReply, Verdict};
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

    /// `ResponseCode`.
    pub fn code(&self) -> &str {
        self.get("ResponseCode")
    }

    /// The bank's code for this answer: `ResponseCode`, else `unknown`.
    pub fn bank_code(&self) -> String {
        let c = self.code();
        if c.is_empty() { "unknown" } else { c }.to_owned()
    }

    /// A decimal-TL field in kuruş (`None` when absent or unreadable).
    pub fn amount(&self, key: &str) -> Option<i64> {
        paygate_bankkit::amount::parse_decimal(self.get(key))
    }
}

/// A decoded answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// The root's own leaf fields.
    pub fields: Fields,
    /// `VPosMessage` (the request as the bank echoes it), when present.
    pub message: Fields,
    /// Whether the answer carries `VPosOrderData` (a query's answer).
    pub order_data: bool,
    /// `VPosOrderData/OrderContract` entries, in document order.
    pub orders: Vec<Fields>,
}

impl Reply {
    /// The merchant order id the answer names (top level, else `VPosMessage`).
    pub fn merchant_order_id(&self) -> &str {
        match self.fields.get("MerchantOrderId") {
            "" => self.message.get("MerchantOrderId"),
            id => id,
        }
    }
}

fn fields_of(e: &xml::Element) -> Fields {
    Fields(
        e.children
            .iter()
            .filter(|c| c.children.is_empty())
            .map(|c| (c.name.clone(), c.text.clone()))
            .collect(),
    )
}

/// The class of a `ResponseCode` (the README's code → outcome table names the sources).
pub fn classify(code: &str) -> Verdict {
    match code.trim() {
        "00" => Verdict::Approved,
        // No such order / transaction ("islem bilgisi bulunamadi.", "Kriterlere uygun sonuc
        // bulunmamaktadir."), an issuer's refusal ("Limit Yetersiz."), a card or 3-D refusal:
        // refused on the merits, nothing moved.
        "OrderDataNotFound"
        | "NonResult"
        | "51"
        | "CardNotEnrolled"
        | "MPIAuthenticationStatusN" => Verdict::Declined,
        // The merchant user is not defined: refused before processing.
        "MerchantNotDefined" => Verdict::Error,
        // No code, or one the sources do not show as a refusal: the bank may have acted.
        _ => Verdict::Unknown,
    }
}

/// The text of an answer: UTF-8 whatever the declaration says, else ISO-8859-9; without the
/// `&#x0;` padding and the `utf-16` declaration (MEWS `VakifKatilimPosSerializer::decode`).
fn text_of(body: &[u8]) -> String {
    let text = match std::str::from_utf8(body) {
        Ok(t) => t.to_owned(),
        Err(_) => encoding::decode(body),
    };
    text.trim_start_matches('\u{feff}')
        .replace("&#x0;", "")
        .replace(" encoding=\"utf-16\"", "")
}

impl BankReply for Reply {
    fn decode(body: &[u8]) -> Result<Self, String> {
        let root = xml::parse(&text_of(body)).map_err(|e| e.to_string())?;
        let data = root.child("VPosOrderData");
        let orders = data
            .map(|d| d.children_named("OrderContract").map(fields_of).collect())
            .unwrap_or_default();
        let reply = Reply {
            fields: fields_of(&root),
            message: root.child("VPosMessage").map(fields_of).unwrap_or_default(),
            order_data: data.is_some(),
            orders,
        };
        if reply.fields.0.iter().all(|(k, _)| k != "ResponseCode") {
            return Err(format!("<{}> without ResponseCode", root.name));
        }
        Ok(reply)
    }

    fn outcome(&self) -> BankOutcome {
        let f = &self.fields;
        if self.order_data {
            return BankOutcome::Unknown {
                reason: "the bank answered a money request with order data".to_owned(),
            };
        }
        classify(f.code()).outcome(Answer {
            approval: "00".to_owned(),
            auth_code: f.get("ProvisionNumber").to_owned(),
            rrn: f.get("RRN").to_owned(),
            code: f.bank_code(),
            message: f.get("ResponseMessage").to_owned(),
            after_cutoff: false,
        })
    }

    /// A `SelectOrderByMerchantOrderId` answer (the order it names is not checked here; the
    /// adapter's reads check it: [`status::read`]).
    fn status(&self) -> BankStatus {
        match status::read(self, None).found() {
            Ok(line) => status::state(&line),
            Err(st) => st,
        }
    }
}

#[cfg(test)]
#[path = "response_tests.rs"]
mod tests;
