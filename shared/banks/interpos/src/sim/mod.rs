//! A Denizbank InterVPOS simulator (feature `sim`): `POST /mpi/Default.aspx` takes the
//! form bodies and answers `key=value;;key=value` like the bank, on the kit's order book with
//! the rules in `rules` (`OrderBook::new(true)`: refunds only after the end-of-day cut, voids
//! only before it). Strict: a body that is not a form, wrong credentials, unknown orders,
//! amounts above what is left and unparsable amounts are refused.
//!
//! Admin routes (test helper, local stack), at the root:
//! - `POST /_sim/orders` — `{"shopCode", "orderId", "amount", "currency", "state",
//!   "settled"}` (a [`TestOrder`] plus the shop code); `409` for a duplicate order id.
//! - `POST /_sim/end-of-day` — moves the bank past its end-of-day cut.
//! - `POST /_sim/faults` — `{"latencyMs", "technicalErrors", "dropAfterProcessing",
//!   "dropBeforeProcessing"}` (every request).
//!
//! The kit's money-request fault plan (`state.fault_plan()`) applies to `PostAuth`, `Void`
//! and `Refund` (technical error `91`/`B910001`); a late booking hides the order from the next
//! `StatusHistory` (`E39`). The ledger is keyed by (`ShopCode`, order id).

mod rules;

use std::{sync::Arc, time::Duration};

use axum::{
    body::Bytes,
    extract::State,
    http::{header, HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    routing::post,
    Json, Router,
};
use paygate_bankkit::{
    form::{parse_form, write_pairs},
    sim::{dropped_connection, serve_money, FaultKind, Faults, Refusal, SimServer, SimState},
};
use paygate_domain::ports::TestOrder;
use serde::Deserialize;

pub use rules::{bonus_of, status_answer, BONUS_BINS};

use crate::config::API_PATH;

/// A shop the simulated bank knows.
#[derive(Clone, PartialEq, Eq)]
pub struct SimShop {
    pub shop_code: String,
    pub user_code: String,
    pub user_pass: String,
    /// Whether `BonusInquiry` is allowed (else `81`/`B810005`).
    pub bonus_inquiry: bool,
}

impl std::fmt::Debug for SimShop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimShop")
            .field("shop_code", &self.shop_code)
            .field("user_code", &self.user_code)
            .field("bonus_inquiry", &self.bonus_inquiry)
            .finish_non_exhaustive()
    }
}

/// The shops the simulator accepts.
#[derive(Debug, Clone, Default)]
pub struct SimCredentials {
    pub shops: Vec<SimShop>,
}

impl SimCredentials {
    /// Adds a shop.
    pub fn with(
        mut self,
        shop_code: &str,
        user_code: &str,
        user_pass: &str,
        bonus_inquiry: bool,
    ) -> Self {
        self.shops.push(SimShop {
            shop_code: shop_code.to_owned(),
            user_code: user_code.to_owned(),
            user_pass: user_pass.to_owned(),
            bonus_inquiry,
        });
        self
    }
}

/// The simulator's state.
pub struct InterPosSim {
    pub state: Arc<SimState>,
    shops: Vec<SimShop>,
}

/// Starts the simulator on a free loopback port. Accounts use `<server.url>` + [`API_PATH`]
/// as their `endpointUrl`.
pub async fn start(credentials: SimCredentials) -> std::io::Result<(SimServer, Arc<SimState>)> {
    let state = SimState::new(true);
    let server = SimServer::start(router(state.clone(), credentials)).await?;
    Ok((server, state))
}

/// The simulator's routes over `state`.
pub fn router(state: Arc<SimState>, credentials: SimCredentials) -> Router {
    let sim = Arc::new(InterPosSim {
        state,
        shops: credentials.shops,
    });
    Router::new()
        .route(API_PATH, post(api))
        .route("/_sim/orders", post(admin_order))
        .route("/_sim/end-of-day", post(admin_end_of_day))
        .route("/_sim/faults", post(admin_faults))
        .with_state(sim)
}

fn answer(pairs: &rules::Answer) -> Response {
    let body = write_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())));
    ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], body).into_response()
}

async fn api(State(sim): State<Arc<InterPosSim>>, headers: HeaderMap, body: Bytes) -> Response {
    let (latency, fault) = sim.state.take_fault();
    if fault == Some(FaultKind::DropBefore) {
        tokio::time::sleep(latency).await;
        return dropped_connection();
    }
    let technical = || answer(&rules::refused("", rules::TECHNICAL));
    let is_form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|c| c.split(';').next())
        .is_some_and(|m| {
            m.trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        });
    let form = if is_form {
        parse_form(&body).ok()
    } else {
        None
    };
    let response = match (fault, form) {
        (Some(FaultKind::TechnicalError), _) => technical(),
        (_, None) => {
            tracing::debug!("interpos sim refused an unreadable request");
            technical()
        }
        (_, Some(f)) => {
            let v = |k: &str| f.get(k).unwrap_or("").trim().to_owned();
            let shop = sim.shops.iter().find(|s| {
                s.shop_code == v("ShopCode")
                    && s.user_code == v("UserCode")
                    && s.user_pass == v("UserPass")
            });
            match shop {
                None => answer(&rules::refused(&v("orgOrderId"), rules::BAD_USER)),
                Some(shop) => {
                    if matches!(v("TxnType").as_str(), "PostAuth" | "Void" | "Refund") {
                        serve_money(&sim.state, technical, || {
                            answer(&rules::handle(&sim, shop, &f))
                        })
                        .await
                    } else {
                        answer(&rules::handle(&sim, shop, &f))
                    }
                }
            }
        }
    };
    // Latency after processing: a client that gives up leaves the operation applied.
    tokio::time::sleep(latency).await;
    if fault == Some(FaultKind::DropAfter) {
        return dropped_connection();
    }
    response
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AdminOrder {
    shop_code: String,
    #[serde(flatten)]
    order: TestOrder,
}

async fn admin_order(
    State(sim): State<Arc<InterPosSim>>,
    Json(body): Json<AdminOrder>,
) -> Response {
    if !sim.shops.iter().any(|m| m.shop_code == body.shop_code) {
        return (StatusCode::NOT_FOUND, "unknown shopCode").into_response();
    }
    let o = &body.order;
    let registered = sim.state.book().register(
        &body.shop_code,
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

async fn admin_end_of_day(State(sim): State<Arc<InterPosSim>>) -> StatusCode {
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
    State(sim): State<Arc<InterPosSim>>,
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
