//! [`PosnetProvider`]: the gateway's operations in Posnet terms.
//!
//! * capture — `agreement` to find the authorization's `hostlogkey` (Posnet captures by
//!   reference only), then `capt`.
//! * cancel — `agreement` to find what is live, then `reverse` of it: `sale`, `auth`, or for a
//!   captured authorization `capt` followed by `auth`.
//! * refund — `return` by order id (full or partial; the bank refuses it on the capture's
//!   own business day with `0411`).
//! * query — `agreement`, replayed into the order's state and refunded total.
//! * points — `pointInquiry` (WorldPuan).
//!
//! Requests go as `xmldata=<url-encoded ISO-8859-9 XML>` with the `X-MERCHANT-ID`,
//! `X-TERMINAL-ID`, `X-CORRELATION-ID` (and `X-POSNET-ID`) headers the bank asks for. Bodies
//! are never logged: they can hold a card number.

use std::sync::{
    atomic::{AtomicU64, Ordering},
    Arc,
};

use async_trait::async_trait;
use paygate_bankkit::{
    AccountCredentials, BankTransport, CredentialStore, StepRetry, TransportError,
};
use paygate_domain::{
    ports::{BankOperation, PosProvider, TestOrder, TestOrders},
    AccountId, BankOutcome, BankStatus, CardDetails, Currency, PointsResult, PosAccount,
    StoreError,
};

use crate::{
    request::{self, Terminal},
    response::{self, Reply},
    status, wire,
};

/// Provider code accounts refer to.
pub const PROVIDER_CODE: &str = "posnet";

/// Credential keys of the account secret (besides `endpointUrl`).
pub mod keys {
    /// Merchant number, 10 digits (required).
    pub const MID: &str = "mid";
    /// Terminal number, 8 digits (required).
    pub const TID: &str = "tid";
    /// Posnet id (optional; sent as `X-POSNET-ID`; the 3-D flow's `posnetid`).
    pub const POSNET_ID: &str = "posnetId";
    /// Prefix the bank put before the order id (optional; `TDSC` for 3-D Secure orders).
    pub const ORDER_ID_PREFIX: &str = "orderIdPrefix";
    /// Currency letters for TRY: `TL` (default) or `YT` (old terminals).
    pub const TRY_CURRENCY: &str = "currencyCodeTry";
}

/// The Yapı Kredi Posnet XML service.
pub struct PosnetProvider {
    pub(crate) transport: BankTransport,
    creds: Arc<dyn CredentialStore>,
    inquiries: AtomicU64,
    pub(crate) retry: StepRetry,
}

/// An account's Posnet settings, read from its secret.
pub(crate) struct Posnet {
    endpoint: String,
    mid: String,
    tid: String,
    posnet_id: Option<String>,
    prefix: String,
    try_code: String,
}

impl Posnet {
    fn from_credentials(c: &AccountCredentials) -> Result<Self, String> {
        let header_safe = |key: &str, v: &str| {
            if v.bytes().all(|b| b.is_ascii_alphanumeric()) {
                Ok(v.to_owned())
            } else {
                Err(format!(
                    "bank credential `{key}` must be letters and digits"
                ))
            }
        };
        let required = |key: &str| {
            c.require(key)
                .map_err(|e| e.to_string())
                .and_then(|v| header_safe(key, v))
        };
        let try_code = c.get(keys::TRY_CURRENCY).unwrap_or("TL").to_owned();
        if try_code != "TL" && try_code != "YT" {
            return Err(format!(
                "bank credential `{}` must be TL or YT",
                keys::TRY_CURRENCY
            ));
        }
        Ok(Self {
            endpoint: c.endpoint_url.clone(),
            mid: required(keys::MID)?,
            tid: required(keys::TID)?,
            posnet_id: c
                .get(keys::POSNET_ID)
                .filter(|v| !v.is_empty())
                .map(|v| header_safe(keys::POSNET_ID, v))
                .transpose()?,
            prefix: c.get(keys::ORDER_ID_PREFIX).unwrap_or_default().to_owned(),
            try_code,
        })
    }

    pub(crate) fn terminal(&self) -> Terminal<'_> {
        Terminal {
            mid: &self.mid,
            tid: &self.tid,
        }
    }

    fn currency(&self, c: Currency) -> &str {
        wire::currency_code(c, &self.try_code)
    }

    /// Where the simulator's admin routes live: the endpoint without the service path.
    fn admin_base(&self) -> &str {
        let e = self.endpoint.trim_end_matches('/');
        e.strip_suffix(wire::SERVICE_PATH).unwrap_or(e)
    }
}

/// Why a call produced no readable answer.
pub(crate) enum CallError {
    Transport(TransportError),
    /// A 2xx answer that is not a Posnet document: the request reached the bank.
    Unreadable(String),
}

impl CallError {
    /// For a money-moving call: may it have been applied?
    fn outcome(&self) -> BankOutcome {
        match self {
            Self::Transport(e) => e.outcome(),
            Self::Unreadable(_) => BankOutcome::Unknown {
                reason: self.message(),
            },
        }
    }

    pub(crate) fn code(&self) -> &'static str {
        match self {
            Self::Transport(TransportError::Timeout) => "timeout",
            Self::Transport(_) => "transport",
            Self::Unreadable(_) => "response",
        }
    }

    pub(crate) fn message(&self) -> String {
        match self {
            Self::Transport(e) => e.to_string(),
            // The parser's complaint is for the logs only (logged where it arose).
            Self::Unreadable(_) => paygate_bankkit::call::MALFORMED_MESSAGE.to_owned(),
        }
    }
}

impl PosnetProvider {
    pub fn new(transport: BankTransport, creds: Arc<dyn CredentialStore>) -> Self {
        Self {
            transport,
            creds,
            inquiries: AtomicU64::new(0),
            retry: StepRetry::default(),
        }
    }

    /// How the second reversal of a two-step cancel is retried (default
    /// [`StepRetry::default`]).
    pub fn with_step_retry(mut self, retry: StepRetry) -> Self {
        self.retry = retry;
        self
    }

    async fn posnet(&self, account: &PosAccount) -> Result<Posnet, String> {
        let parse = Posnet::from_credentials;
        paygate_bankkit::account_config(self.creds.as_ref(), &account.id, parse)
            .await
            .map_err(|e| e.describe())
    }

    /// One request/answer. `what` names the operation for logs; `correlation` is the
    /// `X-CORRELATION-ID`. The document itself is never logged.
    pub(crate) async fn call(
        &self,
        p: &Posnet,
        what: &str,
        correlation: &str,
        xml: &str,
    ) -> Result<Reply, CallError> {
        let mut headers = vec![
            ("X-MERCHANT-ID", p.mid.as_str()),
            ("X-TERMINAL-ID", p.tid.as_str()),
            ("X-CORRELATION-ID", correlation),
        ];
        if let Some(id) = &p.posnet_id {
            headers.push(("X-POSNET-ID", id.as_str()));
        }
        let body = wire::form_body(xml);
        let answer = self
            .transport
            .post_with_headers(
                &p.endpoint,
                "application/x-www-form-urlencoded",
                &headers,
                body,
            )
            .await;
        let result = match answer {
            Ok(bytes) => response::parse(&bytes).map_err(CallError::Unreadable),
            Err(e) => Err(CallError::Transport(e)),
        };
        match &result {
            Ok(r) => {
                tracing::info!(operation = what, approved = %r.approved, resp_code = %r.resp_code, "posnet answered")
            }
            Err(CallError::Unreadable(why)) => {
                tracing::warn!(operation = what, error = %why, "posnet answer unreadable")
            }
            Err(e) => tracing::warn!(operation = what, error = %e.message(), "posnet call failed"),
        }
        result
    }

    /// A money-moving call: its answer mapped to an outcome.
    pub(crate) async fn operate(
        &self,
        p: &Posnet,
        what: &str,
        correlation: &str,
        xml: &str,
    ) -> BankOutcome {
        match self.call(p, what, correlation, xml).await {
            Ok(reply) => response::outcome(&reply),
            Err(e) => e.outcome(),
        }
    }

    /// The order's transactions, for capture and cancel, which address them by reference.
    /// A failure here moved no money: it is an `Error` (or the bank's refusal), never
    /// `Unknown`.
    async fn lookup(
        &self,
        p: &Posnet,
        order_id: &str,
        for_what: &str,
    ) -> Result<status::Order, BankOutcome> {
        let xml = request::agreement(p.terminal(), order_id);
        let reply = self
            .call(p, "agreement", order_id, &xml)
            .await
            .map_err(|e| BankOutcome::Error {
                code: e.code().to_owned(),
                message: format!("order lookup before {for_what} failed: {}", e.message()),
            })?;
        if !reply.is_approved() {
            return Err(response::outcome(&reply));
        }
        let order = status::order(&reply).map_err(|why| BankOutcome::Error {
            code: "response".to_owned(),
            message: format!("order lookup before {for_what}: {why}"),
        })?;
        if order.entries.is_empty() {
            return Err(BankOutcome::Declined {
                code: crate::codes::NOT_FOUND.to_owned(),
                message: crate::codes::text(crate::codes::NOT_FOUND).to_owned(),
                after_cutoff: false,
            });
        }
        Ok(order)
    }

    /// Settings and the 24-character order id, or the `Error` that stops the operation
    /// before anything is sent.
    pub(crate) async fn prepare(
        &self,
        account: &PosAccount,
        order_id: &str,
    ) -> Result<(Posnet, String), BankOutcome> {
        let p = self
            .posnet(account)
            .await
            .map_err(|message| BankOutcome::Error {
                code: "credentials".to_owned(),
                message,
            })?;
        let order =
            wire::wire_order_id(order_id, &p.prefix).map_err(|message| BankOutcome::Error {
                code: "order_id".to_owned(),
                message,
            })?;
        Ok((p, order))
    }

    async fn do_capture(
        &self,
        account: &PosAccount,
        op: &BankOperation,
    ) -> Result<BankOutcome, BankOutcome> {
        let (p, order_id) = self.prepare(account, &op.order_id).await?;
        let order = self.lookup(&p, &order_id, "capture").await?;
        let target = order
            .to_capture()
            .map(|e| e.host_log_key.clone())
            .unwrap_or_default();
        let xml = request::capt(
            p.terminal(),
            &target,
            &wire::wire_amount(op.amount),
            p.currency(op.currency),
        );
        Ok(self
            .operate(&p, "capt", op.transaction_id.as_str(), &xml)
            .await)
    }

    async fn do_refund(
        &self,
        account: &PosAccount,
        op: &BankOperation,
    ) -> Result<BankOutcome, BankOutcome> {
        let (p, order_id) = self.prepare(account, &op.order_id).await?;
        let xml = request::refund(
            p.terminal(),
            &wire::wire_amount(op.amount),
            p.currency(op.currency),
            &order_id,
        );
        Ok(self
            .operate(&p, "return", op.transaction_id.as_str(), &xml)
            .await)
    }
}

fn settle(r: Result<BankOutcome, BankOutcome>) -> BankOutcome {
    r.unwrap_or_else(|stopped| stopped)
}

#[async_trait]
impl PosProvider for PosnetProvider {
    fn code(&self) -> &'static str {
        PROVIDER_CODE
    }

    async fn capture(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        settle(self.do_capture(account, op).await)
    }

    async fn cancel(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        settle(self.cancel_order(account, op).await)
    }

    async fn refund(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        settle(self.do_refund(account, op).await)
    }

    async fn query(&self, account: &PosAccount, order_id: &str) -> BankStatus {
        let (p, order_id) = match self.prepare(account, order_id).await {
            Ok(v) => v,
            Err(BankOutcome::Error { code, .. }) => return BankStatus::unavailable(&code),
            Err(_) => return BankStatus::unavailable("internal"),
        };
        let xml = request::agreement(p.terminal(), &order_id);
        match self.call(&p, "agreement", &order_id, &xml).await {
            Ok(reply) => status::bank_status(&reply),
            Err(e) => BankStatus::unavailable(e.code()),
        }
    }

    async fn points_inquiry(
        &self,
        account: &PosAccount,
        card: &CardDetails,
        _currency: Currency,
    ) -> PointsResult {
        let p = match self.posnet(account).await {
            Ok(p) => p,
            Err(message) => {
                return PointsResult::Error {
                    code: "credentials".to_owned(),
                    message,
                }
            }
        };
        let number: String = card.number.chars().filter(|c| !c.is_whitespace()).collect();
        let exp = request::exp_date(&card.exp_month, &card.exp_year);
        let (Some(exp), true) = (
            exp,
            (12..=19).contains(&number.len()) && number.bytes().all(|b| b.is_ascii_digit()),
        ) else {
            return PointsResult::Error {
                code: "card".to_owned(),
                message: format!(
                    "card {} is not a card number with a valid expiry",
                    card.masked()
                ),
            };
        };
        // No order behind a points inquiry: the account and a per-process sequence.
        let seq = self.inquiries.fetch_add(1, Ordering::Relaxed);
        let correlation = format!(
            "PI{}{seq:08}",
            account.id.as_str().trim_start_matches(AccountId::PREFIX)
        );
        let xml = request::point_inquiry(p.terminal(), &number, &exp);
        match self.call(&p, "pointInquiry", &correlation, &xml).await {
            Ok(reply) => response::points(&reply),
            Err(e) => PointsResult::Error {
                code: e.code().to_owned(),
                message: e.message(),
            },
        }
    }

    fn test_orders(&self) -> Option<&dyn TestOrders> {
        Some(self)
    }
}

/// Registers orders at the simulator (`POST <origin>/_sim/orders`). A real Posnet has no
/// such route; the call then fails and says so.
#[async_trait]
impl TestOrders for PosnetProvider {
    async fn register(&self, account: &PosAccount, order: &TestOrder) -> Result<(), StoreError> {
        let p = self.posnet(account).await.map_err(StoreError::Corrupt)?;
        let wire_id =
            wire::wire_order_id(&order.order_id, &p.prefix).map_err(StoreError::Corrupt)?;
        let body = serde_json::json!({
            "mid": p.mid,
            "orderId": wire_id,
            "amount": order.amount,
            "currency": order.currency,
            "state": order.state,
            "settled": order.settled,
        });
        let url = format!("{}/_sim/orders", p.admin_base());
        match self.transport.post(&url, "application/json", body.to_string().into_bytes()).await {
            Ok(_) => Ok(()),
            Err(TransportError::Http(409)) => Err(StoreError::AlreadyExists),
            Err(e) => Err(StoreError::Unavailable(format!(
                "registering a test order at {url} failed ({e}); only the Posnet simulator has this route"
            ))),
        }
    }
}
