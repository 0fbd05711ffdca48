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
//! - [`history`] reads one day's `TxnHistory` (`ReqDate`) for the daily reconciliation.
//! - `sim` (feature `sim`) is a simulator speaking the same wire protocol.
//!
//! Operations: capture = `PostAuth`, cancel = `Void` (twice for a captured
//! pre-authorization: PayFor's void reverses the order's latest transaction), refund =
//! `Refund`, query = `OrderInquiry` (+ `TxnHistory`), points = `ParaPuanInquiry`.

pub mod config;
pub mod decline;
pub mod hash;
pub mod history;
pub mod request;
pub mod response;
pub mod status;

#[cfg(feature = "sim")]
pub mod sim;

use std::time::Instant;

use paygate_bankkit::{Adapter, CardFields, Op, Protocol, Refusal, Session, Wire};
use paygate_domain::{
    bank::{BankOutcome, BankState, BankStatus},
    ports::BankOperation,
};

pub use config::ApiCredentials;
use request::Request;

/// The provider code accounts refer to.
pub const PROVIDER_CODE: &str = "payfor";

/// The gateway's provider for PayFor accounts.
pub type PayForProvider = Adapter<PayFor>;

/// The path of the XML API on a PayFor host (`https://vpos.qnbfinansbank.com/Gateway/
/// XMLGate.aspx`). Accounts store the full URL as their `endpointUrl`.
pub const API_PATH: &str = "/Gateway/XMLGate.aspx";

/// The PayFor protocol.
#[derive(Debug, Clone, Copy, Default)]
pub struct PayFor;

/// The order was voided already (nothing moved now): the cancel has taken effect.
fn already_voided() -> BankOutcome {
    BankOutcome::Approved {
        code: "00".to_owned(),
        auth_code: None,
        rrn: None,
    }
}

/// The order's main transaction (`OrderInquiry`), or the state that ends the read.
async fn main_line(
    s: &Session<'_, PayFor>,
    order_id: &str,
) -> Result<response::Fields, BankStatus> {
    s.read_with(&Request::OrderInquiry { order_id }, |reply| {
        status::read_inquiry(reply).found()
    })
    .await
}

impl Protocol for PayFor {
    const CODE: &'static str = PROVIDER_CODE;
    const DECLINE_CODES: &'static [(&'static str, paygate_domain::DeclineCode)] = decline::TABLE;
    type Config = ApiCredentials;
    type Request<'a> = Request<'a>;

    /// PayFor's `Void` reverses the order's latest transaction: for a captured
    /// pre-authorization that is the `PostAuth` only, and the hold stays open (MEWS history
    /// fixture `success_pre_pay_post_pay_then_cancel`). The order's main transaction is read
    /// first (unreadable → `Unknown`, nothing sent):
    ///
    /// - already voided — the sale or the pre-authorization, or a reversed capture whose
    ///   pre-authorization the history shows voided → `Approved`, nothing sent;
    /// - a reversed capture whose pre-authorization is open → one `Void` (the hold);
    /// - a captured pre-authorization → `Void`, then a second `Void` for the hold, confirmed
    ///   by a read ([`Session::release_hold`]);
    /// - a refused `Void` → the order is read again: voided meanwhile → `Approved`; a live,
    ///   unrefunded sale → the end-of-day cut's refusal (`after_cutoff`).
    async fn cancel(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        let started = Instant::now();
        let order_id = op.order_id.as_str();
        let unread = |code: &str| BankOutcome::Unknown {
            reason: format!(
                "the order's state could not be read before the void ({code}); nothing was sent"
            ),
        };
        let line = match main_line(s, order_id).await {
            Ok(line) => Some(line),
            Err(st) if st.is_conclusive() => None,
            Err(st) => return unread(&st.code),
        };
        if line.as_ref().is_some_and(status::voided) {
            // Voided already, wholly or (a reversed capture) in part: the whole read says
            // what is left.
            let st = self.query(s, order_id).await;
            match st.state {
                _ if !st.found || !st.is_conclusive() => return unread(&st.code),
                BankState::Cancelled => return already_voided(),
                BankState::Preauth => {}
                _ => return unread(&st.code),
            }
        }
        let live_sale = line.as_ref().is_some_and(status::live_unrefunded_sale);
        let captured = line.as_ref().is_some_and(status::captured_preauth);
        let cancelled = |st: BankStatus| st.found && st.state == BankState::Cancelled;
        match s.operate(Op::Cancel(op)).await {
            first @ BankOutcome::Approved { .. } if captured => {
                let released = async { cancelled(self.query(s, order_id).await) };
                s.release_hold(op, started, first, released).await
            }
            BankOutcome::Declined {
                code,
                message,
                after_cutoff: false,
            } => {
                if cancelled(self.query(s, order_id).await) {
                    return already_voided();
                }
                BankOutcome::Declined {
                    after_cutoff: live_sale,
                    code,
                    message,
                }
            }
            other => other,
        }
    }

    /// `OrderInquiry`, then `TxnHistory` for sales.
    async fn query(&self, s: &Session<'_, Self>, order_id: &str) -> BankStatus {
        let line = main_line(s, order_id).await;
        let history = line
            .as_ref()
            .is_ok_and(status::needs_history)
            .then_some(Request::TxnHistory { order_id });
        s.status_with_history(line, history, status::read_history, status::combine)
            .await
    }

    /// `TxnHistory` by `ReqDate` ([`history`]).
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
            Op::Cancel(op) => Request::Void(op.into()),
            Op::Refund(op) => Request::Refund(op.into()),
            Op::Status { order_id } => Request::OrderInquiry { order_id },
            Op::Points { card, .. } => Request::ParaPuan {
                card: CardFields::for_request(card)?,
            },
        })
    }

    fn encode(&self, cfg: &ApiCredentials, req: &Request<'_>) -> Wire {
        let wire = Wire::post(
            &cfg.endpoint_url,
            request::CONTENT_TYPE,
            request::encode(cfg, req),
        );
        match req {
            Request::DayHistory { .. } => wire.report(),
            _ => wire,
        }
    }
}
