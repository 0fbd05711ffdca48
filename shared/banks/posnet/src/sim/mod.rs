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
//! a capture can pass while the capture itself is dropped). Nothing is logged: requests can
//! carry card numbers.

mod parse;
mod render;
pub mod rules;

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use paygate_bankkit::sim::{self, prelude::*, FaultKind, Faults, Refusal, SimServer, SimState};
use paygate_domain::ports::TestOrder;
use serde::Deserialize;
use serde_json::json;

pub use parse::Op;

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

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct OrderBody {
    mid: String,
    /// The account's order id prefix (the adapter's test-order route sends it): the order id
    /// is then the gateway's, turned into its 24-character bank form here.
    #[serde(default)]
    order_id_prefix: Option<String>,
    #[serde(flatten)]
    order: TestOrder,
}

fn admin_error(status: StatusCode, code: &str, text: &str) -> Response {
    (
        status,
        Json(json!({ "ok": false, "respCode": code, "respText": text })),
    )
        .into_response()
}

async fn register(State(sim): State<Sim>, Json(mut body): Json<OrderBody>) -> Response {
    if let Some(prefix) = &body.order_id_prefix {
        match wire::wire_order_id(&body.order.order_id, prefix) {
            Ok(id) => body.order.order_id = id,
            Err(_) => {
                return admin_error(
                    StatusCode::BAD_REQUEST,
                    codes::BAD_PACKET,
                    "PAKET HATALI (ORDERID)",
                )
            }
        }
    }
    let o = &body.order;
    if body.mid != sim.creds.mid {
        return admin_error(
            StatusCode::FORBIDDEN,
            codes::INVALID_MID_TID,
            codes::text(codes::INVALID_MID_TID),
        );
    }
    let id_ok =
        o.order_id.len() == wire::ORDER_ID_LEN && o.order_id.chars().all(wire::is_order_id_char);
    if !id_ok || o.amount <= 0 || o.amount > wire::MAX_AMOUNT {
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

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct FaultsBody {
    latency_ms: u64,
    technical_errors: u32,
    drop_after_processing: u32,
    drop_before_processing: u32,
    only: Option<String>,
}

async fn faults(State(sim): State<Sim>, Json(body): Json<FaultsBody>) -> Response {
    let only = match body.only.as_deref() {
        None => None,
        Some(name) => match Op::from_element(name) {
            Some(op) => Some(op),
            None => {
                return admin_error(
                    StatusCode::BAD_REQUEST,
                    codes::MALFORMED,
                    "unknown operation in `only`",
                )
            }
        },
    };
    *sim.only
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = only;
    *sim.state.faults() = Faults {
        latency: Duration::from_millis(body.latency_ms),
        technical_errors: body.technical_errors,
        drop_after_processing: body.drop_after_processing,
        drop_before_processing: body.drop_before_processing,
    };
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
