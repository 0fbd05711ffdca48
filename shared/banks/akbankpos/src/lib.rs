//! Akbank's new virtual POS ("Akbank'ın yeni altyapısı"): a JSON API signed with an
//! `auth-hash` header (provider code [`PROVIDER_CODE`]), on the kit's skeleton
//! ([`paygate_bankkit::protocol`]):
//!
//! - [`config`]: what the account's secret holds.
//! - [`request`] writes the JSON bodies (`terminal`, `version`, `txnCode`, `requestDateTime`,
//!   `randomNumber`, then the operation), POSTed to `<endpointUrl>/transaction/process`.
//! - [`hash`]: `auth-hash` = base64(HMAC-SHA512(secret key, body)).
//! - [`response`] reads and classifies answers (`responseCode VPS-0000`).
//! - [`status`]: the API has no single-order status call; the live query reads the order's
//!   history (`txnCode 1010`) and derives the state, partial refunds included.
//! - `sim` (feature `sim`) is a simulator speaking the same protocol (and checking the hash).
//!
//! Operations: capture = `1005`, cancel = `1003` (twice for a captured pre-authorization:
//! the void reverses the latest transaction), refund = `1002`, query = `1010`. No points
//! inquiry: the protocol only reports `reward{…}` figures on payments, so `supported()` leaves
//! it out and the gateway answers `operation_not_supported`.

pub mod config;
pub mod hash;
pub mod request;
pub mod response;
pub mod status;

#[cfg(feature = "sim")]
pub mod sim;

use std::sync::Arc;

use async_trait::async_trait;
use paygate_bankkit::{
    holds_live_sale, protocol::TestOrderRoute, Adapter, Op, Protocol, Refusal, Session, StepRetry,
    Wire,
};
use paygate_domain::{
    account::{Operation, OperationSet},
    bank::{BankOutcome, BankState, BankStatus},
    ports::{BankOperation, Clock},
};

pub use config::ApiCredentials;
use request::{Request, Stamp};
use response::Reply;
use status::OrderView;

/// The provider code accounts refer to.
pub const PROVIDER_CODE: &str = "akbankpos";

/// The API base path on Akbank's host (`https://api.akbank.com/api/v1/payment/virtualpos`);
/// accounts store the full base URL as their `endpointUrl`.
pub const API_PATH: &str = "/api/v1/payment/virtualpos";
/// Where every request goes, below the base.
pub const PROCESS_PATH: &str = "/transaction/process";

/// A source of the 64 random bytes of each request's `randomNumber`.
pub type Nonce = fn() -> [u8; 64];

fn os_random() -> [u8; 64] {
    let mut b = [0u8; 64];
    // The random number only makes each request unique at the bank; a failing OS source
    // (never seen) leaves zeros, which the bank may refuse as a repeat — nothing moves.
    let _ = getrandom::fill(&mut b);
    b
}

/// The Akbank POS protocol: its clock (each request's `requestDateTime`) and random source.
#[derive(Clone)]
pub struct AkbankPos {
    clock: Arc<dyn Clock>,
    nonce: Nonce,
}

impl AkbankPos {
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self {
            clock,
            nonce: os_random,
        }
    }

    /// With a given random source (tests).
    pub fn with_nonce(clock: Arc<dyn Clock>, nonce: Nonce) -> Self {
        Self { clock, nonce }
    }

    fn stamp(&self) -> Stamp {
        Stamp::new(self.clock.now().unix_millis(), &(self.nonce)())
    }

    async fn view(&self, s: &Session<'_, Self>, order_id: &str) -> OrderView {
        match s.call(&Request::OrderHistory { order_id }).await {
            Ok(reply) => status::from_history(&reply),
            Err(e) => OrderView {
                status: e.status(),
                captured_preauth: false,
            },
        }
    }
}

/// The gateway's provider for Akbank POS accounts.
pub type AkbankPosProvider = Adapter<AkbankPos>;

#[async_trait]
impl Protocol for AkbankPos {
    const CODE: &'static str = PROVIDER_CODE;
    type Config = ApiCredentials;
    type Request<'a> = Request<'a>;
    type Reply = Reply;

    /// Capture, cancel, refund and query; no points inquiry.
    fn supported(&self) -> OperationSet {
        OperationSet::of(&[
            Operation::Capture,
            Operation::Cancel,
            Operation::Refund,
            Operation::Query,
        ])
    }

    fn config(
        &self,
        creds: &paygate_bankkit::AccountCredentials,
    ) -> Result<ApiCredentials, String> {
        ApiCredentials::from_account(creds).map_err(|e| e.to_string())
    }

    fn request<'a>(&'a self, _cfg: &'a ApiCredentials, op: Op<'a>) -> Result<Request<'a>, Refusal> {
        Ok(match op {
            Op::Capture(op) => Request::PostAuth {
                order_id: &op.order_id,
                amount: op.amount,
                currency: op.currency,
            },
            Op::Cancel(op) => Request::Void {
                order_id: &op.order_id,
            },
            Op::Refund(op) => Request::Refund {
                order_id: &op.order_id,
                amount: op.amount,
                currency: op.currency,
            },
            Op::Status { order_id } => Request::OrderHistory { order_id },
            Op::Points { .. } => return Err(Refusal::not_supported("points inquiry")),
        })
    }

    fn kind(req: &Request<'_>) -> &'static str {
        req.kind()
    }

    fn encode(&self, cfg: &ApiCredentials, req: &Request<'_>) -> Wire {
        let body = request::to_json(cfg, req, &self.stamp()).into_bytes();
        let signature = hash::auth_hash(&cfg.secret_key, &body);
        Wire::post(cfg.process_url(), request::CONTENT_TYPE, body).header(hash::HEADER, signature)
    }

    fn decode(&self, body: &[u8]) -> Result<Reply, String> {
        response::parse(body)
    }

    fn outcome(&self, reply: &Reply) -> BankOutcome {
        response::outcome(reply)
    }

    /// The state derived from an order-history answer (the default query sends `1010`).
    fn status(&self, reply: &Reply) -> BankStatus {
        status::from_history(reply).status
    }

    /// The void reverses the order's latest transaction: for a captured pre-authorization
    /// the post-auth only, leaving the hold open (MEWS `success_pre_pay_post_pay_then_cancel`).
    /// The history is read first (unreadable → `Unknown`, nothing sent); a captured
    /// pre-authorization gets a second void; once the first moved money, anything short of a
    /// confirmed release is `Unknown`, never `Error`. At most four calls, the
    /// second void only while it and a read still fit the budget ([`StepRetry`]).
    async fn cancel(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        let started = std::time::Instant::now();
        let before = self.view(s, &op.order_id).await;
        if !before.status.is_conclusive() {
            return BankOutcome::Unknown {
                reason: format!(
                    "the order's history could not be read before the void ({}); nothing was sent",
                    before.status.code
                ),
            };
        }
        let first = s
            .void_checking_cut(op, |_| true, async { holds_live_sale(&before.status) })
            .await;
        if !before.captured_preauth
            || before.status.state != BankState::Approved
            || !matches!(first, BankOutcome::Approved { .. })
        {
            return first;
        }
        let half_done = || {
            BankOutcome::Unknown {
            reason: "the capture was reversed; the release of the pre-authorization's hold is not confirmed".to_owned(),
        }
        };
        // The second void and a read after it must still fit the operation's budget.
        if StepRetry::default()
            .wait_before(1, started, s.call_timeout())
            .is_none()
        {
            return half_done();
        }
        match s.operate(Op::Cancel(op)).await {
            approved @ BankOutcome::Approved { .. } => approved,
            _ => {
                let after = self.view(s, &op.order_id).await.status;
                if after.found && after.state == BankState::Cancelled {
                    first
                } else {
                    half_done()
                }
            }
        }
    }

    /// The simulator's admin route: `POST <endpointUrl>/_sim/orders` with the terminal.
    fn test_order_route(&self, cfg: &ApiCredentials) -> Option<TestOrderRoute> {
        Some(TestOrderRoute {
            url: format!("{}/_sim/orders", cfg.endpoint_url),
            extra: vec![("terminalSafeId", cfg.terminal_safe_id.clone())],
        })
    }
}
