//! Garanti BBVA virtual POS (GVPS): `GVPSRequest`/`GVPSResponse` XML posted to
//! `<endpoint>/VPServlet`, on the kit's skeleton ([`paygate_bankkit::protocol`]).
//!
//! - [`config`]: the account secret's keys and the endpoint's URLs.
//! - [`request`], [`hash`]: request encoding and the SHA-512 `HashData` rule (API version
//!   `512`).
//! - [`response`], [`status`], [`points`]: answer decoding and mapping onto the gateway's
//!   outcomes, statuses and points balances.
//! - [`cancel`]: the two-void cancel of a captured pre-authorization.
//! - [`history`]: the day's captures, cancels and refunds (`orderlistinq`, all pages) for the
//!   daily reconciliation.
//! - `sim` (feature `sim`): a GVPS simulator with the bank's rules and codes.
//!
//! Operations: capture = `postauth`, cancel = `orderhistoryinq` then the `void`s still
//! missing, refund = `refund`, query = `orderinq` + `orderhistoryinq`, points = `rewardinq`,
//! day history = `orderlistinq`.
//! Nothing here logs a request or response body: they carry hashes and, for `rewardinq`,
//! the card number.

pub mod cancel;
pub mod config;
pub mod decline;
pub mod hash;
pub mod history;
pub mod points;
pub mod request;
pub mod response;
pub mod status;

#[cfg(feature = "sim")]
pub mod sim;

use paygate_bankkit::{Adapter, BankReply, Op, Protocol, Refusal, Session, StepRetry, Wire};
use paygate_domain::{ports::BankOperation, BankOutcome, BankStatus};

pub use config::{admin_url, keys, servlet_url, GarantiConfig, Terminal};
use request::{Request, TxnType, CONTENT_TYPE, FIXED_AMOUNT, REWARD_INQUIRY_AMOUNT};
use response::Verdict;
use status::{combine, is_not_found, parse_history, parse_order_inq};

/// Provider code accounts refer to.
pub const PROVIDER_CODE: &str = "garanti";

/// The gateway's provider for Garanti accounts.
pub type GarantiProvider = Adapter<Garanti>;

/// The GVPS protocol, with how the second void of a two-step cancel is retried.
#[derive(Debug, Clone, Copy, Default)]
pub struct Garanti {
    retry: StepRetry,
}

impl Garanti {
    /// How the second void of a two-step cancel is retried (default [`StepRetry::default`]).
    pub fn with_step_retry(retry: StepRetry) -> Self {
        Self { retry }
    }
}

impl Protocol for Garanti {
    const CODE: &'static str = PROVIDER_CODE;
    const DECLINE_CODES: &'static [(&'static str, paygate_domain::DeclineCode)] = decline::TABLE;
    type Config = GarantiConfig;
    type Request<'a> = Request<'a>;

    async fn cancel(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        cancel::cancel_order(s, self.retry, op).await
    }

    /// `orderinq` for the order's status, then `orderhistoryinq` for voids and refunds. An
    /// order `orderinq` found whose history says "no such order" (`0108`) or is incomplete is
    /// unavailable: the two answers contradict each other, and "no refund seen" must never
    /// read as "nothing refunded".
    async fn query(&self, s: &Session<'_, Self>, order_id: &str) -> BankStatus {
        let cfg = s.config();
        let inq = match s
            .call(&read_request(cfg, TxnType::OrderInq, order_id))
            .await
        {
            Ok(r) if is_not_found(&r) || r.verdict() != Verdict::Approved => return r.status(),
            Ok(r) => match parse_order_inq(&r) {
                Ok(inq) => inq,
                Err(_) => return BankStatus::unavailable("response"),
            },
            Err(e) => return e.status(),
        };
        let history = match s
            .call(&read_request(cfg, TxnType::OrderHistoryInq, order_id))
            .await
        {
            Ok(r) if is_not_found(&r) => return BankStatus::unavailable("history:not-found"),
            Ok(r) if r.verdict() == Verdict::Approved => match parse_history(&r) {
                Ok(h) => h,
                Err(_) => return BankStatus::unavailable("response"),
            },
            Ok(r) => return BankStatus::unavailable(&r.bank_code()),
            Err(e) => return e.status(),
        };
        combine(&inq, &history)
    }

    async fn day_history(
        &self,
        s: &Session<'_, Self>,
        day: paygate_domain::daily::BusinessDay,
    ) -> paygate_domain::daily::DayHistory {
        history::day_history(s, day).await
    }

    fn request<'a>(&'a self, cfg: &'a GarantiConfig, op: Op<'a>) -> Result<Request<'a>, Refusal> {
        Ok(match op {
            // Amounts in kuruş.
            Op::Capture(op) => cfg.request(
                TxnType::PostAuth,
                &op.order_id,
                op.amount.to_string(),
                op.currency,
            ),
            Op::Refund(op) => cfg.request(
                TxnType::Refund,
                &op.order_id,
                op.amount.to_string(),
                op.currency,
            ),
            // A cancel reads the history first (`cancel`).
            Op::Cancel(op) => cancel::void_request(cfg, op, None),
            Op::Status { order_id } => read_request(cfg, TxnType::OrderInq, order_id),
            Op::Points { card, currency } => {
                let mut req = cfg.request(
                    TxnType::RewardInq,
                    "",
                    REWARD_INQUIRY_AMOUNT.to_owned(),
                    currency,
                );
                req.card = Some(card);
                req
            }
        })
    }

    fn encode(&self, cfg: &GarantiConfig, req: &Request<'_>) -> Wire {
        let wire = Wire::post(
            servlet_url(&cfg.endpoint_url),
            CONTENT_TYPE,
            req.to_xml().into_bytes(),
        );
        match req.txn {
            request::TxnType::OrderListInq => wire.report(),
            _ => wire,
        }
    }
}

/// A read-only request (its amount is the fixed one the bank ignores).
pub(crate) fn read_request<'a>(
    cfg: &'a GarantiConfig,
    txn: TxnType,
    order_id: &'a str,
) -> Request<'a> {
    cfg.request(
        txn,
        order_id,
        FIXED_AMOUNT.to_owned(),
        paygate_domain::Currency::Try,
    )
}
