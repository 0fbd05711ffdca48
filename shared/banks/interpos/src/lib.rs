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
//! Operations, one request each: capture = `PostAuth`, cancel = `Void` (same business day;
//! a refused void is checked against the status for the end-of-day cut), refund = `Refund`,
//! query = `StatusHistory`, points = `BonusInquiry` where the account's `pointsInquiry: bonus`
//! enables it.

pub mod config;
pub mod hash;
pub mod request;
pub mod response;
pub mod status;

#[cfg(feature = "sim")]
pub mod sim;

use paygate_bankkit::{Adapter, CardFields, Op, Protocol, Refusal, Session, Wire};
use paygate_domain::{bank::BankOutcome, ports::BankOperation};

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
    type Config = ShopCredentials;
    type Request<'a> = Request<'a>;

    /// A refused `Void` of an order whose sale is past the end-of-day cut (`TxnStatus S`)
    /// is the cut's refusal: refund instead.
    async fn cancel(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        let order_id = &op.order_id;
        s.void_checking_cut(op, |_| true, async {
            match s.call(&Request::Status { order_id }).await {
                Ok(reply) => status::past_end_of_day(&reply),
                Err(_) => false,
            }
        })
        .await
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
