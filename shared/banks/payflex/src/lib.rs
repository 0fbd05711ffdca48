//! VakıfBank PayFlex MPI VPOS V4 ("VPOS 7/24"; also Ziraat's and İşbank's PayFlex terminals):
//! `VposRequest` XML form-posted as `prmstr=` to the VPOS endpoint, and a separate search
//! service for the status (provider code [`PROVIDER_CODE`]), on the kit's skeleton
//! ([`paygate_bankkit::protocol`]):
//!
//! - [`config`]: what the account's secret holds (the search URL defaults to the VPOS host).
//! - [`request`] encodes requests (plain `MerchantId` + `Password`; [`hash`]: none).
//! - [`response`] reads `VposResponse` and the search answer; `ResultCode 0000` approves.
//! - [`status`] reads the order's transactions from the search answer.
//! - `sim` (feature `sim`) is a simulator speaking the same protocol.
//!
//! Operations: capture = `Capture`, cancel = `Cancel` (same business day; a captured
//! pre-authorization is confirmed released by a read after the cancel, see `cancel`), refund
//! = `Refund`, query = the search service. Each back-office request references the bank's transaction id
//! of the original (`ReferenceTransactionId`), so capture, cancel and refund look the order up
//! in the search service first (two calls; a failed lookup moved nothing). PayFlex has no
//! points inquiry: [`Protocol::supported`] leaves it out and a points inquiry is refused
//! `operation_not_supported` without a call.

mod cancel;
pub mod config;
pub mod decline;
pub mod hash;
pub mod request;
pub mod response;
pub mod status;

#[cfg(feature = "sim")]
pub mod sim;

use paygate_bankkit::{Adapter, Op, Protocol, Refusal, Session, Wire};
use paygate_domain::{bank::BankOutcome, ports::BankOperation};

pub use config::{MerchantCredentials, SEARCH_PATH, VPOS_PATH};
use request::Request;
use response::Reply;
use status::{Lookup, Order};

/// The provider code accounts refer to.
pub const PROVIDER_CODE: &str = "payflex";

/// The gateway's provider for PayFlex accounts.
pub type PayFlexProvider = Adapter<PayFlex>;

/// The PayFlex V4 protocol.
#[derive(Debug, Clone, Copy, Default)]
pub struct PayFlex;

/// Which back-office request a lookup prepares (a cancel has its own flow: `cancel`).
#[derive(Debug, Clone, Copy)]
enum Step {
    Capture,
    Refund,
}

impl Step {
    fn name(self) -> &'static str {
        match self {
            Self::Capture => "capture",
            Self::Refund => "refund",
        }
    }

    fn reference<'o>(self, order: &'o Order<'_>) -> Option<&'o str> {
        match self {
            Self::Capture => order.to_capture(),
            Self::Refund => order.to_refund(),
        }
    }
}

/// The order's search answer before a back-office request, or the outcome that ends it: a
/// lookup that fails moved no money (an `Error`, never `Unknown`).
async fn search_before(
    s: &Session<'_, PayFlex>,
    order_id: &str,
    what: &str,
) -> Result<response::SearchReply, BankOutcome> {
    match s.call(&Request::Search { order_id }).await {
        Ok(Reply::Search(r)) => Ok(r),
        Ok(Reply::Vpos(_)) => Err(BankOutcome::Error {
            code: "search".to_owned(),
            message: format!("the order lookup before the {what} got no search answer"),
        }),
        Err(e) => Err(BankOutcome::Error {
            code: e.code().to_owned(),
            message: format!(
                "the order lookup before the {what} failed: {}",
                e.describe()
            ),
        }),
    }
}

/// The order a search answer shows, or the outcome that ends the operation before anything
/// is sent: a failed or unreadable lookup (`Error`), no such order (`Declined`).
fn found<'r>(reply: &'r response::SearchReply, what: &str) -> Result<Order<'r>, BankOutcome> {
    match status::lookup(reply) {
        Lookup::Found(o) => Ok(o),
        Lookup::Failed(code) => Err(BankOutcome::Error {
            code,
            message: format!(
                "the order lookup before the {what} failed: {}",
                reply.response_message
            ),
        }),
        Lookup::Unreadable(why) => Err(BankOutcome::Error {
            code: "search".to_owned(),
            message: format!("the order lookup before the {what} was not readable ({why})"),
        }),
        Lookup::NotFound => Err(BankOutcome::Declined {
            code: "order_not_found".to_owned(),
            message: "the bank has no transaction for this order".to_owned(),
            after_cutoff: false,
        }),
    }
}

/// Nothing the operation can reference.
fn no_reference(what: &str) -> BankOutcome {
    BankOutcome::Declined {
        code: "no_reference".to_owned(),
        message: format!("the order has no transaction a {what} can reference"),
        after_cutoff: false,
    }
}

impl PayFlex {
    /// The search-then-operate flow: the order's transaction to reference, then the request.
    async fn referenced(
        &self,
        s: &Session<'_, Self>,
        op: &BankOperation,
        step: Step,
    ) -> BankOutcome {
        let what = step.name();
        let reply = match search_before(s, &op.order_id, what).await {
            Ok(r) => r,
            Err(outcome) => return outcome,
        };
        let order = match found(&reply, what) {
            Ok(o) => o,
            Err(outcome) => return outcome,
        };
        let Some(reference) = step.reference(&order) else {
            return no_reference(what);
        };
        let req = match step {
            Step::Capture => Request::Capture {
                reference,
                amount: op.amount,
                currency: op.currency,
            },
            Step::Refund => Request::Refund {
                reference,
                amount: op.amount,
            },
        };
        s.send(&req).await
    }
}

/// Capture, cancel, refund and query; no points inquiry.
impl Protocol for PayFlex {
    const CODE: &'static str = PROVIDER_CODE;
    const DECLINE_CODES: &'static [(&'static str, paygate_domain::DeclineCode)] = decline::TABLE;
    const POINTS_INQUIRY: bool = false;
    type Config = MerchantCredentials;
    type Request<'a> = Request<'a>;

    async fn capture(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        self.referenced(s, op, Step::Capture).await
    }

    async fn cancel(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        cancel::cancel(s, op).await
    }

    async fn refund(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        self.referenced(s, op, Step::Refund).await
    }

    /// Only the status is a single request; money requests need the lookup (see
    /// [`PayFlex::referenced`]).
    fn request<'a>(
        &'a self,
        _cfg: &'a MerchantCredentials,
        op: Op<'a>,
    ) -> Result<Request<'a>, Refusal> {
        match op {
            Op::Status { order_id } => Ok(Request::Search { order_id }),
            Op::Points { .. } => Err(Refusal::not_supported("points inquiry")),
            Op::Capture(_) | Op::Cancel(_) | Op::Refund(_) => Err(Refusal::new(
                "reference_required",
                "PayFlex back-office requests reference the bank's transaction id",
            )),
        }
    }

    /// The VPOS endpoint, or the search service for a search.
    fn encode(&self, cfg: &MerchantCredentials, req: &Request<'_>) -> Wire {
        Wire::post(
            request::url(cfg, req),
            request::CONTENT_TYPE,
            request::encode(cfg, req),
        )
    }
}
