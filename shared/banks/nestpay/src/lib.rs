//! Nestpay / EST v3 (Asseco, now Payten): the `CC5Request` / `CC5Response` XML API that
//! İşbank, Akbank (legacy), TEB, Halkbank, Ziraat, Şekerbank, Finansbank and others run their
//! virtual POS on (provider code [`PROVIDER_CODE`]), on the kit's skeleton
//! ([`paygate_bankkit::protocol`]):
//!
//! - [`config`]: what the account's secret holds.
//! - [`request`] encodes requests: plain credentials in every document (`Name`, `Password`,
//!   `ClientId`; [`hash`]: the API has none), decimal-TL amounts, ISO 4217 numeric
//!   currencies, ISO-8859-9 text, POSTed as the raw body to the account's `/fim/api` URL.
//! - [`response`] reads `CC5Response` and classifies it (both `ProcReturnCode` and `Response`
//!   must say approved; `Extra/ERRORCODE` becomes the bank code).
//! - [`status`] combines `ORDERSTATUS` and `ORDERHISTORY` (partial refunds are visible only
//!   in the history) into a [`paygate_domain::BankStatus`].
//! - `sim` (feature `sim`) is a simulator speaking the same wire protocol.
//!
//! Operations: capture = `PostAuth`, cancel = `Void` (confirmed by a read; a second `Void`
//! when the first left a pre-authorization open), refund = `Credit`, query =
//! `ORDERSTATUS` (+ `ORDERHISTORY`), points = `MAXIPUANSORGU` where the account's
//! `pointsInquiry` flag allows it.

pub mod config;
pub mod decline;
pub mod hash;
pub mod request;
pub mod response;
pub mod status;

#[cfg(feature = "sim")]
pub mod sim;

use std::time::Instant;

use paygate_bankkit::{holds_live_sale, Adapter, CardFields, Op, Protocol, Refusal, Session, Wire};
use paygate_domain::{
    bank::{BankOutcome, BankState, BankStatus},
    ports::BankOperation,
};

pub use config::ApiCredentials;
use config::PointsInquiry;
use request::Request;

/// The provider code accounts refer to.
pub const PROVIDER_CODE: &str = "nestpay";

/// The gateway's provider for Nestpay accounts.
pub type NestpayProvider = Adapter<Nestpay>;

/// The path of the API on a Nestpay host (`https://<bank host>/fim/api`). Accounts store the
/// full URL as their `endpointUrl`.
pub const API_PATH: &str = "/fim/api";

/// The code a `Void` refusal carries for "no sale eligible for void"; after the end-of-day
/// cut Nestpay refuses a void of a live sale the same way.
const NO_ELIGIBLE_SALE: &str = "CORE-2008";

/// The Nestpay protocol.
#[derive(Debug, Clone, Copy, Default)]
pub struct Nestpay;

/// The order was voided already (nothing moved now): the cancel has taken effect.
fn already_voided() -> BankOutcome {
    BankOutcome::Approved {
        code: "00".to_owned(),
        auth_code: None,
        rrn: None,
    }
}

impl Protocol for Nestpay {
    const CODE: &'static str = PROVIDER_CODE;
    const DECLINE_CODES: &'static [(&'static str, paygate_domain::DeclineCode)] = decline::TABLE;
    type Config = ApiCredentials;
    type Request<'a> = Request<'a>;

    /// One `Void` of the order, never taken for more than the order read afterwards shows.
    ///
    /// - Approved: whether one void also releases a captured pre-authorization's hold is not
    ///   documented (README), so the order is read: `cancelled` → done; an open
    ///   pre-authorization (the void reversed the capture alone) → a second `Void`, confirmed
    ///   by a read ([`Session::release_hold`]); anything else → `Unknown` (the void moved
    ///   money).
    /// - Refused `CORE-2008` ("no sale eligible for void"): the order is read; already
    ///   `cancelled` (another void came first) → done; a live, unrefunded sale → the
    ///   end-of-day cut's refusal (`after_cutoff`, refund instead); else the refusal.
    async fn cancel(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        let started = Instant::now();
        let cancelled = |st: &BankStatus| st.found && st.state == BankState::Cancelled;
        match s.operate(Op::Cancel(op)).await {
            first @ BankOutcome::Approved { .. } => {
                let after = self.query(s, &op.order_id).await;
                if cancelled(&after) {
                    first
                } else if after.found && after.state == BankState::Preauth {
                    let released = async { cancelled(&self.query(s, &op.order_id).await) };
                    s.release_hold(op, started, first, released).await
                } else {
                    BankOutcome::Unknown {
                        reason: format!(
                            "the void was approved but the order does not read cancelled ({})",
                            after.code
                        ),
                    }
                }
            }
            BankOutcome::Declined {
                code,
                message,
                after_cutoff: false,
            } if code == NO_ELIGIBLE_SALE => {
                let st = self.query(s, &op.order_id).await;
                if cancelled(&st) {
                    return already_voided();
                }
                BankOutcome::Declined {
                    after_cutoff: holds_live_sale(&st),
                    code,
                    message,
                }
            }
            other => other,
        }
    }

    /// `ORDERSTATUS`, then `ORDERHISTORY` for sold or refunded orders.
    async fn query(&self, s: &Session<'_, Self>, order_id: &str) -> BankStatus {
        let line = s
            .read_with(&Request::OrderStatus { order_id }, |reply| {
                status::read_status(reply).found()
            })
            .await;
        let history = line
            .as_ref()
            .is_ok_and(status::needs_history)
            .then_some(Request::OrderHistory { order_id });
        s.status_with_history(line, history, status::read_history, status::combine)
            .await
    }

    /// `MAXIPUANSORGU` only for accounts whose `pointsInquiry` flag enables it.
    fn request<'a>(&'a self, cfg: &'a ApiCredentials, op: Op<'a>) -> Result<Request<'a>, Refusal> {
        Ok(match op {
            Op::Capture(op) => Request::PostAuth(op.into()),
            Op::Cancel(op) => Request::Void {
                order_id: &op.order_id,
            },
            Op::Refund(op) => Request::Credit(op.into()),
            Op::Status { order_id } => Request::OrderStatus { order_id },
            Op::Points { card, currency } => match cfg.points_inquiry() {
                Some(PointsInquiry::MaxiPuan) => Request::MaxiPuan {
                    card: CardFields::for_request(card)?,
                    currency,
                },
                None => return Err(Refusal::new(
                    "points_inquiry_not_enabled",
                    "this Nestpay account is not enabled for a points inquiry (credential `pointsInquiry`)",
                )),
            },
        })
    }

    fn encode(&self, cfg: &ApiCredentials, req: &Request<'_>) -> Wire {
        Wire::post(
            &cfg.endpoint_url,
            request::CONTENT_TYPE,
            request::encode(cfg, req),
        )
    }
}
