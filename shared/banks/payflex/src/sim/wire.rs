//! The simulator's wire format: the `prmstr` form read strictly, `VposResponse` and the
//! search answer written from the order book.

use paygate_bankkit::{
    amount,
    form::parse_form,
    sim::{OrderState, SimOrder, SimTxn},
    xml::{self, Element, XmlBuilder},
};

use crate::request::FIELD;

/// The answers' content type.
pub const CONTENT_TYPE: &str = "text/xml; charset=utf-8";

/// Why a request could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError(pub String);

/// Reads a request: a form body whose `prmstr` field is a UTF-8 XML document with `root`.
pub fn read_request(
    content_type: Option<&str>,
    body: &[u8],
    root: &str,
) -> Result<Element, WireError> {
    let form_ct = content_type.is_some_and(|c| {
        c.split(';').next().is_some_and(|m| {
            m.trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        })
    });
    if !form_ct {
        return Err(WireError("not a form post".into()));
    }
    let form = parse_form(body).map_err(WireError)?;
    let doc = form
        .get(FIELD)
        .ok_or_else(|| WireError(format!("no `{FIELD}` field")))?;
    let el = xml::parse(doc.trim()).map_err(|e| WireError(e.to_string()))?;
    if el.name != root {
        return Err(WireError(format!(
            "root element is <{}>, not <{root}>",
            el.name
        )));
    }
    Ok(el)
}

/// The bank's transaction id of a book transaction: 32 hex digits, like VakıfBank's.
pub fn transaction_id(t: &SimTxn) -> String {
    format!("{:0>32}", t.rrn)
}

/// The book reference (`rrn`) a transaction id stands for.
pub fn rrn_of(transaction_id: &str) -> &str {
    transaction_id.trim().trim_start_matches('0')
}

/// `HostDate` of business day `day` (day 0 = 2024-01-01, 12:00; months of 31 days are
/// enough for a simulator's clock).
pub fn host_date(day: u32) -> String {
    let (m, d) = (day / 28 % 12 + 1, day % 28 + 1);
    format!("2024{m:02}{d:02}120000")
}

/// A `VposResponse` being written.
#[derive(Debug, Clone, Default)]
pub struct VposAnswer {
    pub merchant_id: String,
    pub transaction_type: String,
    pub transaction_id: String,
    pub reference: String,
    pub result_code: String,
    pub result_detail: String,
    pub auth_code: String,
    pub host_date: String,
    pub rrn: String,
    pub terminal_no: String,
    pub amount: Option<i64>,
    pub currency: String,
}

impl VposAnswer {
    /// A refusal: only `ResultCode` and `ResultDetail`, as the MEWS fixtures show.
    pub fn refused(code: &str, detail: &str) -> Self {
        Self {
            result_code: code.to_owned(),
            result_detail: detail.to_owned(),
            ..Self::default()
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut doc = XmlBuilder::new("VposResponse", "utf-8");
        if self.result_code != crate::response::APPROVED {
            return doc
                .leaf("ResultCode", &self.result_code)
                .leaf("ResultDetail", &self.result_detail)
                .leaf("InstallmentTable", "")
                .finish()
                .into_bytes();
        }
        let amount = self.amount.map(amount::to_decimal).unwrap_or_default();
        doc = doc
            .leaf("MerchantId", &self.merchant_id)
            .leaf("TransactionType", &self.transaction_type)
            .leaf("TransactionId", &self.transaction_id)
            .leaf("ReferenceTransactionId", &self.reference)
            .leaf("ResultCode", &self.result_code)
            .leaf("ResultDetail", &self.result_detail)
            .leaf("InstallmentTable", "")
            .leaf("CampaignResult", "")
            .leaf("AuthCode", &self.auth_code)
            .leaf("HostDate", &self.host_date)
            .leaf("Rrn", &self.rrn)
            .leaf("TerminalNo", &self.terminal_no)
            .leaf("CurrencyAmount", &amount)
            .leaf("CurrencyCode", &self.currency)
            .leaf("BatchNo", "300")
            .leaf("TLAmount", &amount);
        doc.finish().into_bytes()
    }
}

/// The search answer's header and its lines.
pub fn search_answer(code: &str, message: &str, lines: &[String]) -> Vec<u8> {
    let status = if code == crate::response::APPROVED {
        "Success"
    } else {
        "Error"
    };
    let mut doc = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><SearchResponse><ResponseInfo><Status>{status}</Status><ResponseCode>{code}</ResponseCode><ResponseMessage>{}</ResponseMessage><ResponseDateTime>2024-01-01T12:00:00+03:00</ResponseDateTime><IsIdempotent>false</IsIdempotent></ResponseInfo>",
        xml::escape(message)
    );
    if code == crate::response::APPROVED {
        doc.push_str(&format!(
            "<PageIndex>1</PageIndex><PageSize>{}</PageSize><TotalItemCount>{}</TotalItemCount><TransactionSearchResultInfo>{}</TransactionSearchResultInfo>",
            lines.len().max(10),
            lines.len(),
            lines.concat()
        ));
    }
    doc.push_str("</SearchResponse>");
    doc.into_bytes()
}

struct Line<'a> {
    kind: &'a str,
    id: String,
    reference: String,
    code: &'a str,
    message: &'a str,
    auth_code: &'a str,
    rrn: &'a str,
    amount: i64,
    day: u32,
    flags: Vec<(&'a str, String)>,
}

impl Line<'_> {
    fn render(&self, merchant: &str, order: &SimOrder) -> String {
        let mut out = XmlBuilder::new("TransactionSearchResultInfo", "utf-8")
            .leaf("MerchantId", merchant)
            .leaf("TransactionType", self.kind)
            .leaf("TransactionId", &self.id)
            .leaf("ReferenceTransactionId", &self.reference)
            .leaf("OrderId", &order.order_id)
            .leaf("ResultCode", self.code)
            .leaf("ResponseMessage", self.message)
            .leaf(
                "HostResultCode",
                if self.code == "0000" { "000" } else { "005" },
            )
            .leaf("AuthCode", self.auth_code)
            .leaf("HostDate", &host_date(self.day))
            .leaf("Rrn", self.rrn)
            .leaf("CurrencyAmount", &amount::to_decimal(self.amount))
            .leaf("AmountCode", order.currency.numeric())
            .leaf("GainedPoint", "0")
            .leaf("TotalPoint", "0");
        for (k, v) in &self.flags {
            out = out.leaf(k, v);
        }
        let doc = out.finish();
        // Strip the declaration: the line is part of a larger document.
        doc[doc.find("?>").map(|i| i + 2).unwrap_or(0)..].to_owned()
    }
}

fn kind_of(t: &SimTxn) -> &'static str {
    match t.kind {
        "preauth" => "Auth",
        "sale" => "Sale",
        "postauth" => "Capture",
        "void" => "Cancel",
        _ => "Refund",
    }
}

/// Every transaction of the order as the search service lists it: the original first
/// (with its flags), then captures, cancels and refunds in the order they happened.
pub fn order_lines(merchant: &str, order: &SimOrder) -> Vec<String> {
    let truth = |b: bool| if b { "true" } else { "false" }.to_owned();
    let Some(first) = order.history.first() else {
        // A declined order: one refused sale.
        let refused = Line {
            kind: "Sale",
            id: "f".repeat(32),
            reference: String::new(),
            code: "0312",
            message: "RED-GEÇERSİZ KART",
            auth_code: "",
            rrn: "",
            amount: order.amount,
            day: order.day,
            flags: vec![
                ("IsReversed", truth(false)),
                ("IsCanceled", truth(false)),
                ("IsRefunded", truth(false)),
            ],
        };
        return if order.state == OrderState::Declined {
            vec![refused.render(merchant, order)]
        } else {
            Vec::new()
        };
    };
    let first_id = transaction_id(first);
    let fully_refunded =
        order.refunded > 0 && order.refundable() == 0 && order.state == OrderState::Sale;
    let captured = order
        .history
        .iter()
        .any(|t| t.kind == "postauth" && !t.voided);
    let mut lines = vec![Line {
        kind: kind_of(first),
        id: first_id.clone(),
        reference: String::new(),
        code: "0000",
        message: "İŞLEM BAŞARILI",
        auth_code: &first.auth_code,
        rrn: &first.rrn,
        amount: first.amount,
        day: first.day,
        flags: vec![
            ("IsReversed", truth(false)),
            ("IsCanceled", truth(order.state == OrderState::Voided)),
            ("IsRefunded", truth(fully_refunded)),
            ("IsCaptured", truth(captured)),
            ("TotalRefundAmount", amount::to_decimal(order.refunded)),
        ],
    }];
    let mut reference = first_id;
    for t in order.history.iter().skip(1) {
        let id = transaction_id(t);
        lines.push(Line {
            kind: kind_of(t),
            id: id.clone(),
            reference: reference.clone(),
            code: "0000",
            message: "İŞLEM BAŞARILI",
            auth_code: &t.auth_code,
            rrn: &t.rrn,
            amount: t.amount,
            day: t.day,
            flags: vec![("IsCanceled", truth(t.voided))],
        });
        if t.kind == "postauth" {
            reference = id;
        }
    }
    lines.iter().map(|l| l.render(merchant, order)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transaction_ids_round_trip() {
        let t = SimTxn {
            kind: "sale",
            amount: 1,
            rrn: "600000000001".into(),
            auth_code: "100001".into(),
            day: 0,
            voided: false,
        };
        let id = transaction_id(&t);
        assert_eq!(id.len(), 32);
        assert_eq!(rrn_of(&id), "600000000001");
    }

    #[test]
    fn reads_only_prmstr_forms() {
        let body = paygate_bankkit::form::Form::new()
            .field(
                "prmstr",
                "<VposRequest><MerchantId>1</MerchantId></VposRequest>",
            )
            .encode();
        let ct = Some("application/x-www-form-urlencoded");
        assert!(read_request(ct, &body, "VposRequest").is_ok());
        assert!(read_request(ct, &body, "SearchRequest").is_err());
        assert!(read_request(Some("text/xml"), &body, "VposRequest").is_err());
        assert!(read_request(ct, b"prmstr=%3CVposRequest%3E", "VposRequest").is_err());
        assert!(read_request(ct, b"xmldata=x", "VposRequest").is_err());
    }
}
