//! A PayFor bank simulator (feature `sim`): `POST /Gateway/XMLGate.aspx` speaks
//! `PayforRequest` / `PayforResponse` (and `TxnHistoryReport`) in UTF-8 like the bank, on the
//! kit's order book with PayFor's rules (`OrderBook::new(true)`: a refund on the sale's own
//! business day is refused with `V014`, a void after the cut with `V013`; a void of a
//! captured pre-authorization reverses the capture only). Strict: malformed XML, a body that
//! is not UTF-8, wrong credentials, unknown orders and unreadable amounts are refused (see
//! `rules`).
//!
//! Admin routes (test helper, local stack), at the root and under `/Gateway/XMLGate.aspx`:
//! - `POST /_sim/orders` — `{"merchantId", "orderId", "amount", "currency", "state",
//!   "settled"}` (a [`TestOrder`](paygate_domain::ports::TestOrder) plus the merchant id); `409` for a duplicate order id.
//! - `POST /_sim/end-of-day` — moves the bank past its end-of-day cut.
//! - `POST /_sim/faults` — `{"latencyMs", "technicalErrors", "dropAfterProcessing",
//!   "dropBeforeProcessing"}`.
//!
//! `TxnHistory` with a `ReqDate` (`YYYYMMDD`) instead of an `OrderId` lists every line of
//! the merchant booked that date ([`OrderBook::booked_on`](paygate_bankkit::sim::OrderBook::booked_on),
//! refused refunds included, `TxnStatus N`), in one report, or `V013` for a day without
//! any; an unreadable `ReqDate` is `M002`.
//!
//! Faults: latency is served *after* processing; a technical error answers `V036`
//! ("Sistem hatası"). The kit's money-request fault plan applies to `PostAuth`, `Void` and
//! `Refund`.

mod rules;
mod wire;

use std::sync::Arc;

use paygate_bankkit::sim::{
    self, prelude::*, OrderNotes, Secret, Served, SimServer, SimState, SimUser,
};

pub use rules::{parapuan_of, PARAPUAN_BINS};
pub use wire::{read_request, Answer, WireError};

use crate::API_PATH;

/// An API user the simulated bank accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimClient {
    pub mbr_id: String,
    pub merchant_id: String,
    pub user_code: String,
    pub user_pass: Secret,
}

impl SimUser for SimClient {
    const CLIENT_FIELD: &'static str = "merchantId";

    fn client(&self) -> &str {
        &self.merchant_id
    }
}

/// The credentials the simulator accepts: all four values must match one user exactly
/// (else `V001`); and what its `OrderInquiry` shows once a capture was reversed.
#[derive(Debug, Clone, Default)]
pub struct SimCredentials {
    pub clients: Vec<SimClient>,
    /// `OrderInquiry` shows the order's latest main transaction even when voided (a
    /// reversed `PostAuth`, `TxnStatus V`), where by default it shows the live one (the
    /// pre-authorization, open again). Which one the bank shows is not documented (README);
    /// the adapter must hold in both.
    pub inquiry_shows_latest: bool,
}

impl SimCredentials {
    /// `OrderInquiry` shows the latest main transaction ([`Self::inquiry_shows_latest`]).
    pub fn inquiring_latest(mut self) -> Self {
        self.inquiry_shows_latest = true;
        self
    }

    /// Adds a user.
    pub fn with(
        mut self,
        mbr_id: &str,
        merchant_id: &str,
        user_code: &str,
        user_pass: &str,
    ) -> Self {
        self.clients.push(SimClient {
            mbr_id: mbr_id.to_owned(),
            merchant_id: merchant_id.to_owned(),
            user_code: user_code.to_owned(),
            user_pass: user_pass.into(),
        });
        self
    }
}

/// A refund the bank refused; it shows in the history as a failed `Refund` line.
#[derive(Debug, Clone)]
pub(crate) struct FailedRefund {
    pub amount: i64,
    pub code: &'static str,
    /// How many book entries the order had when it was refused.
    pub after: usize,
    /// The date it was refused on (the day history lists it, refused).
    pub date: paygate_domain::daily::BusinessDay,
}

/// What only the PayFor simulator keeps: the refused refunds its histories list, and what
/// its inquiry shows ([`SimCredentials::inquiry_shows_latest`]).
#[derive(Default)]
pub(crate) struct Notes {
    pub failed: OrderNotes<FailedRefund>,
    pub inquiry_shows_latest: bool,
}

/// The simulator: the kit's state, the users, and its [`Notes`].
pub(crate) type PayFor = sim::Sim<SimClient, Notes>;

/// Starts the simulator on a free loopback port. Accounts use `<server.url>/Gateway/
/// XMLGate.aspx` as their `endpointUrl`.
pub async fn start(credentials: SimCredentials) -> std::io::Result<(SimServer, Arc<SimState>)> {
    sim::host(true, |state| router(state, credentials)).await
}

/// The simulator's routes over `state` (for hosting it in another server).
pub fn router(state: Arc<SimState>, credentials: SimCredentials) -> Router {
    let api = Router::new().route(API_PATH, post(api));
    let notes = Notes {
        inquiry_shows_latest: credentials.inquiry_shows_latest,
        ..Notes::default()
    };
    PayFor::routes(state, credentials.clients, notes, api, &["", API_PATH])
}

fn xml_response(answer: &Answer) -> Response {
    sim::respond(wire::CONTENT_TYPE, answer.to_bytes())
}

/// PayFor's answer to a request it could not process.
fn technical_error() -> Answer {
    Answer::money("V036", "Sistem hatası", "", "", "")
}

async fn api(State(sim): State<Arc<PayFor>>, body: Bytes) -> Response {
    let sim = &*sim;
    let technical = || xml_response(&technical_error());
    sim::serve_request(&sim.state, technical, || match wire::read_request(&body) {
        Ok(req)
            if req.text_at(&["SecureType"]).map(str::trim) == Some("NonSecure")
                && matches!(
                    req.text_at(&["TxnType"]).map(str::trim),
                    Some("PostAuth" | "Void" | "Refund")
                ) =>
        {
            Served::Money(move || xml_response(&rules::handle(sim, &req)))
        }
        Ok(req) => {
            let answer = rules::handle(sim, &req);
            tracing::debug!(
                merchant_id = req.text_at(&["MerchantId"]).unwrap_or(""),
                kind = req.text_at(&["TxnType"]).unwrap_or(""),
                code = answer.code(),
                "payfor sim request"
            );
            Served::Answer(xml_response(&answer))
        }
        Err(WireError(why)) => {
            tracing::debug!(error = %why, "payfor sim refused an unreadable request");
            Served::Answer(xml_response(&Answer::money(
                "M002",
                "Geçersiz istek.",
                "",
                "",
                "",
            )))
        }
    })
    .await
}
