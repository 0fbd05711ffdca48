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
//! Operations: capture = `PostAuth`, cancel = `Void`, refund = `Credit`, query =
//! `ORDERSTATUS` (+ `ORDERHISTORY`), points = `MAXIPUANSORGU` where the account's
//! `pointsInquiry` flag allows it.

pub mod config;
pub mod hash;
pub mod request;
pub mod response;
pub mod status;

#[cfg(feature = "sim")]
pub mod sim;

use async_trait::async_trait;
use paygate_bankkit::{
    holds_live_sale, protocol::TestOrderRoute, Adapter, Op, Protocol, Refusal, Session, Wire,
};
use paygate_domain::{
    bank::{BankOutcome, BankStatus, CardDetails, PointsResult},
    ports::BankOperation,
    Currency,
};

pub use config::ApiCredentials;
use config::PointsInquiry;
use request::{CardFields, Request};
use response::Reply;
use status::StatusAnswer;

/// The provider code accounts refer to.
pub const PROVIDER_CODE: &str = "nestpay";

/// The path of the API on a Nestpay host (`https://<bank host>/fim/api`). Accounts store the
/// full URL as their `endpointUrl`.
pub const API_PATH: &str = "/fim/api";

/// The code a `Void` refusal carries for "no sale eligible for void"; after the end-of-day
/// cut Nestpay refuses a void of a live sale the same way.
const NO_ELIGIBLE_SALE: &str = "CORE-2008";

/// The Nestpay protocol.
#[derive(Debug, Clone, Copy, Default)]
pub struct Nestpay;

/// The gateway's provider for Nestpay accounts.
pub type NestpayProvider = Adapter<Nestpay>;

#[async_trait]
impl Protocol for Nestpay {
    const CODE: &'static str = PROVIDER_CODE;
    type Config = ApiCredentials;
    type Request<'a> = Request<'a>;
    type Reply = Reply;

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
            },
            Op::Cancel(op) => Request::Void {
                order_id: &op.order_id,
            },
            Op::Refund(op) => Request::Credit {
                order_id: &op.order_id,
                amount: op.amount,
                currency: op.currency,
            },
            Op::Status { order_id } => Request::OrderStatus { order_id },
            // The card's fields are built (and checked) by `points_inquiry`.
            Op::Points { .. } => return Err(Refusal::not_supported("single points")),
        })
    }

    fn kind(req: &Request<'_>) -> &'static str {
        req.kind()
    }

    fn encode(&self, cfg: &ApiCredentials, req: &Request<'_>) -> Wire {
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

    /// An `ORDERSTATUS` answer alone (the query adds `ORDERHISTORY` where needed).
    fn status(&self, reply: &Reply) -> BankStatus {
        match status::read_status(reply) {
            StatusAnswer::NotFound { code } => BankStatus::not_found(&code),
            StatusAnswer::Failed { code } => BankStatus::unavailable(&code),
            StatusAnswer::Found(line) => status::combine(&line, None),
        }
    }

    fn points(&self, reply: &Reply) -> PointsResult {
        points_of(reply)
    }

    /// Nestpay answers a void after the end-of-day cut like any ineligible void; when the
    /// order still holds a live, unrefunded sale, the cut is why (refund instead).
    async fn cancel(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        s.void_checking_cut(op, |code| code == NO_ELIGIBLE_SALE, async {
            holds_live_sale(&self.query(s, &op.order_id).await)
        })
        .await
    }

    /// `ORDERSTATUS`, then `ORDERHISTORY` for sold or refunded orders.
    async fn query(&self, s: &Session<'_, Self>, order_id: &str) -> BankStatus {
        let reply = match s.call(&Request::OrderStatus { order_id }).await {
            Ok(r) => r,
            Err(e) => return e.status(),
        };
        let line = match status::read_status(&reply) {
            StatusAnswer::Found(line) if status::needs_history(&line) => line,
            _ => return self.status(&reply),
        };
        match s.call(&Request::OrderHistory { order_id }).await {
            Ok(reply) => match status::read_history(&reply) {
                Ok(history) => status::combine(&line, Some(&history)),
                Err(code) => BankStatus::unavailable(&code),
            },
            Err(e) => e.status(),
        }
    }

    /// `MAXIPUANSORGU`, for accounts whose `pointsInquiry` flag enables it.
    async fn points_inquiry(
        &self,
        s: &Session<'_, Self>,
        card: &CardDetails,
        currency: Currency,
    ) -> PointsResult {
        let Some(PointsInquiry::MaxiPuan) = s.config().points_inquiry() else {
            return Refusal::new(
                "points_inquiry_not_enabled",
                "this Nestpay account is not enabled for a points inquiry (credential `pointsInquiry`)",
            )
            .points();
        };
        let fields = match CardFields::for_points(card) {
            Ok(fields) => fields,
            Err(invalid) => return invalid,
        };
        s.inquire(&Request::MaxiPuan {
            card: &fields,
            currency,
        })
        .await
    }

    /// The simulator's admin route: `POST <endpointUrl>/_sim/orders` with the client id.
    fn test_order_route(&self, cfg: &ApiCredentials) -> Option<TestOrderRoute> {
        Some(TestOrderRoute {
            url: format!("{}/_sim/orders", cfg.endpoint_url.trim_end_matches('/')),
            extra: vec![("clientId", cfg.client_id.clone())],
        })
    }
}

/// Maps a `MAXIPUANSORGU` answer.
fn points_of(reply: &Reply) -> PointsResult {
    response::classify(reply).points(
        response::maxipuan_minor(reply),
        "Maximum",
        "a MAXIPUAN balance",
        reply.bank_code(),
        reply.message(),
    )
}
