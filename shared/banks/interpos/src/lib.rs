//! Denizbank InterVPOS: `application/x-www-form-urlencoded` requests (`ShopCode`,
//! `UserCode`, `UserPass`, `TxnType`, …) and `key=value;;key=value` answers (provider code
//! [`PROVIDER_CODE`]), on the kit's skeleton ([`paygate_bankkit::protocol`]):
//!
//! - [`config`]: what the account's secret holds.
//! - [`request`] encodes the forms (plain credentials; [`hash`]: none).
//! - [`response`] reads the pairs; `ProcReturnCode 00` + `TxnResult Success` approves.
//! - [`status`] reads `StatusHistory` (`TxnStat`, `TxnStatus`, `RefundedAmount`).
//! - `sim` (feature `sim`) is a simulator speaking the same protocol.
//!
//! Operations: capture = `PostAuth`, cancel = `Void` (same business day; confirmed by a
//! `StatusHistory` read, a second `Void` when a pre-authorization is left open; a refused
//! void is checked against the status: already voided, or the end-of-day cut), refund = `Refund`,
//! query = `StatusHistory`, points = `BonusInquiry` where the account's `pointsInquiry: bonus`
//! enables it.

pub mod config;
pub mod decline;
pub mod hash;
pub mod request;
pub mod response;
pub mod status;

#[cfg(feature = "sim")]
pub mod sim;

use std::time::Instant;

use paygate_bankkit::{Adapter, CardFields, Op, Protocol, Refusal, Session, Wire};
use paygate_domain::{
    bank::{BankOutcome, BankState},
    ports::BankOperation,
};

pub use config::{ShopCredentials, API_PATH};
use request::Request;

/// The provider code accounts refer to.
pub const PROVIDER_CODE: &str = "interpos";

/// The gateway's provider for InterVPOS accounts.
pub type InterPosProvider = Adapter<InterPos>;

/// The InterVPOS protocol.
#[derive(Debug, Clone, Copy, Default)]
pub struct InterPos;

impl Protocol for InterPos {
    const CODE: &'static str = PROVIDER_CODE;
    const DECLINE_CODES: &'static [(&'static str, paygate_domain::DeclineCode)] = decline::TABLE;
    type Config = ShopCredentials;
    type Request<'a> = Request<'a>;

    /// One `Void`, never taken for more than the order read afterwards shows.
    ///
    /// - Approved: whether one void also releases a captured pre-authorization's hold
    ///   (`TxnStatus K`) is not documented (README), so the order is read: `cancelled` →
    ///   done; an open pre-authorization → a second `Void`, confirmed by a read
    ///   ([`Session::release_hold`]); anything else → `Unknown` (the void moved money).
    /// - Refused: the order is read; already `cancelled` (another void came first) → done; a
    ///   sale past the end-of-day cut (`TxnStatus S`) → the cut's refusal (`after_cutoff`,
    ///   refund instead); else the refusal.
    async fn cancel(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        let started = Instant::now();
        let order_id = &op.order_id;
        let read = || async { s.call(&Request::Status { order_id }).await.ok() };
        let cancelled = |r: &Option<response::Reply>| {
            r.as_ref()
                .is_some_and(|r| status::status(r).state == BankState::Cancelled)
        };
        match s.operate(Op::Cancel(op)).await {
            first @ BankOutcome::Approved { .. } => {
                let after = read().await;
                let state = after.as_ref().map(status::status);
                match state {
                    Some(st) if st.found && st.state == BankState::Cancelled => first,
                    Some(st) if st.found && st.state == BankState::Preauth => {
                        let released = async { cancelled(&read().await) };
                        s.release_hold(op, started, first, released).await
                    }
                    other => BankOutcome::Unknown {
                        reason: format!(
                            "the void was approved but the order does not read cancelled ({})",
                            other.map_or_else(|| "no answer".to_owned(), |st| st.code)
                        ),
                    },
                }
            }
            BankOutcome::Declined {
                code,
                message,
                after_cutoff: false,
            } => {
                let now = read().await;
                if cancelled(&now) {
                    return BankOutcome::Approved {
                        code: "00".to_owned(),
                        auth_code: None,
                        rrn: None,
                    };
                }
                BankOutcome::Declined {
                    after_cutoff: now.as_ref().is_some_and(status::past_end_of_day),
                    code,
                    message,
                }
            }
            other => other,
        }
    }

    /// `BonusInquiry` only for accounts whose `pointsInquiry: bonus` enables it.
    fn request<'a>(&'a self, cfg: &'a ShopCredentials, op: Op<'a>) -> Result<Request<'a>, Refusal> {
        Ok(match op {
            Op::Capture(op) => Request::PostAuth(op.into()),
            Op::Cancel(op) => Request::Void {
                order_id: &op.order_id,
            },
            Op::Refund(op) => Request::Refund(op.into()),
            Op::Status { order_id } => Request::Status { order_id },
            Op::Points { card, currency } => {
                if !cfg.bonus_inquiry {
                    return Err(Refusal::new(
                        "points_inquiry_not_enabled",
                        "this InterVPOS account is not enabled for a Bonus inquiry (credential `pointsInquiry`)",
                    ));
                }
                let card = CardFields::from_card(card).ok_or_else(|| {
                    Refusal::new("invalid_card", paygate_bankkit::card::INVALID_EXPIRY)
                })?;
                Request::Bonus { card, currency }
            }
        })
    }

    fn encode(&self, cfg: &ShopCredentials, req: &Request<'_>) -> Wire {
        Wire::post(
            &cfg.endpoint_url,
            request::CONTENT_TYPE,
            request::encode(cfg, req),
        )
    }
}
