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
//! Faults: a technical error is HTTP 503 (nothing applied); the kit's money-request fault
//! plan applies to `1005`, `1003` and `1002`; a late booking hides the order from the next
//! history read (`VPS-1123`).

mod rules;
mod wire;

use std::sync::Arc;

use axum::{
    body::Bytes,
    extract::State,
    http::{header, HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    routing::post,
    Router,
};
use paygate_bankkit::sim::{self, SimServer, SimState};

pub use wire::{read_request, WireError};

use crate::{request::txn, API_PATH, PROCESS_PATH};

/// A terminal the simulated bank knows.
#[derive(Clone, PartialEq, Eq)]
pub struct SimTerminal {
    pub merchant_safe_id: String,
    pub terminal_safe_id: String,
    pub secret_key: String,
}

impl std::fmt::Debug for SimTerminal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimTerminal")
            .field("merchant_safe_id", &self.merchant_safe_id)
            .field("terminal_safe_id", &self.terminal_safe_id)
            .finish_non_exhaustive()
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
            secret_key: secret_key.to_owned(),
        });
        self
    }
}

pub(crate) struct AkbankSim {
    pub state: Arc<SimState>,
    terminals: Vec<SimTerminal>,
}

/// Starts the simulator on a free loopback port. Accounts use `<server.url><API_PATH>` as
/// their `endpointUrl`.
pub async fn start(credentials: SimCredentials) -> std::io::Result<(SimServer, Arc<SimState>)> {
    sim::host(false, |state| router(state, credentials)).await
}

/// The simulator's routes over `state`.
pub fn router(state: Arc<SimState>, credentials: SimCredentials) -> Router {
    let sim = Arc::new(AkbankSim {
        state,
        terminals: credentials.terminals,
    });
    let router = Router::new().route(&format!("{API_PATH}{PROCESS_PATH}"), post(api));
    sim::admin_routes(router, &["", API_PATH]).with_state(sim)
}

impl sim::Host for AkbankSim {
    fn sim_state(&self) -> &SimState {
        &self.state
    }
}

impl sim::Clients for AkbankSim {
    const CLIENT_FIELD: &'static str = "terminalSafeId";

    fn knows(&self, terminal: &str) -> bool {
        self.terminals
            .iter()
            .any(|t| t.terminal_safe_id == terminal)
    }
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
    sim::serve_counted(sim.state.take_fault(), technical, async {
        let given = headers
            .get(crate::hash::HEADER)
            .and_then(|v| v.to_str().ok());
        match wire::read_request(&sim.terminals, given, &body) {
            Err(WireError(why)) => {
                tracing::debug!(error = %why, "akbankpos sim refused a request");
                problem(StatusCode::BAD_REQUEST, &why)
            }
            Ok((t, req)) => {
                let code = crate::response::text(&req, &["txnCode"]);
                let terminal_id = t.terminal_safe_id.clone();
                match code.as_str() {
                    txn::POST_AUTH | txn::VOID | txn::REFUND => {
                        sim::serve_money(&sim.state, technical, || {
                            json(StatusCode::OK, rules::handle(&sim, &terminal_id, &req))
                        })
                        .await
                    }
                    txn::ORDER_HISTORY => {
                        json(StatusCode::OK, rules::handle(&sim, &terminal_id, &req))
                    }
                    _ => problem(StatusCode::BAD_REQUEST, "unsupported txnCode"),
                }
            }
        }
    })
    .await
}
