//! QNB Finansbank PayFor: the `PayforRequest` XML API (`/Gateway/XMLGate.aspx`) behind the
//! virtual POS of QNB Finansbank, Enpara and Ziraat Katılım (provider code
//! [`PROVIDER_CODE`]), on the kit's skeleton ([`paygate_bankkit::protocol`]):
//!
//! - [`config`]: what the account's secret holds.
//! - [`request`] encodes requests: plain credentials in every document (`MerchantId`,
//!   `UserCode`, `UserPass`, `MbrId`; [`hash`]: the API has none), decimal-TL amounts, ISO
//!   4217 numeric currencies, UTF-8, POSTed as the raw body to the account's URL.
//! - [`response`] reads `PayforResponse` / `TxnHistoryReport` and classifies answers by
//!   `ProcReturnCode`.
//! - [`status`] combines `OrderInquiry` and `TxnHistory` (partial refunds are itemised only
//!   in the history) into a [`paygate_domain::BankStatus`].
//! - `sim` (feature `sim`) is a simulator speaking the same wire protocol.
//!
//! Operations: capture = `PostAuth`, cancel = `Void` (twice for a captured
//! pre-authorization: PayFor's void reverses the order's latest transaction), refund =
//! `Refund`, query = `OrderInquiry` (+ `TxnHistory`), points = `ParaPuanInquiry`.

pub mod config;
pub mod hash;
pub mod request;
pub mod response;
pub mod status;

#[cfg(feature = "sim")]
pub mod sim;

use async_trait::async_trait;
use std::time::Instant;

use paygate_bankkit::{
    protocol::TestOrderRoute, Adapter, Op, Protocol, Refusal, Session, StepRetry, Wire,
};
use paygate_domain::{
    bank::{BankOutcome, BankStatus, CardDetails, PointsResult},
    ports::BankOperation,
    Currency,
};

pub use config::ApiCredentials;
use request::{CardFields, Request};
use response::Reply;
use status::Inquiry;

/// The provider code accounts refer to.
pub const PROVIDER_CODE: &str = "payfor";

/// The path of the XML API on a PayFor host (`https://vpos.qnbfinansbank.com/Gateway/
/// XMLGate.aspx`). Accounts store the full URL as their `endpointUrl`.
pub const API_PATH: &str = "/Gateway/XMLGate.aspx";

/// The PayFor protocol.
#[derive(Debug, Clone, Copy, Default)]
pub struct PayFor;

/// The gateway's provider for PayFor accounts.
pub type PayForProvider = Adapter<PayFor>;

impl PayFor {
    /// The order's main transaction (`OrderInquiry`), or the state that ends the read.
    async fn main_line(
        &self,
        s: &Session<'_, Self>,
        order_id: &str,
    ) -> Result<response::Fields, BankStatus> {
        let reply = s
            .call(&Request::OrderInquiry { order_id })
            .await
            .map_err(|e| e.status())?;
        match status::read_inquiry(&reply) {
            Inquiry::Found(line) => Ok(line),
            Inquiry::NotFound { code } => Err(BankStatus::not_found(&code)),
            Inquiry::Failed { code } => Err(BankStatus::unavailable(&code)),
        }
    }
}

#[async_trait]
impl Protocol for PayFor {
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
                currency: op.currency,
            },
            Op::Cancel(op) => Request::Void {
                order_id: &op.order_id,
                currency: op.currency,
            },
            Op::Refund(op) => Request::Refund {
                order_id: &op.order_id,
                amount: op.amount,
                currency: op.currency,
            },
            Op::Status { order_id } => Request::OrderInquiry { order_id },
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

    /// An `OrderInquiry` answer alone (the query adds `TxnHistory` for sales).
    fn status(&self, reply: &Reply) -> BankStatus {
        match status::read_inquiry(reply) {
            Inquiry::NotFound { code } => BankStatus::not_found(&code),
            Inquiry::Failed { code } => BankStatus::unavailable(&code),
            Inquiry::Found(line) => status::combine(&line, None),
        }
    }

    fn points(&self, reply: &Reply) -> PointsResult {
        points_of(reply)
    }

    /// PayFor's `Void` reverses the order's latest transaction: for a captured
    /// pre-authorization that is the `PostAuth` only, and the hold stays open (MEWS history
    /// fixture `success_pre_pay_post_pay_then_cancel`). The order's main transaction is read
    /// first (unreadable → `Unknown`, nothing sent); a captured pre-authorization gets a
    /// second `Void` for the hold, if it still fits the operation's time budget. Once the
    /// first void moved money, anything short of a confirmed release is `Unknown` (a query
    /// or the reconciler settles it), never `Error`. At most four calls.
    async fn cancel(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        let started = Instant::now();
        let line = match self.main_line(s, &op.order_id).await {
            Ok(line) => Some(line),
            Err(st) if st.is_conclusive() => None,
            Err(st) => {
                return BankOutcome::Unknown {
                    reason: format!(
                    "the order's state could not be read before the void ({}); nothing was sent",
                    st.code
                ),
                }
            }
        };
        let live_sale = line.as_ref().is_some_and(status::live_unrefunded_sale);
        let captured = line.as_ref().is_some_and(status::captured_preauth);
        let first = s.void_checking_cut(op, |_| true, async { live_sale }).await;
        if !captured || !matches!(first, BankOutcome::Approved { .. }) {
            return first;
        }
        let half_done = || {
            BankOutcome::Unknown {
            reason: "the capture was reversed; the release of the pre-authorization's hold is not confirmed".to_owned(),
        }
        };
        if StepRetry::default()
            .wait_before(1, started, s.call_timeout())
            .is_none()
        {
            return half_done();
        }
        match s.operate(Op::Cancel(op)).await {
            approved @ BankOutcome::Approved { .. } => approved,
            _ => match self.main_line(s, &op.order_id).await {
                Ok(line) if status::voided(&line) => first,
                _ => half_done(),
            },
        }
    }

    /// `OrderInquiry`, then `TxnHistory` for sales.
    async fn query(&self, s: &Session<'_, Self>, order_id: &str) -> BankStatus {
        let line = match self.main_line(s, order_id).await {
            Ok(line) => line,
            Err(st) => return st,
        };
        if !status::needs_history(&line) {
            return status::combine(&line, None);
        }
        match s.call(&Request::TxnHistory { order_id }).await {
            Ok(reply) => match status::read_history(&reply) {
                Ok(history) => status::combine(&line, Some(&history)),
                Err(code) => BankStatus::unavailable(&code),
            },
            Err(e) => e.status(),
        }
    }

    /// `ParaPuanInquiry` with the card.
    async fn points_inquiry(
        &self,
        s: &Session<'_, Self>,
        card: &CardDetails,
        _currency: Currency,
    ) -> PointsResult {
        let fields = match CardFields::for_points(card) {
            Ok(fields) => fields,
            Err(invalid) => return invalid,
        };
        match s.call(&Request::ParaPuan { card: &fields }).await {
            Ok(reply) => points_of(&reply),
            Err(e) => {
                let (code, message) = e.code_and_message();
                PointsResult::Error { code, message }
            }
        }
    }

    /// The simulator's admin route: `POST <endpointUrl>/_sim/orders` with the merchant id.
    fn test_order_route(&self, cfg: &ApiCredentials) -> Option<TestOrderRoute> {
        Some(TestOrderRoute {
            url: format!("{}/_sim/orders", cfg.endpoint_url.trim_end_matches('/')),
            extra: vec![("merchantId", cfg.merchant_id.clone())],
        })
    }
}

/// Maps a `ParaPuanInquiry` answer.
fn points_of(reply: &Reply) -> PointsResult {
    let f = &reply.fields;
    response::classify(f.code()).points(
        response::parapuan_minor(f),
        "ParaPuan",
        "an AvailablePoint balance",
        f.bank_code(),
        f.message(),
    )
}
