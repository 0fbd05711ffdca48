//! Albaraka Türk's PosNet V1: the JSON `MerchantJSONAPI.svc` of the PosNet platform
//! (provider code [`PROVIDER_CODE`]), on the kit's skeleton ([`paygate_bankkit::protocol`]):
//!
//! - [`config`]: what the account's secret holds.
//! - [`request`] writes the JSON bodies, POSTed to `<endpointUrl>/<TransactionType>`.
//! - [`hash`]: `MAC` = base64(SHA-256(the `MACParams` fields' values concatenated, then the
//!   `encKey`)).
//! - [`response`] reads and classifies answers (`ServiceResponseData.ResponseCode`, `00`).
//! - [`status`]: `TransactionInquiry` replayed into the order's state, partial refunds
//!   included.
//! - `sim` (feature `sim`) is a simulator speaking the same protocol (and checking the MAC).
//!
//! Follow-up requests name the transaction they act on by its reference (`HostLogKey`), so
//! every money operation reads the order first (`TransactionInquiry`) and then sends one
//! request: capture = `Capture` of the open `Auth`; refund = `Return` of the live `Sale` or
//! `Capture`; cancel = `Reverse` of the newest live transaction, twice for a captured
//! pre-authorization (the capture, then the authorization). No points inquiry: the
//! reference shows a `/PointInquiry` request but no answer to read, so `supported()` leaves it
//! out and the gateway answers `operation_not_supported`.

pub mod config;
pub mod decline;
pub mod hash;
pub mod request;
pub mod response;
pub mod status;

#[cfg(feature = "sim")]
pub mod sim;

use std::time::Instant;

use paygate_bankkit::{Adapter, Op, Protocol, Refusal, Session, StepRetry, Wire};
use paygate_domain::{
    bank::{BankOutcome, BankState},
    ports::BankOperation,
};

pub use config::Credentials;
use request::{bank_order_id, Kind, Request, Target};
use response::{codes, APPROVED, NO_RECORD};
use status::OrderView;

/// The provider code accounts refer to.
pub const PROVIDER_CODE: &str = "posnetv1";

/// The gateway's provider for PosNet V1 accounts.
pub type PosNetV1Provider = Adapter<PosNetV1>;

/// The service path on Albaraka's host (`https://epos.albarakaturk.com.tr` +
/// `/ALBMerchantService/MerchantJSONAPI.svc`); accounts store the full URL as `endpointUrl`.
pub const API_PATH: &str = "/ALBMerchantService/MerchantJSONAPI.svc";

/// The PosNet V1 protocol and the retry of a cancel's second reverse.
#[derive(Debug, Clone, Default)]
pub struct PosNetV1 {
    retry: StepRetry,
}

impl PosNetV1 {
    pub fn new() -> Self {
        Self::default()
    }

    /// With a given budget for a cancel's second reverse (tests).
    pub fn with_step_retry(retry: StepRetry) -> Self {
        Self { retry }
    }

    /// The order as its inquiry shows it (a failed read: unavailable).
    async fn view(&self, s: &Session<'_, Self>, order_id: &str) -> OrderView {
        match self.request(s.config(), Op::Status { order_id }) {
            Ok(req) => match s.call(&req).await {
                Ok(reply) => status::read(&reply),
                Err(e) => OrderView::plain(e.status()),
            },
            Err(refused) => OrderView::plain(refused.status()),
        }
    }

    /// Reverses `target`. An answer "already reversed" (`0220`: another cancel got there
    /// first) is confirmed by reading the order again: gone → approved, else unknown.
    async fn reverse(&self, s: &Session<'_, Self>, order_id: &str, target: &Target) -> BankOutcome {
        let out = s.send(&Request::Reverse { of: target.clone() }).await;
        match out {
            BankOutcome::Declined { code, .. } if code == codes::ALREADY_REVERSED => {
                let after = self.view(s, order_id).await;
                let gone = after.status.is_conclusive()
                    && after.status.found
                    && after.main.as_ref() != Some(target)
                    && after.capture.as_ref() != Some(target);
                if gone {
                    approved()
                } else {
                    BankOutcome::Unknown {
                        reason: format!(
                            "the reverse was refused as already done ({}) but the order's \
                             inquiry does not show it reversed ({:?}, {})",
                            codes::ALREADY_REVERSED,
                            after.status.state,
                            after.status.code
                        ),
                    }
                }
            }
            // The batch is closed: the merchant should refund a sale or capture; an
            // authorization has nothing to refund.
            BankOutcome::Declined {
                code,
                message,
                after_cutoff: true,
            } if target.kind == Kind::Auth => BankOutcome::Declined {
                code,
                message,
                after_cutoff: false,
            },
            other => other,
        }
    }
}

/// Nothing was sent: the order could not be read first.
fn unread(what: &str, st: &paygate_domain::BankStatus) -> BankOutcome {
    BankOutcome::Error {
        code: st.code.clone(),
        message: format!("the order could not be read before the {what}; nothing was sent"),
    }
}

/// The bank has no such order (`E219`): nothing to act on.
fn no_such_order() -> BankOutcome {
    BankOutcome::Declined {
        code: NO_RECORD.to_owned(),
        message: "the bank has no record of the order".to_owned(),
        after_cutoff: false,
    }
}

fn approved() -> BankOutcome {
    BankOutcome::Approved {
        code: APPROVED.to_owned(),
        auth_code: None,
        rrn: None,
    }
}

/// Capture, cancel, refund and query; no points inquiry.
impl Protocol for PosNetV1 {
    const CODE: &'static str = PROVIDER_CODE;
    const DECLINE_CODES: &'static [(&'static str, paygate_domain::DeclineCode)] = decline::TABLE;
    const POINTS_INQUIRY: bool = false;
    type Config = Credentials;
    type Request<'a> = Request;

    /// The open authorization's reference from the inquiry, then `Capture` of it. A read
    /// that fails or an order without an open authorization sends nothing.
    async fn capture(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        let before = self.view(s, &op.order_id).await;
        if !before.status.is_conclusive() {
            return unread("capture", &before.status);
        }
        if !before.status.found {
            return no_such_order();
        }
        match (&before.main, before.status.state) {
            (Some(auth), BankState::Preauth) if auth.kind == Kind::Auth => {
                s.send(&Request::Capture {
                    auth: auth.clone(),
                    amount: op.amount,
                    currency: op.currency,
                })
                .await
            }
            _ => Refusal::declined(
                "no_open_preauth",
                format!(
                    "the order holds no open pre-authorization at the bank ({})",
                    before.status.state.as_str()
                ),
            )
            .outcome(),
        }
    }

    /// `Return` of the live sale or capture, always with the amount. A read that fails or an
    /// order with nothing sold sends nothing.
    async fn refund(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        let before = self.view(s, &op.order_id).await;
        if !before.status.is_conclusive() {
            return unread("refund", &before.status);
        }
        if !before.status.found {
            return no_such_order();
        }
        let sold = before
            .capture
            .clone()
            .or_else(|| before.main.clone().filter(|m| m.kind == Kind::Sale));
        match sold {
            Some(of) => {
                s.send(&Request::Return {
                    of,
                    amount: op.amount,
                    currency: op.currency,
                })
                .await
            }
            None => Refusal::declined(
                "nothing_to_refund",
                format!(
                    "the order holds no sale to refund at the bank ({})",
                    before.status.state.as_str()
                ),
            )
            .outcome(),
        }
    }

    /// `Reverse` of the newest live transaction. The inquiry is read first (unreadable →
    /// `Unknown`, nothing sent: an earlier attempt may have acted; already reversed →
    /// `Approved`, nothing sent). A captured pre-authorization takes two reverses: the
    /// capture, then (if the budget allows) the authorization; when the second is not
    /// approved, a read decides (released → approved; else unknown, never an error: the
    /// first reverse moved money). A repeated cancel sends only what is still live.
    async fn cancel(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        let started = Instant::now();
        let before = self.view(s, &op.order_id).await;
        if !before.status.is_conclusive() {
            return BankOutcome::Unknown {
                reason: format!(
                    "the order could not be read before the reverse ({}); nothing was sent",
                    before.status.code
                ),
            };
        }
        if !before.status.found {
            return no_such_order();
        }
        if before.status.state == BankState::Cancelled {
            return approved();
        }
        let Some(main) = before.main.clone() else {
            return Refusal::declined("nothing_to_reverse", "the order holds nothing live")
                .outcome();
        };
        let Some(capture) = before.capture.clone() else {
            return self.reverse(s, &op.order_id, &main).await;
        };
        let first = self.reverse(s, &op.order_id, &capture).await;
        if !matches!(first, BankOutcome::Approved { .. }) {
            return first;
        }
        let half_done = || BankOutcome::Unknown {
            reason: "the capture was reversed; the reverse of the pre-authorization is not \
                     confirmed"
                .to_owned(),
        };
        if self
            .retry
            .wait_before(1, started, s.call_timeout())
            .is_none()
        {
            return half_done();
        }
        match self.reverse(s, &op.order_id, &main).await {
            second @ BankOutcome::Approved { .. } => second,
            _ => {
                let after = self.view(s, &op.order_id).await.status;
                if after.found && after.state == BankState::Cancelled {
                    first
                } else {
                    half_done()
                }
            }
        }
    }

    /// Only the inquiry is a request of its own; the money requests name a transaction the
    /// inquiry found (the flows above).
    fn request<'a>(&'a self, cfg: &'a Credentials, op: Op<'a>) -> Result<Request, Refusal> {
        match op {
            Op::Status { order_id } => Ok(Request::Inquiry {
                order_id: bank_order_id(&cfg.order_id_prefix, order_id)?,
            }),
            Op::Points { .. } => Err(Refusal::not_supported("points inquiry")),
            Op::Capture(_) | Op::Cancel(_) | Op::Refund(_) => Err(Refusal::new(
                "lookup_first",
                "a money request names the transaction the order's inquiry found",
            )),
        }
    }

    fn encode(&self, cfg: &Credentials, req: &Request) -> Wire {
        let body = request::to_json(cfg, req).into_bytes();
        Wire::post(cfg.url(req.path()), request::CONTENT_TYPE, body)
    }
}
