//! A Param TurkPOS simulator (feature `sim`): `POST /turkpos.ws/service_turkpos_prod.asmx`
//! speaks the SOAP methods the adapter sends, in UTF-8 like the service, on the kit's order
//! book with Param's rules (`OrderBook::new(true)`: an `IADE` on the sale's own day is refused
//! with `-213`, an `IPTAL` after it with `-214`, an `IPTAL` for less than the whole amount with
//! `-1`; see `rules`). Strict: malformed XML, a body that is not UTF-8, another namespace,
//! wrong credentials, unknown orders and unreadable amounts are refused.
//!
//! Admin routes (test helper, local stack), at the root and under the service path:
//! - `POST /_sim/orders` — `{"clientCode", "orderId", "amount", "currency", "state",
//!   "settled"}`; `409` for a duplicate order id.
//! - `POST /_sim/end-of-day` — moves the service past its end-of-day cut.
//! - `POST /_sim/faults` — `{"latencyMs", "technicalErrors", "dropAfterProcessing",
//!   "dropBeforeProcessing"}`.
//!
//! Faults: latency is served *after* processing; a technical error answers `Sonuc -207`
//! ("System Error"). The kit's money-request fault plan applies to
//! `TP_Islem_Odeme_OnProv_Kapa`, `TP_Islem_Iptal_OnProv` and `TP_Islem_Iptal_Iade_Kismi2`.

mod rules;
mod wire;

use std::sync::Arc;

use paygate_bankkit::sim::{self, prelude::*, Secret, Served, SimServer, SimState, SimUser};

pub use rules::{dt_bilgi, CANCEL_AFTER_DAY, NOT_FOUND, REFUND_SAME_DAY};
pub use wire::{read_request, Answer, Fields, WireError};

use crate::API_PATH;

/// An account the simulated service accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimClient {
    pub client_code: String,
    pub client_username: String,
    pub client_password: Secret,
    pub guid: Secret,
}

impl SimUser for SimClient {
    const CLIENT_FIELD: &'static str = "clientCode";

    fn client(&self) -> &str {
        &self.client_code
    }
}

/// The accounts the simulator accepts: all four values must match one exactly (else `-100`).
#[derive(Debug, Clone, Default)]
pub struct SimCredentials {
    pub clients: Vec<SimClient>,
}

impl SimCredentials {
    /// Adds an account.
    pub fn with(mut self, code: &str, username: &str, password: &str, guid: &str) -> Self {
        self.clients.push(SimClient {
            client_code: code.to_owned(),
            client_username: username.to_owned(),
            client_password: password.into(),
            guid: guid.into(),
        });
        self
    }
}

/// The simulator: the kit's state and the accounts.
pub(crate) type ParamSim = sim::Sim<SimClient>;

/// Starts the simulator on a free loopback port. Accounts use `<server.url>/turkpos.ws/
/// service_turkpos_prod.asmx` as their `endpointUrl`.
pub async fn start(credentials: SimCredentials) -> std::io::Result<(SimServer, Arc<SimState>)> {
    sim::host(true, |state| router(state, credentials)).await
}

/// The simulator's routes over `state` (for hosting it in another server).
pub fn router(state: Arc<SimState>, credentials: SimCredentials) -> Router {
    let api = Router::new().route(API_PATH, post(api));
    ParamSim::routes(state, credentials.clients, (), api, &["", API_PATH])
}

fn soap_response(answer: &Answer) -> Response {
    sim::respond(wire::CONTENT_TYPE, answer.to_bytes())
}

/// Param's answer to a request it could not process (`-207` System Error), in the shape of
/// the method asked for when it can be told.
fn technical_error(method: &str) -> Answer {
    rules::money(method, ("-207", "System Error"), None)
}

async fn api(State(sim): State<Arc<ParamSim>>, body: Bytes) -> Response {
    let sim = &*sim;
    let method = wire::read_request(&body)
        .map(|(m, _)| m)
        .unwrap_or_else(|_| "TP_Islem_Iptal_Iade_Kismi2".to_owned());
    let technical = || soap_response(&technical_error(&method));
    sim::serve_request(&sim.state, technical, || match wire::read_request(&body) {
        Ok((method, req)) if rules::MONEY.contains(&method.as_str()) => {
            Served::Money(move || soap_response(&rules::handle(sim, &method, &req)))
        }
        Ok((method, req)) => {
            let answer = rules::handle(sim, &method, &req);
            tracing::debug!(
                client_code = req.text_at(&["G", "CLIENT_CODE"]).unwrap_or(""),
                method = %method,
                code = answer.code(),
                "parampos sim request"
            );
            Served::Answer(soap_response(&answer))
        }
        Err(WireError(why)) => {
            tracing::debug!(error = %why, "parampos sim refused an unreadable request");
            Served::Answer(soap_response(&Answer::Fault(why)))
        }
    })
    .await
}
