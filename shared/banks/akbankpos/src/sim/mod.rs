//! An Akbank POS simulator (feature `sim`): `POST <API_PATH>/transaction/process` speaks the
//! JSON protocol on the kit's order book (`OrderBook::new(false)`: refunds are not refused
//! before the end-of-day cut — no source shows Akbank refusing them; a void after the cut
//! is refused with `VPS-1007`; a void of a captured pre-authorization reverses the capture
//! only). Every request's `auth-hash` is checked against its terminal's secret key; a wrong
//! or missing one, an unknown terminal or a malformed body is HTTP 400 `{code, message}`
//! (nothing applied).
//!
//! Admin routes (test helper, local stack), at the root and under the API base:
//! - `POST /_sim/orders` — `{"terminalSafeId", "orderId", "amount", "currency", "state",
//!   "settled"}`; `409` for a duplicate order id.
//! - `POST /_sim/end-of-day`, `POST /_sim/faults` (as the other simulators).
//!
//! `POST <API_PATH>/portal/report/transaction` answers the date-range report (at most a day)
//! from the book's dated history (`report`); a range that is unreadable or longer is HTTP 400.
//!
//! Faults: a technical error is HTTP 503 (nothing applied); the kit's money-request fault
//! plan applies to `1005`, `1003` and `1002`; a late booking hides the order from the next
//! history read (`VPS-1123`).

mod report;
mod rules;
mod wire;

use std::sync::Arc;

use paygate_bankkit::sim::{self, prelude::*, Secret, Served, SimServer, SimState, SimUser};

pub use wire::{read_request, WireError};

use crate::{request::txn, API_PATH, PROCESS_PATH, REPORT_PATH};

/// A terminal the simulated bank knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimTerminal {
    pub merchant_safe_id: String,
    pub terminal_safe_id: String,
    pub secret_key: Secret,
}

impl SimUser for SimTerminal {
    const CLIENT_FIELD: &'static str = "terminalSafeId";

    fn client(&self) -> &str {
        &self.terminal_safe_id
    }
}

/// The terminals the simulator accepts.
#[derive(Debug, Clone, Default)]
pub struct SimCredentials {
    pub terminals: Vec<SimTerminal>,
}

impl SimCredentials {
    pub fn with(
        mut self,
        merchant_safe_id: &str,
        terminal_safe_id: &str,
        secret_key: &str,
    ) -> Self {
        self.terminals.push(SimTerminal {
            merchant_safe_id: merchant_safe_id.to_owned(),
            terminal_safe_id: terminal_safe_id.to_owned(),
            secret_key: secret_key.into(),
        });
        self
    }
}

/// The simulator's state: the kit's, and the terminals.
pub(crate) type AkbankSim = sim::Sim<SimTerminal>;

/// Starts the simulator on a free loopback port. Accounts use `<server.url><API_PATH>` as
/// their `endpointUrl`.
pub async fn start(credentials: SimCredentials) -> std::io::Result<(SimServer, Arc<SimState>)> {
    sim::host(false, |state| router(state, credentials)).await
}

/// The simulator's routes over `state`.
pub fn router(state: Arc<SimState>, credentials: SimCredentials) -> Router {
    let api = Router::new()
        .route(&format!("{API_PATH}{PROCESS_PATH}"), post(api))
        .route(&format!("{API_PATH}{REPORT_PATH}"), post(report_route));
    AkbankSim::routes(state, credentials.terminals, (), api, &["", API_PATH])
}

fn json(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn problem(status: StatusCode, message: &str) -> Response {
    let body = crate::request::Obj::default()
        .raw("code", status.as_u16().to_string())
        .str("message", message)
        .finish();
    json(status, body)
}

fn technical() -> Response {
    problem(StatusCode::SERVICE_UNAVAILABLE, "Sistem hatası")
}

async fn api(State(sim): State<Arc<AkbankSim>>, headers: HeaderMap, body: Bytes) -> Response {
    let sim = &*sim;
    sim::serve_request(&sim.state, technical, || {
        let given = headers
            .get(crate::hash::HEADER)
            .and_then(|v| v.to_str().ok());
        match wire::read_request(&sim.users, given, &body) {
            Err(WireError(why)) => {
                tracing::debug!(error = %why, "akbankpos sim refused a request");
                Served::Answer(problem(StatusCode::BAD_REQUEST, &why))
            }
            Ok((t, req)) => {
                let code = crate::response::text(&req, &["txnCode"]);
                let terminal_id = t.terminal_safe_id.clone();
                let process = move || json(StatusCode::OK, rules::handle(sim, &terminal_id, &req));
                match code.as_str() {
                    txn::POST_AUTH | txn::VOID | txn::REFUND => Served::Money(process),
                    txn::ORDER_HISTORY => Served::Answer(process()),
                    _ => Served::Answer(problem(StatusCode::BAD_REQUEST, "unsupported txnCode")),
                }
            }
        }
    })
    .await
}

async fn report_route(
    State(sim): State<Arc<AkbankSim>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let sim = &*sim;
    sim::serve_request(&sim.state, technical, || -> Served<fn() -> Response> {
        let given = headers
            .get(crate::hash::HEADER)
            .and_then(|v| v.to_str().ok());
        match wire::read_report(&sim.users, given, &body) {
            Err(WireError(why)) => Served::Answer(problem(StatusCode::BAD_REQUEST, &why)),
            Ok((t, req, range)) => Served::Answer(json(
                StatusCode::OK,
                report::answer(sim, &t.terminal_safe_id, &req, range),
            )),
        }
    })
    .await
}
