//! A Kuveyt Türk query-service simulator (feature `sim`): `POST <SERVICE_PATH>` speaks the
//! SOAP methods `GetMerchantOrderDetail`, `SaleReversal`, `DrawBack` and `PartialDrawback`
//! on the kit's order book (`OrderBook::new(false)`: Kuveyt's own same-day refund rules are
//! in `rules`), checking each request's `SOAPAction`, user and `HashData` (see `wire`).
//!
//! Admin routes (test helper, local stack), at the root and under the service path:
//! - `POST /_sim/orders` — `{"merchantId", "orderId", "amount", "currency", "state",
//!   "settled"}`; **sales only**: Kuveyt Türk has no pre-authorization, so `"state":
//!   "preauth"` is `400`; `409` for a duplicate order id.
//! - `POST /_sim/end-of-day`, `POST /_sim/faults` (as the other simulators).
//!
//! Faults: the counters of `/_sim/faults` and the kit's fault plan both apply to the money
//! requests only (`SaleReversal`, `DrawBack`, `PartialDrawback`): the order read every
//! cancel and refund sends first is never faulted, so a fault meets the request it aims at.
//! A technical error is the service's `ServiceUnavailable` ("IsoProxyFactoryServiceResponse
//! WasNull": nothing applied, though the answer cannot say so); a late booking hides the
//! order from the next `GetMerchantOrderDetail` (an empty `Value`).

mod rules;
pub mod wire;

use std::sync::Arc;

use paygate_bankkit::sim::{
    self,
    admin::{end_of_day, register_order, set_faults},
    bodies::order_body,
    prelude::*,
    serve_counted, serve_money, JsonBytes, Secret, SimServer, SimState, SimUser,
};
use paygate_domain::ports::TestOrderState;

pub use wire::{read_request, SoapRequest, WireError};

use crate::{request::SOAP_ACTION, SERVICE_PATH};

/// An API user the simulated bank accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimClient {
    pub merchant_id: String,
    pub customer_id: String,
    pub user_name: String,
    pub password: Secret,
}

impl SimUser for SimClient {
    const CLIENT_FIELD: &'static str = "merchantId";

    fn client(&self) -> &str {
        &self.merchant_id
    }
}

/// The users the simulator accepts: merchant, customer number and user name must match one
/// (else `ApiUserNotDefined`), and `HashData` its password (else `HashDataError`).
#[derive(Debug, Clone, Default)]
pub struct SimCredentials {
    pub clients: Vec<SimClient>,
}

impl SimCredentials {
    pub fn with(
        mut self,
        merchant_id: &str,
        customer_id: &str,
        user_name: &str,
        password: &str,
    ) -> Self {
        self.clients.push(SimClient {
            merchant_id: merchant_id.to_owned(),
            customer_id: customer_id.to_owned(),
            user_name: user_name.to_owned(),
            password: password.into(),
        });
        self
    }
}

/// The simulator's state: the kit's, and the users.
pub(crate) type KuveytSim = sim::Sim<SimClient>;

/// Starts the simulator on a free loopback port. Accounts use `<server.url><SERVICE_PATH>`
/// as their `endpointUrl`.
pub async fn start(credentials: SimCredentials) -> std::io::Result<(SimServer, Arc<SimState>)> {
    sim::host(false, |state| router(state, credentials)).await
}

/// The simulator's routes over `state` (for hosting it in another server).
pub fn router(state: Arc<SimState>, credentials: SimCredentials) -> Router {
    let sim = Arc::new(KuveytSim {
        state,
        users: credentials.clients,
        extra: (),
    });
    let mut r = Router::new().route(SERVICE_PATH, post(api));
    for prefix in ["", SERVICE_PATH] {
        r = r
            .route(&format!("{prefix}/_sim/orders"), post(sales_only))
            .route(
                &format!("{prefix}/_sim/end-of-day"),
                post(end_of_day::<KuveytSim>),
            )
            .route(
                &format!("{prefix}/_sim/faults"),
                post(set_faults::<KuveytSim>),
            );
    }
    r.with_state(sim)
}

/// `POST /_sim/orders`, refusing pre-authorizations (the bank has none).
async fn sales_only(State(sim): State<Arc<KuveytSim>>, JsonBytes(body): JsonBytes) -> Response {
    if let Ok((_, order)) = order_body(<SimClient as SimUser>::CLIENT_FIELD, &body) {
        if order.state == TestOrderState::Preauth {
            return (
                StatusCode::BAD_REQUEST,
                "Kuveyt Türk has no pre-authorization: test orders are sales",
            )
                .into_response();
        }
    }
    register_order::<KuveytSim>(State(sim), JsonBytes(body)).await
}

fn xml(status: StatusCode, body: Vec<u8>) -> Response {
    (status, [(header::CONTENT_TYPE, wire::CONTENT_TYPE)], body).into_response()
}

/// The service's answer when the card host's answer was lost (MEWS serializer fixture).
fn technical(method: &str) -> Response {
    xml(
        StatusCode::OK,
        wire::refusal(
            method,
            (
                "ServiceUnavailable",
                "IsoProxyFactoryServiceResponseWasNull",
            ),
        ),
    )
}

async fn api(State(sim): State<Arc<KuveytSim>>, headers: HeaderMap, body: Bytes) -> Response {
    let sim = &*sim;
    let action = headers.get(SOAP_ACTION).and_then(|v| v.to_str().ok());
    let (user, req) = match wire::read_request(&sim.users, action, &body) {
        Ok(read) => read,
        Err(WireError::Fault(why)) => {
            tracing::debug!(error = %why, "kuveytpos sim refused a request");
            return xml(StatusCode::INTERNAL_SERVER_ERROR, wire::fault(&why));
        }
        Err(WireError::Refused {
            method,
            code,
            message,
        }) => return xml(StatusCode::OK, wire::refusal(&method, (code, message))),
    };
    let method = req.method.clone();
    let process = || xml(StatusCode::OK, rules::handle(sim, user, &req));
    if !rules::moves_money(&method) {
        return process();
    }
    serve_counted(
        sim.state.take_fault(),
        || technical(&method),
        serve_money(&sim.state, || technical(&method), process),
    )
    .await
}
