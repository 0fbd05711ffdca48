//! The bank adapter skeleton: the parts every protocol folder fills in, and the one
//! [`PosProvider`](paygate_domain::ports::PosProvider) ([`crate::Adapter`]) that runs them.
//!
//! A protocol crate under `shared/banks/<name>/` looks like every other one:
//!
//! | file | fills in |
//! |---|---|
//! | `src/lib.rs` | `impl Protocol`: the flows of more than one call first (what sets the protocol apart), then which request each operation sends ([`Protocol::request`]) and the encoder ([`Protocol::encode`]) |
//! | `src/config.rs` | [`BankConfig`]: the account secret's keys, the simulator's test-order route |
//! | `src/request.rs` | the request type ([`BankRequest`]: its name for logs, the answer it expects) and its document |
//! | `src/hash.rs` | the request's hash or signature (or why the protocol has none) |
//! | `src/response.rs` | [`BankReply`]: decoding, the outcome of a money request, a points answer |
//! | `src/status.rs` | the status reader ([`BankReply::status`] and the reads of multi-call queries) |
//! | `src/sim/` | the protocol-faithful simulator (feature `sim`) on [`crate::sim`] |
//!
//! and is registered with one line in `paygate_compose`'s `providers`. What is the same for
//! every bank lives in the kit: credentials from the account's secret (never logged), the
//! bounded transport, the mapping of a failed call to the right outcome (a request that may
//! have reached the bank is *unknown*, never failed), uniform logging (operation, account,
//! order, outcome class: never a body, which can hold a card number or a password), the
//! single-request flows ([`crate::Session`]) and test-order registration at a simulator.

use std::future::Future;

use paygate_domain::{
    account::{Operation, OperationSet},
    bank::{BankOutcome, BankStatus, CardDetails, PointsResult},
    ports::BankOperation,
    Currency, StoreError,
};

use crate::{AccountCredentials, Session};

/// A request as it goes on the wire.
#[derive(Clone, PartialEq, Eq)]
pub struct Wire {
    /// The full URL (the account's endpoint, maybe with a service path).
    pub url: String,
    pub content_type: &'static str,
    /// Extra headers (e.g. a signature); values are never logged.
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
    /// The largest answer read ([`crate::transport::MAX_RESPONSE_BYTES`]; a day's report:
    /// [`crate::transport::MAX_REPORT_BYTES`], see [`Wire::report`]).
    pub max_response: usize,
}

impl Wire {
    /// A POST of `body` to `url` without extra headers.
    pub fn post(url: impl Into<String>, content_type: &'static str, body: Vec<u8>) -> Self {
        Self {
            url: url.into(),
            content_type,
            headers: Vec::new(),
            body,
            max_response: crate::transport::MAX_RESPONSE_BYTES,
        }
    }

    /// A day's report (a history-by-date page): read up to
    /// [`crate::transport::MAX_REPORT_BYTES`] instead of an operation's answer's limit.
    pub fn report(mut self) -> Self {
        self.max_response = crate::transport::MAX_REPORT_BYTES;
        self
    }

    /// Adds a header.
    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }
}

impl std::fmt::Debug for Wire {
    /// The body and header values can hold credentials or a card: only their shape shows.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| *n).collect();
        f.debug_struct("Wire")
            .field("content_type", &self.content_type)
            .field("headers", &names)
            .field("body_len", &self.body.len())
            .finish_non_exhaustive()
    }
}

/// The gateway operation a single request serves (see [`Protocol::request`]).
#[derive(Debug, Clone, Copy)]
pub enum Op<'a> {
    Capture(&'a BankOperation),
    Cancel(&'a BankOperation),
    Refund(&'a BankOperation),
    /// A read of the order's state.
    Status {
        order_id: &'a str,
    },
    Points {
        card: &'a CardDetails,
        currency: Currency,
    },
}

impl Op<'_> {
    /// `capture`, `cancel`, `refund`, `status`, `points`: for logs.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Capture(_) => "capture",
            Self::Cancel(_) => "cancel",
            Self::Refund(_) => "refund",
            Self::Status { .. } => "status",
            Self::Points { .. } => "points",
        }
    }
}

/// What a money request carries: the order, and the amount in its currency (a void sends
/// neither on most protocols).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Order<'a> {
    pub order_id: &'a str,
    /// Minor units.
    pub amount: i64,
    pub currency: Currency,
}

impl<'a> From<&'a BankOperation> for Order<'a> {
    fn from(op: &'a BankOperation) -> Self {
        Self {
            order_id: &op.order_id,
            amount: op.amount,
            currency: op.currency,
        }
    }
}

/// Why a request was not sent: nothing reached the bank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// A short stable code (`not_supported`, `invalid_card`, `order_id`, …).
    pub code: String,
    /// A text fit for a merchant (no credential, no card number).
    pub message: String,
    /// Refused on the request's merits (e.g. the card's expiry): a decline, not an error.
    pub declined: bool,
}

impl Refusal {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            message: message.into(),
            declined: false,
        }
    }

    /// A request refused on its merits without a call (a money request or an inquiry reads
    /// it as declined).
    pub fn declined(code: &str, message: impl Into<String>) -> Self {
        Self {
            declined: true,
            ..Self::new(code, message)
        }
    }

    /// The protocol (or this account) has no request for the operation.
    pub fn not_supported(what: &str) -> Self {
        Self::new(
            "operation_not_supported",
            format!("the bank's protocol has no {what} request"),
        )
    }

    pub fn outcome(self) -> BankOutcome {
        let (code, message) = (self.code, self.message);
        if self.declined {
            BankOutcome::Declined {
                code,
                message,
                after_cutoff: false,
            }
        } else {
            BankOutcome::Error { code, message }
        }
    }

    pub fn status(self) -> BankStatus {
        BankStatus::unavailable(&self.code)
    }

    pub fn points(self) -> PointsResult {
        let (code, message) = (self.code, self.message);
        if self.declined {
            PointsResult::Declined { code, message }
        } else {
            PointsResult::Error { code, message }
        }
    }
}

/// A simulator's admin route for test orders: `POST url` with the order's JSON and `extra`
/// fields beside it.
#[derive(Debug, Clone, Default)]
pub struct TestOrderRoute {
    pub url: String,
    pub extra: Vec<(&'static str, String)>,
}

impl TestOrderRoute {
    /// `POST <base>/_sim/orders` (the simulators' common admin path) with `extra` fields.
    pub fn at(base: &str, extra: &[(&'static str, &str)]) -> Option<Self> {
        Some(Self {
            url: format!("{}/_sim/orders", base.trim_end_matches('/')),
            extra: extra.iter().map(|(k, v)| (*k, (*v).to_owned())).collect(),
        })
    }
}

/// An account's settings, read from its secret (`config.rs`). `Debug` must never show a
/// password or key.
pub trait BankConfig: Send + Sync + Sized {
    /// Reads the secret's keys; the error names what is missing or wrong, never a value.
    fn from_account(creds: &AccountCredentials) -> Result<Self, StoreError>;

    /// Where a simulator of the protocol takes test orders, and what it needs beside the
    /// order (e.g. the terminal): `None` when the account's endpoint cannot have one.
    fn test_order_route(&self) -> Option<TestOrderRoute> {
        None
    }
}

/// One request of a protocol (`request.rs`).
pub trait BankRequest: Send + Sync {
    /// What the bank answers it with.
    type Reply: BankReply;

    /// The request's name for logs (`PostAuth`, `orderinq`, …; never its body).
    fn kind(&self) -> &'static str;

    /// Whether `reply` answers this request (e.g. it names the same order). An answer about
    /// something else settles nothing: a money request's outcome is then unknown.
    fn answered_by(&self, reply: &Self::Reply) -> bool {
        let _ = reply;
        true
    }
}

/// One decoded answer of a protocol (`response.rs`; its status in `status.rs`).
pub trait BankReply: Send + Sync + Sized {
    /// Reads an answer; `Err` when it is not a document of the protocol.
    fn decode(body: &[u8]) -> Result<Self, String>;

    /// What the answer to a money-moving request means.
    fn outcome(&self) -> BankOutcome;

    /// What the answer to the protocol's status request says about the order.
    fn status(&self) -> BankStatus;

    /// What the answer to a points inquiry says.
    fn points(&self) -> PointsResult {
        Refusal::not_supported("points inquiry").points()
    }
}

/// One bank protocol (`lib.rs`): which request serves each operation, how a request goes on
/// the wire, and the flows that take more than one call. The default flows send the single
/// request of [`Protocol::request`] through [`Session`]; a protocol whose operation takes
/// more than one call (a lookup first, a second step) overrides that flow, still through
/// [`Session`].
pub trait Protocol: Send + Sync + Sized + 'static {
    /// The provider code accounts refer to.
    const CODE: &'static str;
    /// Whether the protocol has a points inquiry at all.
    const POINTS_INQUIRY: bool = true;
    /// The family's bank codes → stable decline codes (its `src/decline.rs`); codes it does
    /// not name fall back to the kit's shared tables ([`crate::decline`]).
    const DECLINE_CODES: &'static [(&'static str, paygate_domain::decline::DeclineCode)] = &[];
    /// The account's settings.
    type Config: BankConfig;
    /// One request of the protocol.
    type Request<'a>: BankRequest
    where
        Self: 'a;

    /// What the protocol can do at all (an account may enable less).
    fn supported(&self) -> OperationSet {
        let ops: Vec<Operation> = Operation::ALL
            .into_iter()
            .filter(|op| Self::POINTS_INQUIRY || *op != Operation::PointsInquiry)
            .collect();
        OperationSet::of(&ops)
    }

    /// The request that serves `op` when one request does (the default flows).
    fn request<'a>(
        &'a self,
        cfg: &'a Self::Config,
        op: Op<'a>,
    ) -> Result<Self::Request<'a>, Refusal>;

    /// The request on the wire (`request.rs`, signed by `hash.rs`).
    fn encode(&self, cfg: &Self::Config, req: &Self::Request<'_>) -> Wire;

    fn capture(
        &self,
        s: &Session<'_, Self>,
        op: &BankOperation,
    ) -> impl Future<Output = BankOutcome> + Send {
        s.operate(Op::Capture(op))
    }

    fn cancel(
        &self,
        s: &Session<'_, Self>,
        op: &BankOperation,
    ) -> impl Future<Output = BankOutcome> + Send {
        s.operate(Op::Cancel(op))
    }

    fn refund(
        &self,
        s: &Session<'_, Self>,
        op: &BankOperation,
    ) -> impl Future<Output = BankOutcome> + Send {
        s.operate(Op::Refund(op))
    }

    fn query(
        &self,
        s: &Session<'_, Self>,
        order_id: &str,
    ) -> impl Future<Output = BankStatus> + Send {
        s.read_status(order_id)
    }

    fn points_inquiry(
        &self,
        s: &Session<'_, Self>,
        card: &CardDetails,
        currency: Currency,
    ) -> impl Future<Output = PointsResult> + Send {
        s.inquire_with(Op::Points { card, currency })
    }

    /// The bank's approved captures, cancels and refunds of `day`, all pages
    /// ([`paygate_domain::ports::PosProvider::day_history`]); the default is a family with
    /// no history-by-date call.
    fn day_history(
        &self,
        _s: &Session<'_, Self>,
        _day: paygate_domain::daily::BusinessDay,
    ) -> impl Future<Output = paygate_domain::daily::DayHistory> + Send {
        std::future::ready(paygate_domain::daily::DayHistory::Unsupported)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wire_request_never_shows_its_body_or_header_values() {
        let w = Wire::post(
            "https://bank.example/api",
            "text/xml",
            b"<Password>s3cret</Password>".to_vec(),
        )
        .header("auth-hash", "c2lnbmF0dXJl");
        let shown = format!("{w:?}");
        assert!(
            shown.contains("auth-hash") && shown.contains("body_len: 27"),
            "{shown}"
        );
        assert!(
            !shown.contains("s3cret") && !shown.contains("c2lnbmF0dXJl"),
            "{shown}"
        );
    }

    /// A request that was never sent is never unknown: each operation kind reads it as an
    /// error (nothing moved), an unavailable status or a failed inquiry.
    #[test]
    fn a_refusal_is_an_error_for_every_kind_of_operation() {
        let r = Refusal::not_supported("points inquiry");
        assert!(
            matches!(r.clone().outcome(), BankOutcome::Error { code, .. } if code == "operation_not_supported")
        );
        let st = r.clone().status();
        assert!(!st.is_conclusive() && st.code == "operation_not_supported");
        assert!(
            matches!(r.points(), PointsResult::Error { message, .. } if message.contains("points inquiry"))
        );
    }

    /// A request refused on its merits (a card's expiry) is a decline, never unknown.
    #[test]
    fn a_declined_refusal_is_a_decline() {
        let r = Refusal::declined("invalid_card", "bad expiry");
        assert!(matches!(
            r.clone().outcome(),
            BankOutcome::Declined { code, after_cutoff: false, .. } if code == "invalid_card"
        ));
        assert_eq!(
            r.points(),
            PointsResult::Declined {
                code: "invalid_card".into(),
                message: "bad expiry".into()
            }
        );
    }

    #[test]
    fn test_order_routes_live_beside_the_base() {
        let r = TestOrderRoute::at("http://127.0.0.1:9/fim/", &[("clientId", "700")]).unwrap();
        assert_eq!(r.url, "http://127.0.0.1:9/fim/_sim/orders");
        assert_eq!(r.extra, vec![("clientId", "700".to_owned())]);
    }
}
