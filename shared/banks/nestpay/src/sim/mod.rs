//! A Nestpay bank simulator (feature `sim`): `POST /fim/api` speaks `CC5Request` /
//! `CC5Response` in ISO-8859-9 like the bank, on the kit's order book with Nestpay's rules
//! (`OrderBook::new(true)`: a refund before the end-of-day cut is refused with `CORE-2508`, a
//! void after it is refused). Strict: malformed XML, encodings that contradict the document's
//! declaration (where detectable), wrong credentials, unknown orders, refunds above the
//! remaining amount, voids of refunded or settled sales, currency mismatches and unparsable
//! amounts are all refused with Nestpay's codes (see `rules`).
//!
//! Admin routes (test helper, local stack), at the root and under `/fim/api`:
//! - `POST /_sim/orders` — `{"clientId", "orderId", "amount", "currency", "state", "settled"}`
//!   (a [`TestOrder`](paygate_domain::ports::TestOrder) plus the client id); `409` for a duplicate order id.
//! - `POST /_sim/end-of-day` — moves the bank past its end-of-day cut.
//! - `POST /_sim/faults` — `{"latencyMs", "technicalErrors", "dropAfterProcessing",
//!   "dropBeforeProcessing"}`.
//!
//! Faults: latency is served *after* processing (a client that times out leaves the
//! operation applied, as a real bank would); a technical error answers `CORE-1001`.

mod history;
mod rules;
mod wire;

use std::sync::{Arc, Mutex};

use paygate_bankkit::sim::{
    self, prelude::*, OrderNotes, Secret, Served, SimServer, SimState, SimUser,
};

pub use rules::{maxipuan_of, MAXIMUM_BINS};
pub use wire::{read_request, Answer, WireError};

use crate::API_PATH;

/// An API user the simulated bank accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimClient {
    pub client_id: String,
    pub name: String,
    pub password: Secret,
    /// Whether the bank lets this store ask `MAXIPUANSORGU` (else `CORE-2202`).
    pub points_inquiry: bool,
}

impl SimUser for SimClient {
    const CLIENT_FIELD: &'static str = "clientId";
    const DUPLICATE: &'static str = "CORE-2507 Order has already successful transaction.";

    fn client(&self) -> &str {
        &self.client_id
    }
}

/// The credentials the simulator accepts: `Name`, `Password` and `ClientId` must match one
/// client exactly (else `CORE-2201`); and how the bank voids a captured pre-authorization.
#[derive(Debug, Clone, Default)]
pub struct SimCredentials {
    pub clients: Vec<SimClient>,
    /// A `Void` of a captured pre-authorization reverses the `PostAuth` alone and leaves the
    /// pre-authorization open (`TRANS_STAT A`; a second `Void` releases it). Off (default):
    /// one `Void` voids the whole order. Which one Nestpay does is not documented (README);
    /// the adapter must hold in both.
    pub void_reverses_capture_only: bool,
}

impl SimCredentials {
    /// Voids of a captured pre-authorization reverse the capture alone
    /// ([`Self::void_reverses_capture_only`]).
    pub fn voiding_captures_alone(mut self) -> Self {
        self.void_reverses_capture_only = true;
        self
    }

    /// One client without points inquiry.
    pub fn single(client_id: &str, name: &str, password: &str) -> Self {
        Self::default().with(client_id, name, password, false)
    }

    /// Adds a client.
    pub fn with(
        mut self,
        client_id: &str,
        name: &str,
        password: &str,
        points_inquiry: bool,
    ) -> Self {
        self.clients.push(SimClient {
            client_id: client_id.to_owned(),
            name: name.to_owned(),
            password: password.into(),
            points_inquiry,
        });
        self
    }
}

/// A refund the bank refused; it shows in the order history as `C D … 99`.
#[derive(Debug, Clone)]
pub(crate) struct FailedRefund {
    pub amount: i64,
    pub trans_id: String,
    pub day: u32,
    /// How many book entries the order had when it was refused.
    pub after: usize,
    pub seq: u64,
}

/// What only the Nestpay simulator keeps: the refused refunds its histories list, the
/// sequence of its transaction ids, and how it voids a captured pre-authorization.
#[derive(Default)]
pub(crate) struct Notes {
    failed: OrderNotes<FailedRefund>,
    seq: Mutex<u64>,
    void_reverses_capture_only: bool,
}

/// The simulator: the kit's state, the clients, and what only Nestpay keeps.
pub(crate) type Nestpay = sim::Sim<SimClient, Notes>;

impl Notes {
    fn next_seq(&self) -> u64 {
        let mut s = self
            .seq
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *s += 1;
        *s
    }

    fn next_trans_id(&self, day: u32) -> String {
        format!("{}T{:09}", 24_000 + day, self.next_seq())
    }

    /// Notes a refused refund of the order as the history will list it.
    fn record_failed_refund(
        &self,
        state: &SimState,
        client: &str,
        order: &str,
        amount: i64,
        trans_id: &str,
    ) {
        let (day, after) = {
            let book = state.book();
            (
                book.today(),
                book.get(client, order)
                    .map(|o| o.history.len())
                    .unwrap_or(0),
            )
        };
        let refund = FailedRefund {
            amount,
            trans_id: trans_id.to_owned(),
            day,
            after,
            seq: self.next_seq(),
        };
        self.failed.add(client, order, refund);
    }
}

/// Starts the simulator on a free loopback port. Accounts use `<server.url>/fim/api` as
/// their `endpointUrl`.
pub async fn start(credentials: SimCredentials) -> std::io::Result<(SimServer, Arc<SimState>)> {
    sim::host(true, |state| router(state, credentials)).await
}

/// The simulator's routes over `state` (for hosting it in another server).
pub fn router(state: Arc<SimState>, credentials: SimCredentials) -> Router {
    let api = Router::new().route(API_PATH, post(api));
    let notes = Notes {
        void_reverses_capture_only: credentials.void_reverses_capture_only,
        ..Notes::default()
    };
    Nestpay::routes(state, credentials.clients, notes, api, &["", API_PATH])
}

fn xml_response(answer: &Answer) -> Response {
    sim::respond(wire::CONTENT_TYPE, answer.to_bytes())
}

async fn api(State(sim): State<Arc<Nestpay>>, headers: HeaderMap, body: Bytes) -> Response {
    let sim = &*sim;
    let technical = || xml_response(&technical_error(sim, sim.state.book().today()));
    sim::serve_request(&sim.state, technical, || {
        let content_type = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok());
        match wire::read_request(content_type, &body) {
            Ok(req)
                if matches!(
                    req.text_at(&["Type"]).map(str::trim),
                    Some("PostAuth" | "Void" | "Credit")
                ) =>
            {
                Served::Money(move || xml_response(&rules::handle(sim, &req)))
            }
            Ok(req) => {
                let answer = rules::handle(sim, &req);
                tracing::debug!(
                    client_id = req.text_at(&["ClientId"]).unwrap_or(""),
                    kind = req.text_at(&["Type"]).unwrap_or("query"),
                    code = answer.proc_return_code.as_str(),
                    "nestpay sim request"
                );
                Served::Answer(xml_response(&answer))
            }
            Err(WireError(why)) => {
                tracing::debug!(error = %why, "nestpay sim refused an unreadable request");
                let day = sim.state.book().today();
                Served::Answer(xml_response(&system_error(
                    sim,
                    day,
                    "CORE-2014",
                    "Invalid request detected. Please, control the request xml.",
                )))
            }
        }
    })
    .await
}

/// Nestpay's answer to a request it could not process (a technical error, fault plan).
fn technical_error(sim: &Nestpay, day: u32) -> Answer {
    system_error(sim, day, "CORE-1001", "General initialization error")
}

/// An `Error` answer with no order: Nestpay's code and message for it.
fn system_error(sim: &Nestpay, day: u32, code: &str, message: &str) -> Answer {
    Answer::refused(
        "Error",
        "",
        code,
        message,
        &sim.extra.next_trans_id(day),
        &rules::trxdate(day),
    )
}
