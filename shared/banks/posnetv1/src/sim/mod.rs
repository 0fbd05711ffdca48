//! A PosNet V1 simulator (feature `sim`): `POST <API_PATH>/{Capture,Reverse,Return,
//! TransactionInquiry}` speak the JSON protocol on the kit's order book
//! (`OrderBook::new(true)`: the PosNet rule, a return on the transaction's own business day
//! is refused with `0411`; a reverse after the end-of-day cut with `0211`; a reverse of a
//! captured authorization reverses only the capture, the authorization's own reverse is
//! refused with `0788` while its capture is live). Every request's MAC is checked against its
//! terminal's `encKey`; an unknown merchant/terminal is answered `0148`, a wrong MAC or a
//! malformed body `0150` (nothing applied).
//!
//! Admin routes (test helper, local stack), at the root and under the API path:
//! - `POST /_sim/orders` — `{"terminalNo", "orderId", "amount", "currency", "state",
//!   "settled"}`; `409` for a duplicate order id.
//! - `POST /_sim/end-of-day`, `POST /_sim/faults` (as the other simulators).
//!
//! Faults: the fault counters (`/_sim/faults`) and the kit's fault plan apply to the money
//! requests only (`Capture`, `Reverse`, `Return`): every money operation reads the order
//! first, and that read is never the faulted call (as Posnet aims its faults with `only`).
//! A technical error is `0400 DB ERROR` (nothing applied; the adapter cannot tell, so it is
//! unknown). A late booking hides the order from the next inquiry (`E219`).

mod rules;
mod wire;

use std::sync::Arc;

use paygate_bankkit::sim::{self, prelude::*, Secret, Served, SimServer, SimState, SimUser};

pub use wire::{read_request, WireError};

use crate::API_PATH;

/// A terminal the simulated bank knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimTerminal {
    pub merchant_no: String,
    pub terminal_no: String,
    pub enc_key: Secret,
}

impl SimUser for SimTerminal {
    const CLIENT_FIELD: &'static str = "terminalNo";

    fn client(&self) -> &str {
        &self.terminal_no
    }
}

/// The terminals the simulator accepts.
#[derive(Debug, Clone, Default)]
pub struct SimCredentials {
    pub terminals: Vec<SimTerminal>,
}

impl SimCredentials {
    pub fn with(mut self, merchant_no: &str, terminal_no: &str, enc_key: &str) -> Self {
        self.terminals.push(SimTerminal {
            merchant_no: merchant_no.to_owned(),
            terminal_no: terminal_no.to_owned(),
            enc_key: enc_key.into(),
        });
        self
    }
}

/// The simulator's state: the kit's, and the terminals.
pub(crate) type PosNetV1Sim = sim::Sim<SimTerminal>;

/// Starts the simulator on a free loopback port. Accounts use `<server.url><API_PATH>` as
/// their `endpointUrl`.
pub async fn start(credentials: SimCredentials) -> std::io::Result<(SimServer, Arc<SimState>)> {
    sim::host(true, |state| router(state, credentials)).await
}

/// The paths of the API below [`API_PATH`].
pub const PATHS: [&str; 4] = ["Capture", "Reverse", "Return", "TransactionInquiry"];

/// The simulator's routes over `state`.
pub fn router(state: Arc<SimState>, credentials: SimCredentials) -> Router {
    let mut api = Router::new();
    for path in PATHS {
        api = api.route(
            &format!("{API_PATH}/{path}"),
            post(move |s: State<Arc<PosNetV1Sim>>, body: Bytes| serve(s, path, body)),
        );
    }
    PosNetV1Sim::routes(state, credentials.terminals, (), api, &["", API_PATH])
}

fn json(body: String) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

fn technical() -> Response {
    json(rules::refused(rules::DB_ERROR))
}

async fn serve(State(sim): State<Arc<PosNetV1Sim>>, path: &'static str, body: Bytes) -> Response {
    let sim = &*sim;
    let (t, req) = match wire::read_request(&sim.users, path, &body) {
        Err(WireError(code, why)) => {
            tracing::debug!(error = %why, "posnetv1 sim refused a request");
            return json(rules::refused((code, why)));
        }
        Ok(read) => read,
    };
    let terminal = t.terminal_no.clone();
    if path == "TransactionInquiry" {
        return json(rules::inquiry(sim, &terminal, &req));
    }
    let process = move || json(rules::money(sim, &terminal, path, &req));
    sim::serve_request(&sim.state, technical, || Served::Money(process)).await
}
