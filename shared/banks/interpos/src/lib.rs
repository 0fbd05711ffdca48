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

use async_trait::async_trait;
use paygate_bankkit::{protocol::TestOrderRoute, Adapter, Op, Protocol, Refusal, Session, Wire};
use paygate_domain::{
    bank::{BankOutcome, BankStatus, PointsResult},
    ports::BankOperation,
};

pub use config::{ShopCredentials, API_PATH};
use request::{CardFields, Request};
use response::Reply;

/// The provider code accounts refer to.
pub const PROVIDER_CODE: &str = "interpos";

/// The InterVPOS protocol.
#[derive(Debug, Clone, Copy, Default)]
pub struct InterPos;

/// The gateway's provider for InterVPOS accounts.
pub type InterPosProvider = Adapter<InterPos>;

#[async_trait]
impl Protocol for InterPos {
    const CODE: &'static str = PROVIDER_CODE;
    type Config = ShopCredentials;
    type Request<'a> = Request<'a>;
    type Reply = Reply;

    fn config(
        &self,
        creds: &paygate_bankkit::AccountCredentials,
    ) -> Result<ShopCredentials, String> {
        ShopCredentials::from_account(creds).map_err(|e| e.to_string())
    }

    fn request<'a>(&'a self, cfg: &'a ShopCredentials, op: Op<'a>) -> Result<Request<'a>, Refusal> {
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
            },
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

    fn kind(req: &Request<'_>) -> &'static str {
        req.kind()
    }

    fn encode(&self, cfg: &ShopCredentials, req: &Request<'_>) -> Wire {
        Wire::post(
            &cfg.endpoint_url,
            request::CONTENT_TYPE,
            request::encode(cfg, req),
        )
    }

    fn decode(&self, body: &[u8]) -> Result<Reply, String> {
        response::parse(body)
    }

    fn outcome(&self, reply: &Reply) -> BankOutcome {
        response::outcome(reply)
    }

    fn status(&self, reply: &Reply) -> BankStatus {
        status::status(reply)
    }

    fn points(&self, reply: &Reply) -> PointsResult {
        points_of(reply)
    }

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

    /// The simulator's admin route: `POST <endpoint host>/_sim/orders` with the shop code.
    fn test_order_route(&self, cfg: &ShopCredentials) -> Option<TestOrderRoute> {
        Some(TestOrderRoute {
            url: format!("{}/_sim/orders", cfg.admin_base()),
            extra: vec![("shopCode", cfg.shop_code.clone())],
        })
    }
}

/// Maps a `BonusInquiry` answer: the card's usable Bonus (`AvailableBonus`, comma decimals).
fn points_of(reply: &Reply) -> PointsResult {
    response::classify(reply).points(
        response::parse_amount(reply.get("AvailableBonus")),
        "Bonus",
        "an AvailableBonus balance",
        reply.bank_code(),
        reply.message(),
    )
}
