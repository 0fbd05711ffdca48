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
//! Faults: latency is served *after* processing; a technical error answers `V036`
//! ("Sistem hatası"). The kit's money-request fault plan applies to `PostAuth`, `Void` and
//! `Refund`.

mod rules;
mod wire;

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use axum::{
    body::Bytes,
    extract::State,
    http::header,
    response::{IntoResponse, Response},
    routing::post,
    Router,
};
use paygate_bankkit::sim::{self, SimServer, SimState};

pub use rules::{parapuan_of, PARAPUAN_BINS};
pub use wire::{read_request, Answer, WireError};

use crate::API_PATH;

/// An API user the simulated bank accepts.
#[derive(Clone, PartialEq, Eq)]
pub struct SimClient {
    pub mbr_id: String,
    pub merchant_id: String,
    pub user_code: String,
    pub user_pass: String,
}

impl std::fmt::Debug for SimClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimClient")
            .field("mbr_id", &self.mbr_id)
            .field("merchant_id", &self.merchant_id)
            .field("user_code", &self.user_code)
            .finish_non_exhaustive()
    }
}

/// The credentials the simulator accepts: all four values must match one user exactly
/// (else `V001`).
#[derive(Debug, Clone, Default)]
pub struct SimCredentials {
    pub clients: Vec<SimClient>,
}

impl SimCredentials {
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
            user_pass: user_pass.to_owned(),
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
}

/// The simulator: the kit's state plus what only PayFor keeps.
pub(crate) struct PayFor {
    pub state: Arc<SimState>,
    clients: Vec<SimClient>,
    failed: Mutex<HashMap<(String, String), Vec<FailedRefund>>>,
}

impl PayFor {
    fn client(&self, mbr: &str, merchant: &str, user: &str, pass: &str) -> Option<&SimClient> {
        self.clients.iter().find(|c| {
            c.mbr_id == mbr
                && c.merchant_id == merchant
                && c.user_code == user
                && c.user_pass == pass
        })
    }

    fn failed(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), Vec<FailedRefund>>> {
        self.failed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn record_failed_refund(&self, merchant: &str, order: &str, amount: i64, code: &'static str) {
        let after = self
            .state
            .book()
            .get(merchant, order)
            .map(|o| o.history.len())
            .unwrap_or(0);
        self.failed()
            .entry((merchant.to_owned(), order.to_owned()))
            .or_default()
            .push(FailedRefund {
                amount,
                code,
                after,
            });
    }

    fn failed_refunds(&self, merchant: &str, order: &str) -> Vec<FailedRefund> {
        self.failed()
            .get(&(merchant.to_owned(), order.to_owned()))
            .cloned()
            .unwrap_or_default()
    }
}

/// Starts the simulator on a free loopback port. Accounts use `<server.url>/Gateway/
/// XMLGate.aspx` as their `endpointUrl`.
pub async fn start(credentials: SimCredentials) -> std::io::Result<(SimServer, Arc<SimState>)> {
    sim::host(true, |state| router(state, credentials)).await
}

/// The simulator's routes over `state` (for hosting it in another server).
pub fn router(state: Arc<SimState>, credentials: SimCredentials) -> Router {
    let sim = Arc::new(PayFor {
        state,
        clients: credentials.clients,
        failed: Mutex::new(HashMap::new()),
    });
    let router = Router::new().route(API_PATH, post(api));
    sim::admin_routes(router, &["", API_PATH]).with_state(sim)
}

impl sim::Host for PayFor {
    fn sim_state(&self) -> &SimState {
        &self.state
    }
}

impl sim::Clients for PayFor {
    const CLIENT_FIELD: &'static str = "merchantId";

    fn knows(&self, merchant: &str) -> bool {
        self.clients.iter().any(|c| c.merchant_id == merchant)
    }
}

fn xml_response(answer: &Answer) -> Response {
    (
        [(header::CONTENT_TYPE, wire::CONTENT_TYPE)],
        answer.to_bytes(),
    )
        .into_response()
}

/// PayFor's answer to a request it could not process.
fn technical_error() -> Answer {
    Answer::money("V036", "Sistem hatası", "", "", "")
}

async fn api(State(sim): State<Arc<PayFor>>, body: Bytes) -> Response {
    let technical = || xml_response(&technical_error());
    sim::serve_counted(sim.state.take_fault(), technical, async {
        match wire::read_request(&body) {
            Ok(req)
                if req.text_at(&["SecureType"]).map(str::trim) == Some("NonSecure")
                    && matches!(
                        req.text_at(&["TxnType"]).map(str::trim),
                        Some("PostAuth" | "Void" | "Refund")
                    ) =>
            {
                // A money request: the fault plan decides what happens to it.
                sim::serve_money(&sim.state, technical, || {
                    xml_response(&rules::handle(&sim, &req))
                })
                .await
            }
            Ok(req) => {
                let answer = rules::handle(&sim, &req);
                tracing::debug!(
                    merchant_id = req.text_at(&["MerchantId"]).unwrap_or(""),
                    kind = req.text_at(&["TxnType"]).unwrap_or(""),
                    code = answer.code(),
                    "payfor sim request"
                );
                xml_response(&answer)
            }
            Err(WireError(why)) => {
                tracing::debug!(error = %why, "payfor sim refused an unreadable request");
                xml_response(&Answer::money("M002", "Geçersiz istek.", "", "", ""))
            }
        }
    })
    .await
}
