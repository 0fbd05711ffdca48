//! What every simulator's HTTP side has in common, written once: starting it over a fresh
//! [`SimState`] ([`host`]), its admin routes (`POST /_sim/orders`, `/_sim/end-of-day`,
//! `/_sim/faults`: [`admin_routes`], or [`end_of_day`] and [`set_faults`] alone) and the
//! body of `/_sim/faults` ([`FaultsBody`]); the bodies are read by `super::bodies`. A protocol's simulator keeps only its own facts:
//! which JSON field names the client its orders are booked under, how it knows that client,
//! and what it answers on the wire.

use std::{sync::Arc, time::Duration};

use axum::{
    extract::State,
    http::StatusCode,
    response::{IntoResponse, Response},
    routing::post,
    Router,
};
use serde::{Deserialize, Serialize};

use super::{
    bodies::{faults_body, order_body, JsonBytes},
    Faults, Refusal, SimServer, SimState,
};

/// A simulator's router state: it holds the kit's [`SimState`].
pub trait Host: Send + Sync + 'static {
    fn sim_state(&self) -> &SimState;
}

/// A simulator that books test orders under a client key named in `POST /_sim/orders`
/// (Nestpay `clientId`, PayFor `merchantId`, …).
pub trait Clients: Host {
    /// The JSON field of `POST /_sim/orders` naming the client, beside the [`TestOrder`](paygate_domain::ports::TestOrder)'s.
    const CLIENT_FIELD: &'static str;
    /// The text of the `409` answering a duplicate order id.
    const DUPLICATE: &'static str = "duplicate order id";
    /// Whether the simulated bank knows the client (else `404 unknown <CLIENT_FIELD>`).
    fn knows(&self, client: &str) -> bool;
}

/// Starts a simulator on a free loopback port over a new [`SimState`] (refunds before the
/// end-of-day cut refused when `refunds_need_end_of_day`); `router` builds its routes over
/// that state.
pub async fn host(
    refunds_need_end_of_day: bool,
    router: impl FnOnce(Arc<SimState>) -> Router,
) -> std::io::Result<(SimServer, Arc<SimState>)> {
    let state = SimState::new(refunds_need_end_of_day);
    let server = SimServer::start(router(state.clone())).await?;
    Ok((server, state))
}

/// Adds `POST <prefix>/_sim/orders`, `<prefix>/_sim/end-of-day` and `<prefix>/_sim/faults`
/// for every prefix (`""` for the root).
pub fn admin_routes<S: Clients>(mut router: Router<Arc<S>>, prefixes: &[&str]) -> Router<Arc<S>> {
    for prefix in prefixes {
        router = router
            .route(&format!("{prefix}/_sim/orders"), post(register_order::<S>))
            .route(&format!("{prefix}/_sim/end-of-day"), post(end_of_day::<S>))
            .route(&format!("{prefix}/_sim/faults"), post(set_faults::<S>));
    }
    router
}

/// `POST /_sim/orders`: `{"<CLIENT_FIELD>": …, "orderId", "amount", "currency", "state",
/// "settled"}`. `201` when booked, `404` for an unknown client, `409` for a duplicate order
/// id, `400` for another refusal of the book, `422` for a body without these fields.
pub async fn register_order<S: Clients>(
    State(sim): State<Arc<S>>,
    JsonBytes(body): JsonBytes,
) -> Response {
    let (client, order) = match order_body(S::CLIENT_FIELD, &body) {
        Ok(read) => read,
        Err(refused) => return refused.into_response(),
    };
    if !sim.knows(&client) {
        return (
            StatusCode::NOT_FOUND,
            format!("unknown {}", S::CLIENT_FIELD),
        )
            .into_response();
    }
    let registered = sim.sim_state().book().register_test_order(&client, &order);
    match registered {
        Ok(()) => StatusCode::CREATED.into_response(),
        Err(Refusal::Duplicate) => (StatusCode::CONFLICT, S::DUPLICATE).into_response(),
        Err(r) => (StatusCode::BAD_REQUEST, format!("{r:?}")).into_response(),
    }
}

/// `POST /_sim/end-of-day`: moves the bank past its end-of-day cut.
pub async fn end_of_day<S: Host>(State(sim): State<Arc<S>>) -> StatusCode {
    sim.sim_state().book().end_of_day();
    StatusCode::OK
}

/// `POST /_sim/faults`: replaces the fault counters ([`FaultsBody`]).
pub async fn set_faults<S: Host>(
    State(sim): State<Arc<S>>,
    JsonBytes(body): JsonBytes,
) -> Response {
    match faults_body(&body) {
        Ok(faults) => {
            *sim.sim_state().faults() = faults.into();
            StatusCode::OK.into_response()
        }
        Err(refused) => refused.into_response(),
    }
}

/// The body of `POST /_sim/faults` (each field optional, default 0): `{"latencyMs",
/// "technicalErrors", "dropAfterProcessing", "dropBeforeProcessing"}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FaultsBody {
    pub latency_ms: u64,
    pub technical_errors: u32,
    pub drop_after_processing: u32,
    pub drop_before_processing: u32,
}

impl From<FaultsBody> for Faults {
    fn from(b: FaultsBody) -> Self {
        Faults {
            latency: Duration::from_millis(b.latency_ms),
            technical_errors: b.technical_errors,
            drop_after_processing: b.drop_after_processing,
            drop_before_processing: b.drop_before_processing,
        }
    }
}

#[cfg(test)]
#[path = "admin_tests.rs"]
mod tests;
