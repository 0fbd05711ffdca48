//! Tosla (ex-AKÖde, a payment institution) payment API: JSON requests signed with a `hash`
//! of the credentials and a per-request stamp (provider code [`PROVIDER_CODE`]), on the kit's
//! skeleton ([`paygate_bankkit::protocol`]):
//!
//! - [`config`]: what the account's secret holds.
//! - [`request`] writes the JSON bodies (`clientId`, `apiUser`, `rnd`, `timeSpan`, `hash`,
//!   then the operation), POSTed to `<endpointUrl>/<postAuth|void|refund|inquiry>`.
//! - [`hash`]: `hash` = base64(SHA-512(apiPass + clientId + apiUser + rnd + timeSpan)).
//! - [`response`] reads and classifies answers (`Code 0` and `BankResponseCode 00` =
//!   approved).
//! - [`status`]: the `inquiry` answer's `RequestStatus` and amounts, partial refunds included.
//! - [`history`]: a day's transactions, every page (`history` by date), for the daily
//!   reconciliation.
//! - `sim` (feature `sim`) is a simulator speaking the same protocol (and checking the hash).
//!
//! Operations: capture = `postAuth`, cancel = `void` (the whole order, a captured
//! pre-authorization included), refund = `refund` (partial or full), query = `inquiry`. No
//! points inquiry: the API has none, so `supported()` leaves it out and the gateway answers
//! `operation_not_supported`.

pub mod config;
pub mod decline;
pub mod hash;
pub mod history;
pub mod request;
pub mod response;
pub mod status;

#[cfg(feature = "sim")]
pub mod sim;

use std::sync::Arc;

use paygate_bankkit::{holds_live_sale, Adapter, Op, Protocol, Refusal, Session, Wire};
use paygate_domain::{
    bank::{BankOutcome, BankState, BankStatus},
    ports::{BankOperation, Clock},
};

pub use config::ApiCredentials;
use request::{Request, Stamp};
use response::{HOST_APPROVED, NOT_FOUND};

/// The provider code accounts refer to.
pub const PROVIDER_CODE: &str = "toslapos";

/// The gateway's provider for Tosla accounts.
pub type ToslaPosProvider = Adapter<ToslaPos>;

/// The API base path on Tosla's host (`https://entegrasyon.tosla.com/api/Payment`); accounts
/// store the full base URL as their `endpointUrl`.
pub const API_PATH: &str = "/api/Payment";

/// A source of the 12 random bytes of each request's `rnd`.
pub type Nonce = fn() -> [u8; 12];

fn os_random() -> [u8; 12] {
    let mut b = [0u8; 12];
    // `rnd` only makes each hash unique; a failing OS source (never seen) leaves zeros, which
    // the API refuses as a reused hash (`997`) — refused before processing, nothing moves.
    let _ = getrandom::fill(&mut b);
    b
}

/// The Tosla protocol: its clock (each request's `timeSpan`) and random source.
#[derive(Clone)]
pub struct ToslaPos {
    clock: Arc<dyn Clock>,
    nonce: Nonce,
}

impl ToslaPos {
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
}

/// Capture, cancel, refund and query; no points inquiry.
impl Protocol for ToslaPos {
    const CODE: &'static str = PROVIDER_CODE;
    const DECLINE_CODES: &'static [(&'static str, paygate_domain::DeclineCode)] = decline::TABLE;
    const POINTS_INQUIRY: bool = false;
    type Config = ApiCredentials;
    type Request<'a> = Request<'a>;

    /// One `void`. A void refused as "original record not found" (`101`) is read against
    /// the order: already cancelled (another cancel got there first) → `Approved`; a live
    /// sale → the end-of-day cut's refusal (`after_cutoff`: refund instead); anything else
    /// (unreadable included) → the decline as it came (nothing moved).
    async fn cancel(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        let first = s.operate(Op::Cancel(op)).await;
        match &first {
            BankOutcome::Declined {
                code,
                message,
                after_cutoff: false,
            } if code == NOT_FOUND => {
                let now = self.query(s, &op.order_id).await;
                if now.found && now.state == BankState::Cancelled {
                    BankOutcome::Approved {
                        code: HOST_APPROVED.to_owned(),
                        auth_code: None,
                        rrn: None,
                    }
                } else if holds_live_sale(&now) {
                    BankOutcome::Declined {
                        code: code.clone(),
                        message: message.clone(),
                        after_cutoff: true,
                    }
                } else {
                    first
                }
            }
            _ => first,
        }
    }

    /// One `inquiry`; an answer about another order is unavailable.
    async fn query(&self, s: &Session<'_, Self>, order_id: &str) -> BankStatus {
        s.read_with(&Request::Inquiry { order_id }, |reply| {
            Ok(status::from_inquiry(reply, Some(order_id)))
        })
        .await
        .unwrap_or_else(|st| st)
    }

    /// `history` by `transactionDate`, every page ([`history`]).
    async fn day_history(
        &self,
        s: &Session<'_, Self>,
        day: paygate_domain::daily::BusinessDay,
    ) -> paygate_domain::daily::DayHistory {
        history::day_history(s, day).await
    }

    fn request<'a>(&'a self, _cfg: &'a ApiCredentials, op: Op<'a>) -> Result<Request<'a>, Refusal> {
        Ok(match op {
            Op::Capture(op) => Request::PostAuth(op.into()),
            Op::Cancel(op) => Request::Void {
                order_id: &op.order_id,
            },
            Op::Refund(op) => Request::Refund(op.into()),
            Op::Status { order_id } => Request::Inquiry { order_id },
            Op::Points { .. } => return Err(Refusal::not_supported("points inquiry")),
        })
    }

    /// The body with its `hash`, stamped anew for every call (each hash is accepted once).
    fn encode(&self, cfg: &ApiCredentials, req: &Request<'_>) -> Wire {
        let body = request::to_json(cfg, req, &self.stamp()).into_bytes();
        Wire::post(cfg.url(req.path()), request::CONTENT_TYPE, body)
    }
}
