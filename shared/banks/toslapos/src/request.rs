//! JSON request bodies (MEWS `ToslaPosRequestDataMapper`; Tosla's developer centre "Zorunlu
//! Parametreler"): every body carries `clientId` (a number: the API types it `long`),
//! `apiUser`, `rnd` (at most 24 characters), `timeSpan` (`yyyyMMddHHmmss`, GMT+3) and `hash`
//! (see [`crate::hash`]), then the operation's fields. Amounts are integers in kuruş
//! (`1.01 TL` → `101`; MEWS `formatAmount`, the AKÖde SDK's "1 TL için 100"). The hash does
//! not cover the body, so its key order is free.

use paygate_bankkit::{BankRequest, Order};
use serde_json::{json, Map, Value};

use crate::{config::ApiCredentials, hash, response::Reply};

/// The request body's content type.
pub const CONTENT_TYPE: &str = "application/json";

/// One API request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request<'a> {
    /// Closes the order's pre-authorization for the amount (`postAuth`).
    PostAuth(Order<'a>),
    /// Cancels the whole order (`void`: "Sipariş iptal servisi - ödemenin tamamı iade edilir").
    Void { order_id: &'a str },
    /// Refunds the amount of a sale, in part or in full (`refund`).
    Refund(Order<'a>),
    /// The order's state (`inquiry`: "Ödeme doğrulama servisi").
    Inquiry { order_id: &'a str },
    /// One page of a day's transactions, every order (`history` with an empty `orderId`:
    /// "Sipariş numarası boş gönderildiğinde o tarihteki tüm siparişleri listeler"; see
    /// [`crate::history`]). `transaction_date` is `yyyyMMdd` as a number, `page` from 1.
    History {
        transaction_date: u32,
        page: u32,
        page_size: u32,
    },
}

impl Request<'_> {
    /// The request's path below `endpointUrl` (MEWS `ToslaPos::getRequestURIByTransactionType`).
    pub fn path(&self) -> &'static str {
        match self {
            Self::PostAuth(_) => "postAuth",
            Self::Void { .. } => "void",
            Self::Refund(_) => "refund",
            Self::Inquiry { .. } => "inquiry",
            Self::History { .. } => "history",
        }
    }

    pub fn order_id(&self) -> &str {
        match self {
            Self::PostAuth(o) | Self::Refund(o) => o.order_id,
            Self::Void { order_id } | Self::Inquiry { order_id } => order_id,
            Self::History { .. } => "",
        }
    }
}

impl BankRequest for Request<'_> {
    type Reply = Reply;

    fn kind(&self) -> &'static str {
        self.path()
    }

    /// An answer naming another order settles nothing (an answer without `OrderId`, such as
    /// a validation or hash error, is read by its code).
    fn answered_by(&self, reply: &Reply) -> bool {
        let named = reply.order_id();
        named.is_empty() || named == self.order_id()
    }
}

/// What makes each request unique: its random text and its time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    /// 24 upper-case hex characters (the API's maximum length).
    pub rnd: String,
    /// `20231209201121`: the request's time in Istanbul (UTC+3 all year since 2016).
    pub time_span: String,
}

impl Stamp {
    /// The stamp of a request made at `unix_millis` with 12 random bytes.
    pub fn new(unix_millis: i64, random_bytes: &[u8; 12]) -> Self {
        let at =
            time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(unix_millis) * 1_000_000)
                .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
                .to_offset(time::macros::offset!(+3));
        let time_span = format!(
            "{:04}{:02}{:02}{:02}{:02}{:02}",
            at.year(),
            u8::from(at.month()),
            at.day(),
            at.hour(),
            at.minute(),
            at.second()
        );
        let rnd = random_bytes.iter().map(|b| format!("{b:02X}")).collect();
        Self { rnd, time_span }
    }
}

/// The body of `req`, signed with `stamp`.
pub fn to_json(creds: &ApiCredentials, req: &Request<'_>, stamp: &Stamp) -> String {
    let client_id: Value = creds
        .client_id
        .parse::<u64>()
        .map_or_else(|_| Value::String(creds.client_id.clone()), Value::from);
    let mut body = Map::new();
    body.insert("clientId".into(), client_id);
    body.insert("apiUser".into(), json!(creds.api_user));
    body.insert("orderId".into(), json!(req.order_id()));
    if let Request::PostAuth(o) | Request::Refund(o) = req {
        body.insert("amount".into(), json!(o.amount));
    }
    if let Request::History {
        transaction_date,
        page,
        page_size,
    } = req
    {
        body.insert("transactionDate".into(), json!(transaction_date));
        body.insert("page".into(), json!(page));
        body.insert("pageSize".into(), json!(page_size));
    }
    body.insert("rnd".into(), json!(stamp.rnd));
    body.insert("timeSpan".into(), json!(stamp.time_span));
    body.insert(
        "hash".into(),
        json!(hash::request_hash(
            &creds.api_pass,
            &creds.client_id,
            &creds.api_user,
            &stamp.rnd,
            &stamp.time_span
        )),
    );
    Value::Object(body).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps() {
        // 2023-12-09T17:11:21Z is 20:11:21 in Istanbul (MEWS `20231209201121`).
        let s = Stamp::new(1_702_141_881_000, &[0xAB; 12]);
        assert_eq!(s.time_span, "20231209201121");
        assert_eq!(s.rnd, "ABABABABABABABABABABABAB");
        assert_eq!(s.rnd.len(), 24);
    }
}
