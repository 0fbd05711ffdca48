//! A PayFlex V4 bank simulator (feature `sim`): `POST /VposService/v3/Vposreq.aspx` speaks
//! `prmstr=<VposRequest>` / `VposResponse`, `POST /UIService/Search.aspx` speaks
//! `prmstr=<SearchRequest>` and lists the order's transactions, on the kit's order book
//! (`OrderBook::new(false)`: same-day refunds allowed; a cancel after the end-of-day cut is
//! refused `1082`). Strict: a body that is not a `prmstr` form of the right document, wrong
//! credentials, unknown references, amounts above what is left and unparsable amounts are
//! refused with the codes in `rules`.
//!
//! Admin routes (test helper, local stack), at the root:
//! - `POST /_sim/orders` — `{"merchantId", "orderId", "amount", "currency", "state",
//!   "settled"}` (a [`TestOrder`] plus the merchant id); `409` for a duplicate order id.
//! - `POST /_sim/end-of-day` — moves the bank past its end-of-day cut.
//! - `POST /_sim/faults` — `{"latencyMs", "technicalErrors", "dropAfterProcessing",
//!   "dropBeforeProcessing"}`: these counters apply to the **VPOS endpoint only**; the search
//!   service is a separate service and answers regardless (so a capture's lookup works and
//!   its `Capture` meets the fault).
//!
//! The kit's money-request fault plan (`state.fault_plan()`) applies to `Capture`, `Cancel`
//! and `Refund`; a late booking hides the order from the next search (no line). The ledger
//! is keyed by (`MerchantId`, order id).

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

pub use rules::parse_amount;
pub use wire::{order_lines, rrn_of, transaction_id, VposAnswer, WireError};

use crate::config::{SEARCH_PATH, VPOS_PATH};

/// A merchant the simulated bank knows.
#[derive(Clone, PartialEq, Eq)]
pub struct SimMerchant {
    pub merchant_id: String,
    pub password: String,
    pub terminal_no: String,
}

impl std::fmt::Debug for SimMerchant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimMerchant")
            .field("merchant_id", &self.merchant_id)
            .field("terminal_no", &self.terminal_no)
            .finish_non_exhaustive()
    }
}

/// The merchants the simulator accepts.
#[derive(Debug, Clone, Default)]
pub struct SimCredentials {
    pub merchants: Vec<SimMerchant>,
}

impl SimCredentials {
    /// Adds a merchant.
    pub fn with(mut self, merchant_id: &str, password: &str, terminal_no: &str) -> Self {
        self.merchants.push(SimMerchant {
            merchant_id: merchant_id.to_owned(),
            password: password.to_owned(),
            terminal_no: terminal_no.to_owned(),
        });
        self
    }
}

/// The simulator's state.
pub struct PayFlexSim {
    pub state: Arc<SimState>,
    merchants: Vec<SimMerchant>,
}

impl PayFlexSim {
    fn merchant(&self, id: &str, password: &str) -> Option<&SimMerchant> {
        self.merchants
            .iter()
            .find(|m| m.merchant_id == id && m.password == password)
    }
}

/// Starts the simulator on a free loopback port. Accounts use `<server.url>` +
/// [`VPOS_PATH`] as their `endpointUrl` (the search URL is derived).
pub async fn start(credentials: SimCredentials) -> std::io::Result<(SimServer, Arc<SimState>)> {
    let state = SimState::new(false);
    let server = SimServer::start(router(state.clone(), credentials)).await?;
    Ok((server, state))
}

/// The simulator's routes over `state`.
pub fn router(state: Arc<SimState>, credentials: SimCredentials) -> Router {
    let sim = Arc::new(PayFlexSim {
        state,
        merchants: credentials.merchants,
    });
    Router::new()
        .route(VPOS_PATH, post(vpos))
        .route(SEARCH_PATH, post(search))
        .route("/_sim/orders", post(admin_order))
        .route("/_sim/end-of-day", post(admin_end_of_day))
        .route("/_sim/faults", post(admin_faults))
        .with_state(sim)
}

fn xml_response(body: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, wire::CONTENT_TYPE)], body).into_response()
}

fn content_type(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
}

async fn vpos(State(sim): State<Arc<PayFlexSim>>, headers: HeaderMap, body: Bytes) -> Response {
    let (latency, fault) = sim.state.take_fault();
    if fault == Some(FaultKind::DropBefore) {
        tokio::time::sleep(latency).await;
        return dropped_connection();
    }
    let technical =
        || xml_response(VposAnswer::refused(rules::TECHNICAL.0, rules::TECHNICAL.1).to_bytes());
    let response = if fault == Some(FaultKind::TechnicalError) {
        technical()
    } else {
        match wire::read_request(content_type(&headers), &body, "VposRequest") {
            Err(WireError(why)) => {
                tracing::debug!(error = %why, "payflex sim refused an unreadable request");
                xml_response(
                    VposAnswer::refused(rules::UNREADABLE.0, rules::UNREADABLE.1).to_bytes(),
                )
            }
            Ok(req) => match rules::authenticate(&sim, &req) {
                Err(code) => xml_response(VposAnswer::refused(code.0, code.1).to_bytes()),
                Ok(merchant) => {
                    let kind = req.text_at(&["TransactionType"]).unwrap_or("").trim();
                    if matches!(kind, "Capture" | "Cancel" | "Refund") {
                        serve_money(&sim.state, technical, || {
                            xml_response(rules::handle(&sim, merchant, &req).to_bytes())
                        })
                        .await
                    } else {
                        xml_response(rules::handle(&sim, merchant, &req).to_bytes())
                    }
                }
            },
        }
    };
    // Latency after processing: a client that gives up leaves the operation applied.
    tokio::time::sleep(latency).await;
    if fault == Some(FaultKind::DropAfter) {
        return dropped_connection();
    }
    response
}

async fn search(State(sim): State<Arc<PayFlexSim>>, headers: HeaderMap, body: Bytes) -> Response {
    let req = match wire::read_request(content_type(&headers), &body, "SearchRequest") {
        Ok(r) => r,
        Err(WireError(why)) => {
            tracing::debug!(error = %why, "payflex sim refused an unreadable search");
            return xml_response(wire::search_answer("9001", "İstek okunamadı.", &[]));
        }
    };
    let t = |p: &[&str]| req.text_at(p).unwrap_or("").trim().to_owned();
    let Some(merchant) = sim.merchant(
        &t(&["MerchantCriteria", "HostMerchantId"]),
        &t(&["MerchantCriteria", "MerchantPassword"]),
    ) else {
        return xml_response(wire::search_answer("9065", "Üye isyeri bulunamadi", &[]));
    };
    let order_id = t(&["TransactionCriteria", "OrderId"]);
    if order_id.is_empty() {
        return xml_response(wire::search_answer(
            "9002",
            "TransactionId ya da OrderId zorunlu.",
            &[],
        ));
    }
    let ok = |lines: &[String]| xml_response(wire::search_answer("0000", "Succeeded.", lines));
    if sim
        .state
        .fault_plan()
        .take_hidden(&merchant.merchant_id, &order_id)
    {
        // A late booking (fault plan): the first search after it lists nothing.
        return ok(&[]);
    }
    let order = sim
        .state
        .book()
        .get(&merchant.merchant_id, &order_id)
        .cloned();
    match order {
        Some(o) => ok(&order_lines(&merchant.merchant_id, &o)),
        None => ok(&[]),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AdminOrder {
    merchant_id: String,
    #[serde(flatten)]
    order: TestOrder,
}

async fn admin_order(State(sim): State<Arc<PayFlexSim>>, Json(body): Json<AdminOrder>) -> Response {
    if !sim
        .merchants
        .iter()
        .any(|m| m.merchant_id == body.merchant_id)
    {
        return (StatusCode::NOT_FOUND, "unknown merchantId").into_response();
    }
    let o = &body.order;
    let registered = sim.state.book().register(
        &body.merchant_id,
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

async fn admin_end_of_day(State(sim): State<Arc<PayFlexSim>>) -> StatusCode {
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
    State(sim): State<Arc<PayFlexSim>>,
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
