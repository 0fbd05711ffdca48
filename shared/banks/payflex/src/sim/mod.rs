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
//!   "settled"}` (a [`TestOrder`](paygate_domain::ports::TestOrder) plus the merchant id); `409` for a duplicate order id.
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

use std::sync::Arc;

use paygate_bankkit::sim::{self, prelude::*, Secret, Served, SimServer, SimState, SimUser};

pub use rules::parse_amount;
pub use wire::{order_lines, rrn_of, transaction_id, VposAnswer, WireError};

use crate::config::{SEARCH_PATH, VPOS_PATH};

/// A merchant the simulated bank knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimMerchant {
    pub merchant_id: String,
    pub password: Secret,
    pub terminal_no: String,
}

impl SimUser for SimMerchant {
    const CLIENT_FIELD: &'static str = "merchantId";

    fn client(&self) -> &str {
        &self.merchant_id
    }
}

/// The merchants the simulator accepts, and how it treats the cancel of a capture.
#[derive(Debug, Clone, Default)]
pub struct SimCredentials {
    pub merchants: Vec<SimMerchant>,
    /// A `Cancel` referencing a pre-authorization's capture cancels the capture alone and
    /// leaves the pre-authorization open (a second `Cancel` referencing the `Auth` releases
    /// it). Off (default): the cancel of a capture releases the whole order. Which one the
    /// bank does is not documented (README); the adapter must hold in both.
    pub capture_cancel_only: bool,
}

impl SimCredentials {
    /// Cancels of a capture leave the pre-authorization open ([`Self::capture_cancel_only`]).
    pub fn cancelling_captures_alone(mut self) -> Self {
        self.capture_cancel_only = true;
        self
    }

    /// Adds a merchant.
    pub fn with(mut self, merchant_id: &str, password: &str, terminal_no: &str) -> Self {
        self.merchants.push(SimMerchant {
            merchant_id: merchant_id.to_owned(),
            password: password.into(),
            terminal_no: terminal_no.to_owned(),
        });
        self
    }
}

/// How this simulated bank behaves where banks differ (see [`SimCredentials`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Variant {
    pub capture_cancel_only: bool,
}

/// The simulator's state: the kit's, the merchants, and its [`Variant`].
pub type PayFlexSim = sim::Sim<SimMerchant, Variant>;

/// Starts the simulator on a free loopback port. Accounts use `<server.url>` +
/// [`VPOS_PATH`] as their `endpointUrl` (the search URL is derived).
pub async fn start(credentials: SimCredentials) -> std::io::Result<(SimServer, Arc<SimState>)> {
    sim::host(false, |state| router(state, credentials)).await
}

/// The simulator's routes over `state`.
pub fn router(state: Arc<SimState>, credentials: SimCredentials) -> Router {
    let api = Router::new()
        .route(VPOS_PATH, post(vpos))
        .route(SEARCH_PATH, post(search));
    let variant = Variant {
        capture_cancel_only: credentials.capture_cancel_only,
    };
    PayFlexSim::routes(state, credentials.merchants, variant, api, &[""])
}

/// The merchant whose id and password these are.
fn merchant<'s>(sim: &'s PayFlexSim, id: &str, password: &str) -> Option<&'s SimMerchant> {
    sim.user(|m| m.merchant_id == id && m.password.matches(password))
}

fn xml_response(body: Vec<u8>) -> Response {
    sim::respond(wire::CONTENT_TYPE, body)
}

fn content_type(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
}

async fn vpos(State(sim): State<Arc<PayFlexSim>>, headers: HeaderMap, body: Bytes) -> Response {
    let sim = &*sim;
    let technical =
        || xml_response(VposAnswer::refused(rules::TECHNICAL.0, rules::TECHNICAL.1).to_bytes());
    sim::serve_request(&sim.state, technical, || {
        match wire::read_request(content_type(&headers), &body, "VposRequest") {
            Err(WireError(why)) => {
                tracing::debug!(error = %why, "payflex sim refused an unreadable request");
                Served::Answer(xml_response(
                    VposAnswer::refused(rules::UNREADABLE.0, rules::UNREADABLE.1).to_bytes(),
                ))
            }
            Ok(req) => match rules::authenticate(sim, &req) {
                Err(code) => {
                    Served::Answer(xml_response(VposAnswer::refused(code.0, code.1).to_bytes()))
                }
                Ok(merchant) => {
                    let kind = req.text_at(&["TransactionType"]).unwrap_or("").trim();
                    let money = matches!(kind, "Capture" | "Cancel" | "Refund");
                    let process =
                        move || xml_response(rules::handle(sim, merchant, &req).to_bytes());
                    if money {
                        Served::Money(process)
                    } else {
                        Served::Answer(process())
                    }
                }
            },
        }
    })
    .await
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
    let Some(merchant) = merchant(
        &sim,
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
