//! The bank adapter skeleton: what every protocol folder fills in, and the one
//! [`PosProvider`] ([`Adapter`]) that runs it.
//!
//! A protocol crate under `shared/banks/<name>/` looks like every other one:
//!
//! | file | fills in |
//! |---|---|
//! | `src/lib.rs` | `impl Protocol`: the account settings, which request each operation sends, multi-call flows |
//! | `src/request.rs` | the request builder: [`Protocol::encode`] (body, content type, headers) |
//! | `src/hash.rs` | the request's hash or signature (or why the protocol has none) |
//! | `src/response.rs` | the response reader: [`Protocol::decode`], [`Protocol::outcome`], [`Protocol::points`] |
//! | `src/status.rs` | the status reader: [`Protocol::status`] |
//! | `src/sim/` | the protocol-faithful simulator (feature `sim`) on [`crate::sim`] |
//!
//! and is registered with one line in `paygate_compose`'s `providers`. What is the same for
//! every bank lives here: credentials from the account's secret (never logged), the bounded
//! transport, the mapping of a failed call to the right outcome (a request that may have
//! reached the bank is *unknown*, never failed), uniform logging (operation, account, order,
//! outcome class: never a body, which can hold a card number or a password), and test-order
//! registration at a simulator.

use std::sync::Arc;

use async_trait::async_trait;
use paygate_domain::{
    account::OperationSet,
    bank::{BankOutcome, BankStatus, CardDetails, PointsResult},
    ports::{BankOperation, PosProvider, TestOrder, TestOrders},
    Currency, PosAccount, StoreError,
};

use crate::{AccountCredentials, BankTransport, CallError, CredentialStore, TransportError};

/// A request as it goes on the wire.
#[derive(Clone, PartialEq, Eq)]
pub struct Wire {
    /// The full URL (the account's endpoint, maybe with a service path).
    pub url: String,
    pub content_type: &'static str,
    /// Extra headers (e.g. a signature); values are never logged.
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

impl Wire {
    /// A POST of `body` to `url` without extra headers.
    pub fn post(url: impl Into<String>, content_type: &'static str, body: Vec<u8>) -> Self {
        Self {
            url: url.into(),
            content_type,
            headers: Vec::new(),
            body,
        }
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

/// Why a request was not sent: nothing reached the bank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// A short stable code (`not_supported`, `invalid_card`, `order_id`, …).
    pub code: String,
    /// A text fit for a merchant (no credential, no card number).
    pub message: String,
}

impl Refusal {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            message: message.into(),
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
        BankOutcome::Error {
            code: self.code,
            message: self.message,
        }
    }

    pub fn status(self) -> BankStatus {
        BankStatus::unavailable(&self.code)
    }

    pub fn points(self) -> PointsResult {
        PointsResult::Error {
            code: self.code,
            message: self.message,
        }
    }
}

/// One bank protocol. The default flows send one request per operation (see
/// [`Protocol::request`]); a protocol whose operation takes more than one call (a lookup
/// first, a second step) overrides that flow, still through [`Session`].
#[async_trait]
pub trait Protocol: Send + Sync + Sized + 'static {
    /// The provider code accounts refer to.
    const CODE: &'static str;
    /// The account's settings, read from its secret.
    type Config: Send + Sync;
    /// One request of the protocol (`request.rs`).
    type Request<'a>: Send + Sync
    where
        Self: 'a;
    /// One decoded answer (`response.rs`).
    type Reply: Send + Sync;

    /// What the protocol can do at all (an account may enable less).
    fn supported(&self) -> OperationSet {
        OperationSet::all()
    }

    /// The account's settings. The error names what is wrong, never a value.
    fn config(&self, creds: &AccountCredentials) -> Result<Self::Config, String>;

    /// The request that serves `op` when one request does (the default flows).
    fn request<'a>(
        &'a self,
        cfg: &'a Self::Config,
        op: Op<'a>,
    ) -> Result<Self::Request<'a>, Refusal>;

    /// The request's name for logs (`PostAuth`, `orderinq`, …).
    fn kind(req: &Self::Request<'_>) -> &'static str;

    /// The request on the wire (`request.rs`, signed by `hash.rs`).
    fn encode(&self, cfg: &Self::Config, req: &Self::Request<'_>) -> Wire;

    /// Reads an answer; `Err` when it is not a document of the protocol (`response.rs`).
    fn decode(&self, body: &[u8]) -> Result<Self::Reply, String>;

    /// What an answer to a money-moving request means (`response.rs`).
    fn outcome(&self, reply: &Self::Reply) -> BankOutcome;

    /// Whether `reply` answers `req` (e.g. it names the same order). An answer about
    /// something else settles nothing: the money request's outcome is then unknown.
    fn answers(&self, req: &Self::Request<'_>, reply: &Self::Reply) -> bool {
        let _ = (req, reply);
        true
    }

    /// What an answer to a status request says about the order (`status.rs`).
    fn status(&self, reply: &Self::Reply) -> BankStatus;

    /// What an answer to a points inquiry says (`response.rs`).
    fn points(&self, reply: &Self::Reply) -> PointsResult {
        let _ = reply;
        Refusal::not_supported("points inquiry").points()
    }

    async fn capture(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        s.operate(Op::Capture(op)).await
    }

    async fn cancel(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        s.operate(Op::Cancel(op)).await
    }

    async fn refund(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        s.operate(Op::Refund(op)).await
    }

    async fn query(&self, s: &Session<'_, Self>, order_id: &str) -> BankStatus {
        s.read_status(order_id).await
    }

    async fn points_inquiry(
        &self,
        s: &Session<'_, Self>,
        card: &CardDetails,
        currency: Currency,
    ) -> PointsResult {
        match self.request(s.config(), Op::Points { card, currency }) {
            Ok(req) => s.inquire(&req).await,
            Err(refused) => refused.points(),
        }
    }

    /// Where a simulator of the protocol takes test orders, and what it needs beside the
    /// order (e.g. the terminal): `None` when the account's endpoint cannot have one.
    fn test_order_route(&self, cfg: &Self::Config) -> Option<TestOrderRoute> {
        let _ = cfg;
        None
    }
}

/// A simulator's admin route for test orders: `POST url` with the order's JSON and `extra`
/// fields beside it.
#[derive(Debug, Clone, Default)]
pub struct TestOrderRoute {
    pub url: String,
    pub extra: Vec<(&'static str, String)>,
}

/// One operation in progress on one account: the protocol's settings and its way to the bank.
pub struct Session<'a, P: Protocol> {
    adapter: &'a Adapter<P>,
    account: &'a PosAccount,
    cfg: P::Config,
}

impl<'a, P: Protocol> Session<'a, P> {
    pub fn config(&self) -> &P::Config {
        &self.cfg
    }

    pub fn account(&self) -> &PosAccount {
        self.account
    }

    /// The bound on one call (for budgets of multi-step flows).
    pub fn call_timeout(&self) -> std::time::Duration {
        self.adapter.transport.timeout()
    }

    /// Sends one request and reads the answer. Logs the request's kind and how it ended,
    /// never its body.
    pub async fn call(&self, req: &P::Request<'_>) -> Result<P::Reply, CallError> {
        let p = &self.adapter.protocol;
        let wire = p.encode(&self.cfg, req);
        let headers: Vec<(&str, &str)> =
            wire.headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let answer = self
            .adapter
            .transport
            .post_with_headers(&wire.url, wire.content_type, &headers, wire.body)
            .await
            .map_err(CallError::Transport)
            .and_then(|raw| p.decode(&raw).map_err(CallError::Malformed));
        match &answer {
            Ok(_) => tracing::debug!(provider = P::CODE, account_id = %self.account.id,
                request = P::kind(req), "bank answered"),
            Err(e) => tracing::warn!(provider = P::CODE, account_id = %self.account.id,
                request = P::kind(req), error = %e.detail(), "bank call without a usable answer"),
        }
        answer
    }

    /// Sends a money-moving request and maps its answer.
    pub async fn send(&self, req: &P::Request<'_>) -> BankOutcome {
        let p = &self.adapter.protocol;
        match self.call(req).await {
            Ok(reply) if !p.answers(req, &reply) => {
                tracing::warn!(provider = P::CODE, account_id = %self.account.id,
                    request = P::kind(req), "the bank answered about something else");
                BankOutcome::Unknown {
                    reason: "the bank answered for another order".to_owned(),
                }
            }
            Ok(reply) => p.outcome(&reply),
            Err(e) => e.outcome(),
        }
    }

    /// The single request serving `op`, sent and mapped.
    pub async fn operate(&self, op: Op<'_>) -> BankOutcome {
        match self.adapter.protocol.request(&self.cfg, op) {
            Ok(req) => self.send(&req).await,
            Err(refused) => refused.outcome(),
        }
    }

    /// Sends a status request and reads the order's state.
    pub async fn status_of(&self, req: &P::Request<'_>) -> BankStatus {
        match self.call(req).await {
            Ok(reply) => self.adapter.protocol.status(&reply),
            Err(e) => e.status(),
        }
    }

    /// Sends a points inquiry and reads the balances.
    pub async fn inquire(&self, req: &P::Request<'_>) -> PointsResult {
        match self.call(req).await {
            Ok(reply) => self.adapter.protocol.points(&reply),
            Err(e) => {
                let (code, message) = e.code_and_message();
                PointsResult::Error { code, message }
            }
        }
    }

    /// The order's state through the protocol's single status request.
    pub async fn read_status(&self, order_id: &str) -> BankStatus {
        match self
            .adapter
            .protocol
            .request(&self.cfg, Op::Status { order_id })
        {
            Ok(req) => self.status_of(&req).await,
            Err(refused) => refused.status(),
        }
    }
}

/// Runs a [`Protocol`] as the gateway's [`PosProvider`].
pub struct Adapter<P: Protocol> {
    protocol: P,
    transport: BankTransport,
    creds: Arc<dyn CredentialStore>,
}

impl<P: Protocol> Adapter<P> {
    pub fn new(protocol: P, transport: BankTransport, creds: Arc<dyn CredentialStore>) -> Self {
        Self {
            protocol,
            transport,
            creds,
        }
    }

    pub fn protocol(&self) -> &P {
        &self.protocol
    }

    /// A session on the account, or why its settings cannot be used (nothing was sent).
    pub async fn session<'a>(
        &'a self,
        account: &'a PosAccount,
    ) -> Result<Session<'a, P>, CallError> {
        let parse = |c: &AccountCredentials| self.protocol.config(c);
        let cfg = crate::account_config(self.creds.as_ref(), &account.id, parse).await?;
        Ok(Session {
            adapter: self,
            account,
            cfg,
        })
    }
}

fn outcome_class(o: &BankOutcome) -> &'static str {
    match o {
        BankOutcome::Approved { .. } => "approved",
        BankOutcome::Declined { .. } => "declined",
        BankOutcome::Error { .. } => "error",
        BankOutcome::Unknown { .. } => "unknown",
    }
}

fn log_outcome(code: &str, account: &PosAccount, order_id: &str, what: &str, o: &BankOutcome) {
    tracing::info!(provider = code, account_id = %account.id, order_id = %order_id,
        operation = what, outcome = outcome_class(o), "bank operation");
}

#[async_trait]
impl<P: Protocol> PosProvider for Adapter<P> {
    fn code(&self) -> &'static str {
        P::CODE
    }

    fn supported(&self) -> OperationSet {
        self.protocol.supported()
    }

    async fn capture(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        let o = match self.session(account).await {
            Ok(s) => self.protocol.capture(&s, op).await,
            Err(e) => e.outcome(),
        };
        log_outcome(P::CODE, account, &op.order_id, "capture", &o);
        o
    }

    async fn cancel(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        let o = match self.session(account).await {
            Ok(s) => self.protocol.cancel(&s, op).await,
            Err(e) => e.outcome(),
        };
        log_outcome(P::CODE, account, &op.order_id, "cancel", &o);
        o
    }

    async fn refund(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        let o = match self.session(account).await {
            Ok(s) => self.protocol.refund(&s, op).await,
            Err(e) => e.outcome(),
        };
        log_outcome(P::CODE, account, &op.order_id, "refund", &o);
        o
    }

    async fn query(&self, account: &PosAccount, order_id: &str) -> BankStatus {
        let st = match self.session(account).await {
            Ok(s) => self.protocol.query(&s, order_id).await,
            Err(e) => e.status(),
        };
        tracing::info!(provider = P::CODE, account_id = %account.id, order_id = %order_id,
            found = st.found, state = st.state.as_str(), code = %st.code, "bank query");
        st
    }

    async fn points_inquiry(
        &self,
        account: &PosAccount,
        card: &CardDetails,
        currency: Currency,
    ) -> PointsResult {
        let result = match self.session(account).await {
            Ok(s) => self.protocol.points_inquiry(&s, card, currency).await,
            Err(e) => {
                let (code, message) = e.code_and_message();
                PointsResult::Error { code, message }
            }
        };
        tracing::info!(provider = P::CODE, account_id = %account.id, card = %card.masked(),
            ok = matches!(result, PointsResult::Ok { .. }), "bank points inquiry");
        result
    }

    fn test_orders(&self) -> Option<&dyn TestOrders> {
        Some(self)
    }
}

/// Registers a test order at the account's simulator through the protocol's admin route.
/// A real bank has no such route: the failure is reported, nothing else happens.
#[async_trait]
impl<P: Protocol> TestOrders for Adapter<P> {
    async fn register(&self, account: &PosAccount, order: &TestOrder) -> Result<(), StoreError> {
        let s = self
            .session(account)
            .await
            .map_err(|_| StoreError::Corrupt(format!("{} credentials unavailable", P::CODE)))?;
        let Some(route) = self.protocol.test_order_route(s.config()) else {
            return Err(StoreError::Unavailable(format!(
                "{} accounts have no simulator route for test orders",
                P::CODE
            )));
        };
        let mut body = serde_json::to_value(order)
            .map_err(|e| StoreError::Corrupt(format!("test order: {e}")))?;
        if let Some(map) = body.as_object_mut() {
            for (k, v) in route.extra {
                map.insert(k.to_owned(), v.into());
            }
        }
        let bytes = serde_json::to_vec(&body).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        match self
            .transport
            .post(&route.url, "application/json", bytes)
            .await
        {
            Ok(_) => Ok(()),
            Err(TransportError::Http(409)) => Err(StoreError::AlreadyExists),
            Err(e) => Err(StoreError::Unavailable(format!(
                "the bank did not accept the test order (no simulator admin route?): {e}"
            ))),
        }
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
}
