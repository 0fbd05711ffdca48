//! JSON request bodies. Keys and their order follow MEWS `AkbankPosRequestDataMapper`: every
//! body starts with `terminal{merchantSafeId, terminalSafeId}`, `version "1.00"`, `txnCode`,
//! `requestDateTime` (`Y-m-d\TH:i:s.000`, Europe/Istanbul) and `randomNumber` (128 hex
//! characters), then the operation's objects. Amounts are strings with two decimals
//! (`"1.02"`), `currencyCode` an integer (`949`). The body is written by hand (never through a
//! float, never re-ordered) because the `auth-hash` is computed over its exact bytes.

use paygate_bankkit::{amount, BankRequest, Order};
use paygate_domain::Currency;

use crate::{config::ApiCredentials, response::Reply};

/// The request body's content type.
pub const CONTENT_TYPE: &str = "application/json";
/// The API version every body names.
pub const VERSION: &str = "1.00";

/// A JSON object written in insertion order.
#[derive(Debug, Clone, Default)]
pub struct Obj(Vec<(String, String)>);

impl Obj {
    /// A string member.
    pub fn str(mut self, key: &str, value: &str) -> Self {
        let v = serde_json::Value::String(value.to_owned()).to_string();
        self.0.push((key.to_owned(), v));
        self
    }

    /// A member whose value is already JSON (a number, `null`, an array).
    pub fn raw(mut self, key: &str, json: impl Into<String>) -> Self {
        self.0.push((key.to_owned(), json.into()));
        self
    }

    /// An object member.
    pub fn obj(self, key: &str, value: Obj) -> Self {
        let v = value.finish();
        self.raw(key, v)
    }

    /// The object's text.
    pub fn finish(self) -> String {
        let members: Vec<String> = self
            .0
            .into_iter()
            .map(|(k, v)| format!("{}:{v}", serde_json::Value::String(k)))
            .collect();
        format!("{{{}}}", members.join(","))
    }
}

/// The `txnCode` of an operation (MEWS `txTypeMappings`).
pub mod txn {
    pub const SALE: &str = "1000";
    pub const REFUND: &str = "1002";
    pub const VOID: &str = "1003";
    pub const PRE_AUTH: &str = "1004";
    pub const POST_AUTH: &str = "1005";
    pub const ORDER_HISTORY: &str = "1010";
    /// The terminal's transactions of a date range or batch (MEWS `TX_TYPE_HISTORY`); its
    /// body names no `txnCode`.
    pub const HISTORY: &str = "1009";
}

/// One API request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request<'a> {
    /// Closes the order's pre-authorization for the amount (`1005`).
    PostAuth(Order<'a>),
    /// Reverses the order's latest transaction (`1003`).
    Void { order_id: &'a str },
    /// Refunds the amount of a sale (`1002`); always with `transaction`, so never "the rest".
    Refund(Order<'a>),
    /// Every transaction of the order (`1010`): the API has no single-order status call.
    OrderHistory { order_id: &'a str },
    /// Every transaction of the terminal between two times (`Y-m-d\TH:i:s.000`, at most a
    /// day apart), POSTed to the report path (`1009`, the daily reconciliation).
    Report { start: String, end: String },
}

impl Request<'_> {
    /// The request's name for logs and its `txnCode`.
    pub fn txn(&self) -> (&'static str, &'static str) {
        match self {
            Self::PostAuth(_) => ("PostAuth", txn::POST_AUTH),
            Self::Void { .. } => ("Void", txn::VOID),
            Self::Refund(_) => ("Refund", txn::REFUND),
            Self::OrderHistory { .. } => ("OrderHistory", txn::ORDER_HISTORY),
            Self::Report { .. } => ("Report", txn::HISTORY),
        }
    }

    pub fn txn_code(&self) -> &'static str {
        self.txn().1
    }
}

impl BankRequest for Request<'_> {
    type Reply = Reply;

    fn kind(&self) -> &'static str {
        self.txn().0
    }
}

/// What makes each request unique: its date and random number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    /// `2024-04-20T13:48:02.000`.
    pub date_time: String,
    /// 128 upper-case hex characters.
    pub random: String,
}

impl Stamp {
    /// The stamp of a request made at `unix_millis` (Europe/Istanbul, UTC+3 all year since
    /// 2016) with 64 random bytes.
    pub fn new(unix_millis: i64, random_bytes: &[u8; 64]) -> Self {
        let at =
            time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(unix_millis) * 1_000_000)
                .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
                .to_offset(time::macros::offset!(+3));
        let date_time = format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.000",
            at.year(),
            u8::from(at.month()),
            at.day(),
            at.hour(),
            at.minute(),
            at.second()
        );
        Self {
            date_time,
            random: hex::encode_upper(random_bytes),
        }
    }
}

fn order(order_id: &str) -> Obj {
    Obj::default().str("orderId", order_id)
}

fn transaction(amount: i64, currency: Currency) -> Obj {
    Obj::default()
        .str("amount", &amount::to_decimal(amount))
        .raw("currencyCode", currency.numeric())
}

/// The body of `req`.
pub fn to_json(creds: &ApiCredentials, req: &Request<'_>, stamp: &Stamp) -> String {
    let terminal = Obj::default()
        .str("merchantSafeId", &creds.merchant_safe_id)
        .str("terminalSafeId", &creds.terminal_safe_id);
    let head = |first_version: bool| {
        let o = Obj::default().obj("terminal", terminal.clone());
        let o = if first_version {
            o.str("version", VERSION).str("txnCode", req.txn_code())
        } else {
            o.str("txnCode", req.txn_code()).str("version", VERSION)
        };
        o.str("requestDateTime", &stamp.date_time)
            .str("randomNumber", &stamp.random)
    };
    match req {
        Request::PostAuth(o) => {
            let o = head(true)
                .obj("order", order(o.order_id))
                .obj("transaction", transaction(o.amount, o.currency));
            match &creds.customer_ip {
                Some(ip) => o.obj("customer", Obj::default().str("ipAddress", ip)),
                None => o,
            }
            .finish()
        }
        // MEWS writes `txnCode` before `version` for a void.
        Request::Void { order_id } => head(false).obj("order", order(order_id)).finish(),
        Request::Refund(o) => head(true)
            .obj("transaction", transaction(o.amount, o.currency))
            .obj("order", order(o.order_id))
            .finish(),
        Request::OrderHistory { order_id } => head(true).obj("order", order(order_id)).finish(),
        // MEWS `createHistoryRequestData`: the terminal, the random number and the range only.
        Request::Report { start, end } => Obj::default()
            .obj("terminal", terminal)
            .str("randomNumber", &stamp.random)
            .obj(
                "report",
                Obj::default()
                    .str("startDateTime", start)
                    .str("endDateTime", end),
            )
            .finish(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps() {
        // 2024-04-20T10:48:02Z is 13:48:02 in Istanbul.
        let s = Stamp::new(1_713_610_082_000, &[0xAB; 64]);
        assert_eq!(s.date_time, "2024-04-20T13:48:02.000");
        assert_eq!(s.random.len(), 128);
        assert!(s.random.starts_with("ABAB"));
    }

    #[test]
    fn objects_escape_and_keep_order() {
        let o = Obj::default().str("b", "x\"y").raw("a", "949").finish();
        assert_eq!(o, r#"{"b":"x\"y","a":949}"#);
    }
}
