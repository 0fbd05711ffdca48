//! Yapı Kredi **Posnet** XML service on the kit's skeleton ([`paygate_bankkit::protocol`]):
//! [`PosnetProvider`] and, behind the `sim` feature, a simulator speaking the same wire
//! protocol ([`sim::start`]).
//!
//! Protocol (sources in this crate's README; YKB's own PHP module and 3-D integration document;
//! MEWS/PARA/OZG): `POST /PosnetWebService/XML`, form field `xmldata` = URL-encoded
//! `posnetRequest` XML declared ISO-8859-9; `mid`/`tid` identify the terminal (the bank also
//! checks the caller's IP); amounts are integer kuruş; currencies `TL`/`YT`, `US`, `EU`,
//! `GB`; order ids are 24 characters, zero-padded. Answers are `posnetResponse` with
//! `approved` (`1` approved, `0` declined, `2` already used) and `respCode`/`respText`.
//!
//! * capture — `agreement` to find the authorization's `hostlogkey` (Posnet captures by
//!   reference only), then `capt`.
//! * cancel — `agreement` to find what is live, then `reverse` of it ([`cancel`]).
//! * refund — `return` by order id (full or partial; the bank refuses it on the capture's
//!   own business day with `0411`).
//! * query — `agreement`, replayed into the order's state and refunded total.
//! * points — `pointInquiry` (WorldPuan).
//!
//! Requests carry the `X-MERCHANT-ID`, `X-TERMINAL-ID`, `X-CORRELATION-ID` (and
//! `X-POSNET-ID`) headers the bank asks for ([`hash`]: no hash on the XML service). Bodies
//! are never logged: they can hold a card number.

pub mod cancel;
pub mod codes;
pub mod config;
pub mod decline;
pub mod hash;
pub mod request;
pub mod response;
pub mod status;
pub mod wire;

#[cfg(feature = "sim")]
pub mod sim;

use std::sync::atomic::{AtomicU64, Ordering};

use paygate_bankkit::{Adapter, BankRequest, Op, Protocol, Refusal, Session, StepRetry, Wire};
use paygate_domain::{
    ports::BankOperation, AccountId, BankOutcome, CardDetails, Currency, PointsResult,
};

pub use config::{keys, PosnetConfig};
use response::Reply;

/// Provider code accounts refer to.
pub const PROVIDER_CODE: &str = "posnet";

/// The gateway's provider for Posnet accounts.
pub type PosnetProvider = Adapter<Posnet>;

/// One Posnet request: the operation element's name, the `X-CORRELATION-ID` and the
/// `posnetRequest` document.
pub struct Request {
    pub what: &'static str,
    pub correlation: String,
    pub xml: String,
}

impl BankRequest for Request {
    type Reply = Reply;

    fn kind(&self) -> &'static str {
        self.what
    }
}

/// The Posnet XML protocol, with how the second reversal of a two-step cancel is retried.
#[derive(Debug, Default)]
pub struct Posnet {
    retry: StepRetry,
    inquiries: AtomicU64,
}

impl Posnet {
    /// How the second reversal of a two-step cancel is retried (default
    /// [`StepRetry::default`]).
    pub fn with_step_retry(retry: StepRetry) -> Self {
        Self {
            retry,
            ..Self::default()
        }
    }
}

/// The 24-character bank form of the gateway's order id, or why there is none.
pub(crate) fn order_id(cfg: &PosnetConfig, order_id: &str) -> Result<String, Refusal> {
    wire::wire_order_id(order_id, &cfg.prefix).map_err(|m| Refusal::new("order_id", m))
}

/// `agreement`: everything the bank holds for the order.
pub(crate) fn agreement(cfg: &PosnetConfig, wire_order_id: &str) -> Request {
    Request {
        what: "agreement",
        correlation: wire_order_id.to_owned(),
        xml: request::agreement(cfg.terminal(), wire_order_id),
    }
}

impl Protocol for Posnet {
    const CODE: &'static str = PROVIDER_CODE;
    const DECLINE_CODES: &'static [(&'static str, paygate_domain::DeclineCode)] = decline::TABLE;
    type Config = PosnetConfig;
    type Request<'a> = Request;

    async fn capture(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        cancel::capture(s, op)
            .await
            .unwrap_or_else(|stopped| stopped)
    }

    async fn cancel(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        cancel::cancel_order(s, self.retry, op)
            .await
            .unwrap_or_else(|stopped| stopped)
    }

    /// `pointInquiry` (WorldPuan), correlated by the account and a per-process sequence.
    async fn points_inquiry(
        &self,
        s: &Session<'_, Self>,
        card: &CardDetails,
        _currency: Currency,
    ) -> PointsResult {
        let number: String = card.number.chars().filter(|c| !c.is_whitespace()).collect();
        let exp = request::exp_date(&card.exp_month, &card.exp_year);
        let card_ok =
            (12..=19).contains(&number.len()) && number.bytes().all(|b| b.is_ascii_digit());
        let (Some(exp), true) = (exp, card_ok) else {
            return Refusal::new(
                "card",
                format!(
                    "card {} is not a card number with a valid expiry",
                    card.masked()
                ),
            )
            .points();
        };
        let seq = self.inquiries.fetch_add(1, Ordering::Relaxed);
        let account = s
            .account()
            .id
            .as_str()
            .trim_start_matches(AccountId::PREFIX);
        let req = Request {
            what: "pointInquiry",
            correlation: format!("PI{account}{seq:08}"),
            xml: request::point_inquiry(s.config().terminal(), &number, &exp),
        };
        s.inquire(&req).await
    }

    fn request<'a>(&'a self, cfg: &'a PosnetConfig, op: Op<'a>) -> Result<Request, Refusal> {
        match op {
            Op::Refund(op) => Ok(Request {
                what: "return",
                correlation: op.transaction_id.as_str().to_owned(),
                xml: request::refund(
                    cfg.terminal(),
                    &wire::wire_amount(op.amount),
                    cfg.currency(op.currency),
                    &order_id(cfg, &op.order_id)?,
                ),
            }),
            Op::Status { order_id: id } => Ok(agreement(cfg, &order_id(cfg, id)?)),
            // Capture and cancel address transactions found by `agreement` first; a points
            // inquiry needs a correlation of its own (`points_inquiry`).
            Op::Capture(_) | Op::Cancel(_) | Op::Points { .. } => {
                Err(Refusal::not_supported("single-request"))
            }
        }
    }

    /// The `xmldata` form, with the headers the bank asks for.
    fn encode(&self, cfg: &PosnetConfig, req: &Request) -> Wire {
        let mut w = Wire::post(
            cfg.endpoint.clone(),
            "application/x-www-form-urlencoded",
            wire::form_body(&req.xml),
        )
        .header("X-MERCHANT-ID", cfg.mid.clone())
        .header("X-TERMINAL-ID", cfg.tid.clone())
        .header("X-CORRELATION-ID", req.correlation.clone());
        if let Some(id) = &cfg.posnet_id {
            w = w.header("X-POSNET-ID", id.clone());
        }
        w
    }
}
