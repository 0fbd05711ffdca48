//! A protocol-faithful Posnet simulator (feature `sim`): `POST /PosnetWebService/XML` with an
//! `xmldata` form field holding ISO-8859-9 `posnetRequest` XML, answered with
//! `posnetResponse`, over the kit's order book (refunds need the end-of-day cut, as at YKB:
//! `0411`). Strict like the bank: malformed documents, unknown elements, wrong charset
//! declarations, wrong `mid`/`tid` (and `X-MERCHANT-ID`/`X-TERMINAL-ID` headers that
//! contradict them), malformed fields, unknown references and every rule in [`rules`].
//!
//! Admin routes (not Posnet's): `POST /_sim/orders` (a `TestOrder` plus `mid`; the order id
//! in its 24-character bank form, or the gateway's with `orderIdPrefix`), `POST /_sim/end-of-day`, `POST /_sim/faults` (JSON
//! `{latencyMs, technicalErrors, dropAfterProcessing, dropBeforeProcessing, only}`; `only`
//! names the one operation element the faults hit, e.g. `"capt"`, so the order lookup before
//! a capture can pass while the capture itself is dropped); their bodies are read by
//! [`admin`]. Nothing is logged: requests can carry card numbers.

pub mod admin;
mod parse;
mod render;
pub mod rules;

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use paygate_bankkit::sim::{self, prelude::*, FaultKind, JsonBytes, Refusal, SimServer, SimState};
use serde_json::json;

pub use parse::Op;

use admin::{admin_error, faults_body, order_body, order_fits, SimFaults};

use crate::{codes, wire};

/// The terminal the simulator accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimCredentials {
    pub mid: String,
    pub tid: String,
}

impl Default for SimCredentials {
    /// The reference's test terminal (YKB 3-D document "Sample Data").
    fn default() -> Self {
        Self {
            mid: "6706598320".to_owned(),
            tid: "67005551".to_owned(),
        }
    }
}

#[derive(Clone)]
struct Sim {
    state: Arc<SimState>,
    creds: Arc<SimCredentials>,
    /// The operation faults apply to (`None`: every request).
    only: Arc<Mutex<Option<Op>>>,
}

impl Sim {
    fn take_fault(&self, op: Option<Op>) -> (Duration, Option<FaultKind>) {
        let only = *self
            .only
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match only {
            Some(target) if op != Some(target) => (Duration::ZERO, None),
            _ => self.state.take_fault(),
        }
    }

    /// Reads, checks and runs one request; the encoded answer.
    fn process(&self, headers: &HeaderMap, body: &[u8]) -> Vec<u8> {
        let content_type = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        let request = match parse::parse(content_type, body) {
            Ok(r) => r,
            Err(rejection) => return render::answer(&rejection.into(), false),
        };
        let header_is = |name: &str, expected: &str| {
            headers
                .get(name)
                .is_none_or(|v| v.to_str().is_ok_and(|v| v == expected))
        };
        if request.mid != self.creds.mid
            || request.tid != self.creds.tid
            || !header_is("x-merchant-id", &request.mid)
            || !header_is("x-terminal-id", &request.tid)
        {
            let refusal = rules::Answer::Refused {
                approved: codes::NOT_APPROVED,
                code: codes::INVALID_MID_TID,
                text: "INVALID MID TID IP. Hatalı IP:127.0.0.1".to_owned(),
                host_log_key: String::new(),
                auth_code: String::new(),
            };
            return render::answer(&refusal, false);
        }
        if request.op == Op::Agreement
            && self
                .state
                .fault_plan()
                .take_hidden(&request.mid, request.field("orderID"))
        {
            // A late booking: the first status query after it sees no record.
            return render::answer(&rules::refused(codes::NOT_FOUND), false);
        }
        let answer = rules::handle(&mut self.state.book(), &request);
        render::answer(&answer, request.tran_date_required)
    }
}

fn xml_response(bytes: Vec<u8>) -> Response {
    (
        [(header::CONTENT_TYPE, "text/xml; charset=ISO-8859-9")],
        bytes,
    )
        .into_response()
}

async fn service(State(sim): State<Sim>, headers: HeaderMap, body: Bytes) -> Response {
    let op = parse::peek_op(&body);
    let technical = || xml_response(render::answer(&rules::refused(codes::DB_ERROR), false));
    // The work is done before the latency: the answer is late (or never comes).
    sim::serve_counted(sim.take_fault(op), technical, async {
        if op.is_some_and(Op::moves_money) {
            sim::serve_money(&sim.state, technical, || {
                xml_response(sim.process(&headers, &body))
            })
            .await
        } else {
            xml_response(sim.process(&headers, &body))
        }
    })
    .await
}

async fn register(State(sim): State<Sim>, JsonBytes(body): JsonBytes) -> Response {
    let body = match order_body(&body) {
        Ok(b) => b,
        Err(refusal) => return refusal.into_response(),
    };
    let o = &body.order;
    if body.mid != sim.creds.mid {
        return admin_error(
            StatusCode::FORBIDDEN,
            codes::INVALID_MID_TID,
            codes::text(codes::INVALID_MID_TID),
        );
    }
    if !order_fits(o) {
        return admin_error(
            StatusCode::BAD_REQUEST,
            codes::BAD_PACKET,
            "PAKET HATALI (ORDERID/AMOUNT)",
        );
    }
    let result = sim.state.book().register_test_order(&body.mid, o);
    match result {
        Ok(()) => Json(json!({ "ok": true })).into_response(),
        Err(Refusal::Duplicate) => admin_error(
            StatusCode::CONFLICT,
            codes::DUPLICATE_ORDER,
            codes::text(codes::DUPLICATE_ORDER),
        ),
        Err(_) => admin_error(
            StatusCode::BAD_REQUEST,
            codes::INVALID_OPERATION,
            codes::text(codes::INVALID_OPERATION),
        ),
    }
}

async fn end_of_day(State(sim): State<Sim>) -> Response {
    sim.state.book().end_of_day();
    Json(json!({ "ok": true })).into_response()
}

async fn faults(State(sim): State<Sim>, JsonBytes(body): JsonBytes) -> Response {
    let SimFaults { faults, only } = match faults_body(&body) {
        Ok(f) => f,
        Err(refusal) => return refusal.into_response(),
    };
    *sim.only
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = only;
    *sim.state.faults() = faults;
    Json(json!({ "ok": true })).into_response()
}

/// The simulator's routes over `state`.
pub fn router(credentials: SimCredentials, state: Arc<SimState>) -> Router {
    let sim = Sim {
        state,
        creds: Arc::new(credentials),
        only: Arc::new(Mutex::new(None)),
    };
    Router::new()
        .route(wire::SERVICE_PATH, post(service))
        .route("/_sim/orders", post(register))
        .route("/_sim/end-of-day", post(end_of_day))
        .route("/_sim/faults", post(faults))
        .with_state(sim)
}

/// Starts a simulator on a free loopback port. The account's `endpointUrl` is
/// `<server.url>/PosnetWebService/XML`.
pub async fn try_start(credentials: SimCredentials) -> std::io::Result<(SimServer, Arc<SimState>)> {
    sim::host(true, |state| router(credentials, state)).await
}

/// [`try_start`] for tests and the local stack, where a failing loopback bind is fatal.
#[allow(clippy::expect_used)]
pub async fn start(credentials: SimCredentials) -> (SimServer, Arc<SimState>) {
    try_start(credentials)
        .await
        .expect("binding the Posnet simulator to a loopback port")
}
