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

use std::{sync::Arc, time::Duration};

use axum::{
    body::Bytes,
    extract::State,
    http::{header, HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    routing::post,
    Json, Router,
};
use paygate_bankkit::sim::{
    dropped_connection, serve_money, FaultKind, Faults, Refusal, SimServer, SimState,
};
use paygate_domain::ports::TestOrder;
use serde::Deserialize;

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
    let state = SimState::new(false);
    let server = SimServer::start(router(state.clone(), credentials)).await?;
    Ok((server, state))
}

/// The simulator's routes over `state`.
pub fn router(state: Arc<SimState>, credentials: SimCredentials) -> Router {
    let sim = Arc::new(AkbankSim {
        state,
        terminals: credentials.terminals,
    });
    let mut router = Router::new().route(&format!("{API_PATH}{PROCESS_PATH}"), post(api));
    for prefix in ["", API_PATH] {
        router = router
            .route(&format!("{prefix}/_sim/orders"), post(admin_order))
            .route(&format!("{prefix}/_sim/end-of-day"), post(admin_end_of_day))
            .route(&format!("{prefix}/_sim/faults"), post(admin_faults));
    }
    router.with_state(sim)
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
    let (latency, fault) = sim.state.take_fault();
    if fault == Some(FaultKind::DropBefore) {
        tokio::time::sleep(latency).await;
        return dropped_connection();
    }
    let response = if fault == Some(FaultKind::TechnicalError) {
        technical()
    } else {
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
                        let response = serve_money(&sim.state, technical, || {
                            json(StatusCode::OK, rules::handle(&sim, &terminal_id, &req))
                        })
                        .await;
                        tokio::time::sleep(latency).await;
                        if fault == Some(FaultKind::DropAfter) {
                            return dropped_connection();
                        }
                        return response;
                    }
                    txn::ORDER_HISTORY => {
                        json(StatusCode::OK, rules::handle(&sim, &terminal_id, &req))
                    }
                    _ => problem(StatusCode::BAD_REQUEST, "unsupported txnCode"),
                }
            }
        }
    };
    tokio::time::sleep(latency).await;
    if fault == Some(FaultKind::DropAfter) {
        return dropped_connection();
    }
    response
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AdminOrder {
    terminal_safe_id: String,
    #[serde(flatten)]
    order: TestOrder,
}

async fn admin_order(State(sim): State<Arc<AkbankSim>>, Json(body): Json<AdminOrder>) -> Response {
    if !sim
        .terminals
        .iter()
        .any(|t| t.terminal_safe_id == body.terminal_safe_id)
    {
        return (StatusCode::NOT_FOUND, "unknown terminalSafeId").into_response();
    }
    let o = &body.order;
    let registered = sim.state.book().register(
        &body.terminal_safe_id,
        &o.order_id,
        o.amount,
        o.currency,
        o.state,
        o.settled,
    );
    match registered {
        Ok(()) => StatusCode::CREATED.into_response(),
        Err(Refusal::Duplicate) => (StatusCode::CONFLICT, "duplicate order id").into_response(),
        Err(r) => (StatusCode::BAD_REQUEST, format!("{r:?}")).into_response(),
    }
}

async fn admin_end_of_day(State(sim): State<Arc<AkbankSim>>) -> StatusCode {
    sim.state.book().end_of_day();
    StatusCode::OK
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct FaultsBody {
    latency_ms: u64,
    technical_errors: u32,
    drop_after_processing: u32,
    drop_before_processing: u32,
}

async fn admin_faults(
    State(sim): State<Arc<AkbankSim>>,
    Json(body): Json<FaultsBody>,
) -> StatusCode {
    *sim.state.faults() = Faults {
        latency: Duration::from_millis(body.latency_ms),
        technical_errors: body.technical_errors,
        drop_after_processing: body.drop_after_processing,
        drop_before_processing: body.drop_before_processing,
    };
    StatusCode::OK
}
