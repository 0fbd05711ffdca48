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
//! - [`history`]: the day's captures, cancels and refunds from the date-range report
//!   (`portal/report/transaction`, its list gzip-compressed: [`gzip`]) for the daily
//!   reconciliation.
//! - `sim` (feature `sim`) is a simulator speaking the same protocol (and checking the hash).
//!
//! Operations: capture = `1005`, cancel = `1003` (twice for a captured pre-authorization:
//! the void reverses the latest transaction), refund = `1002`, query = `1010`. No points
//! inquiry: the protocol only reports `reward{…}` figures on payments, so `supported()` leaves
//! it out and the gateway answers `operation_not_supported`.

pub mod config;
pub mod decline;
pub mod gzip;
pub mod hash;
pub mod history;
pub mod request;
pub mod response;
pub mod status;

#[cfg(feature = "sim")]
pub mod sim;

use std::{sync::Arc, time::Instant};

use paygate_bankkit::{holds_live_sale, Adapter, Op, Protocol, Refusal, Session, Wire};
use paygate_domain::{
    bank::{BankOutcome, BankState, BankStatus},
    ports::{BankOperation, Clock},
};

pub use config::ApiCredentials;
use request::{Request, Stamp};
use response::{ALREADY_VOIDED, APPROVED};
use status::OrderView;

/// The provider code accounts refer to.
pub const PROVIDER_CODE: &str = "akbankpos";

/// The gateway's provider for Akbank POS accounts.
pub type AkbankPosProvider = Adapter<AkbankPos>;

/// The API base path on Akbank's host (`https://api.akbank.com/api/v1/payment/virtualpos`);
/// accounts store the full base URL as their `endpointUrl`.
pub const API_PATH: &str = "/api/v1/payment/virtualpos";
/// Where every request goes, below the base.
pub const PROCESS_PATH: &str = "/transaction/process";
/// Where the date-range report goes, below the base (MEWS `AkbankPos::getRequestURIByTransactionType`).
pub const REPORT_PATH: &str = "/portal/report/transaction";

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

    /// The bank refused a void as "already cancelled": done if the history shows the order
    /// voided, unknown otherwise (unreadable, or contradicting the refusal).
    async fn confirm_voided(&self, s: &Session<'_, Self>, order_id: &str) -> BankOutcome {
        let after = self.view(s, order_id).await.status;
        if voided(&after) {
            return already_voided();
        }
        BankOutcome::Unknown {
            reason: format!(
                "the void was refused as already cancelled ({ALREADY_VOIDED}) but the order's \
                 history does not show it voided ({:?}, {})",
                after.state, after.code
            ),
        }
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

/// Whether a history read shows the order voided (found, cancelled).
fn voided(st: &BankStatus) -> bool {
    st.found && st.state == BankState::Cancelled
}

/// The cancel has taken effect already: nothing was sent now, or the bank's "already
/// cancelled" was confirmed by the history.
fn already_voided() -> BankOutcome {
    BankOutcome::Approved {
        code: APPROVED.to_owned(),
        auth_code: None,
        rrn: None,
    }
}

/// Capture, cancel, refund and query; no points inquiry.
impl Protocol for AkbankPos {
    const CODE: &'static str = PROVIDER_CODE;
    const DECLINE_CODES: &'static [(&'static str, paygate_domain::DeclineCode)] = decline::TABLE;
    const POINTS_INQUIRY: bool = false;
    type Config = ApiCredentials;
    type Request<'a> = Request<'a>;

    /// The void reverses the order's latest transaction: for a captured pre-authorization
    /// the post-auth only, leaving the hold open (MEWS `success_pre_pay_post_pay_then_cancel`).
    /// The history is read first (unreadable → `Unknown`, nothing sent; already voided →
    /// `Approved`, nothing sent); a captured pre-authorization gets a second void
    /// ([`Session::release_hold`]). A void answered "already cancelled" (`VPS-1008`: another
    /// cancel got there first) is confirmed by reading the history again. At most four calls.
    async fn cancel(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        let started = Instant::now();
        let before = self.view(s, &op.order_id).await;
        if !before.status.is_conclusive() {
            return BankOutcome::Unknown {
                reason: format!(
                    "the order's history could not be read before the void ({}); nothing was sent",
                    before.status.code
                ),
            };
        }
        if voided(&before.status) {
            return already_voided();
        }
        let first = s
            .void_checking_cut(op, |code| code != ALREADY_VOIDED, async {
                holds_live_sale(&before.status)
            })
            .await;
        if matches!(&first, BankOutcome::Declined { code, .. } if code == ALREADY_VOIDED) {
            return self.confirm_voided(s, &op.order_id).await;
        }
        if !before.captured_preauth
            || before.status.state != BankState::Approved
            || !matches!(first, BankOutcome::Approved { .. })
        {
            return first;
        }
        let released = async {
            let after = self.view(s, &op.order_id).await.status;
            after.found && after.state == BankState::Cancelled
        };
        s.release_hold(op, started, first, released).await
    }

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
            Op::Status { order_id } => Request::OrderHistory { order_id },
            Op::Points { .. } => return Err(Refusal::not_supported("points inquiry")),
        })
    }

    /// The body, signed over its exact bytes (`auth-hash`), stamped anew for every call.
    fn encode(&self, cfg: &ApiCredentials, req: &Request<'_>) -> Wire {
        let body = request::to_json(cfg, req, &self.stamp()).into_bytes();
        let signature = hash::auth_hash(&cfg.secret_key, &body);
        let wire = match req {
            Request::Report { .. } => {
                Wire::post(cfg.report_url(), request::CONTENT_TYPE, body).report()
            }
            _ => Wire::post(cfg.process_url(), request::CONTENT_TYPE, body),
        };
        wire.header(hash::HEADER, signature)
    }
}
