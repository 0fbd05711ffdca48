//! A protocol-faithful GVPS simulator (feature `sim`): `POST /VPServlet` takes the same XML
//! the bank takes, checks terminal, user, hash and fields as the bank does, keeps per-order
//! state in the kit's [`OrderBook`](paygate_bankkit::sim::OrderBook) (same-day refunds
//! allowed, voids only before the end-of-day cut) and answers in ISO-8859-9 with GVPS's
//! reason codes. `orderlistinq` (the date range inquiry) lists the book's dated history
//! (`list`), a few lines a page.
//!
//! Admin routes (not part of GVPS):
//! - `POST /_sim/orders` — register a test order: [`RegisterOrder`] JSON (terminal, merchant,
//!   and the `TestOrder` fields); `201`, `409` for a duplicate order id, `403` for another
//!   terminal.
//! - `POST /_sim/end-of-day` — advance the bank past its end-of-day cut.
//! - `POST /_sim/faults` — [`FaultsBody`] JSON: latency, technical errors, dropped
//!   connections (the kit's, as every simulator).
//! - `POST /_sim/rewards` — [`RewardCard`] JSON: set a card's points balances.
//! - `POST /_sim/history-lag` — [`HistoryLagBody`] JSON: the next `orderhistoryinq` of the
//!   order lags behind `orderinq` (answers `0108`, or an approved empty list), as a history
//!   service behind the inquiry's would.
//!
//! The admin bodies are read by the kit's pure `sim::bodies::json` (what the fuzz target
//! `test_helper_bodies` runs), refused as axum's `Json` extractor refuses them.

mod list;
mod rules;
mod wire;

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use axum::{
    body::Bytes,
    extract::State,
    http::{header, StatusCode},
    response::{IntoResponse, Response},
    routing::post,
    Router,
};
use paygate_bankkit::{
    sim::{
        self, bodies, dropped_connection, serve_money, FaultKind, JsonBytes, Refusal, SimServer,
        SimState,
    },
    AccountCredentials,
};
use paygate_domain::ports::TestOrder;
use serde::{Deserialize, Serialize};

pub use paygate_bankkit::sim::FaultsBody;

/// The body of the simulator's `POST /_sim/orders`: the order and the terminal it is for (what
/// the adapter's test-order route sends: the order with `terminalId` and `merchantId`).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RegisterOrder {
    pub terminal_id: String,
    pub merchant_id: String,
    #[serde(flatten)]
    pub order: TestOrder,
}

use crate::{keys, Terminal};

/// One points programme balance of a card, in kuruş (`BNS` Bonus, `FBB` FirmBonus, …).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reward {
    #[serde(rename = "type")]
    pub kind: String,
    pub total_amount: i64,
}

/// A card the simulated bank knows points for.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RewardCard {
    pub number: String,
    pub rewards: Vec<Reward>,
}

impl std::fmt::Debug for RewardCard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = &self.number;
        let last4 = n.get(n.len().saturating_sub(4)..).unwrap_or_default();
        f.debug_struct("RewardCard")
            .field("number", &format!("****{last4}"))
            .field("rewards", &self.rewards)
            .finish()
    }
}

/// How the next `orderhistoryinq` of an order lags behind `orderinq` (`POST /_sim/history-lag`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HistoryLag {
    /// `92/0108`: no record of the order.
    NotFound,
    /// Approved, with an empty `OrderTxnList`.
    Empty,
}

/// The body of `POST /_sim/history-lag`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryLagBody {
    pub order_id: String,
    pub answer: HistoryLag,
}

/// What the simulated terminal accepts: the terminal (its numbers, its two users and their
/// passwords) and the cards it knows points for.
#[derive(Debug, Clone)]
pub struct SimCredentials {
    pub terminal: Terminal,
    pub reward_cards: Vec<RewardCard>,
}

/// A Bonus card of Garanti's sample code, known to [`SimCredentials::garanti_test`].
pub const TEST_BONUS_CARD: &str = "4824914752007011";

impl SimCredentials {
    /// The public test terminal of Garanti's and MEWS's samples (terminal `30691298`,
    /// merchant `7000679`, PROVAUT/PROVRFN), with one Bonus card (12.35 TL Bonus, 5.00 TL
    /// FirmBonus).
    pub fn garanti_test() -> Self {
        Self {
            terminal: Terminal {
                terminal_id: "30691298".into(),
                merchant_id: "7000679".into(),
                prov_user_id: "PROVAUT".into(),
                prov_password: "123qweASD/".into(),
                refund_user_id: "PROVRFN".into(),
                refund_password: "123qweASD/".into(),
            },
            reward_cards: vec![RewardCard {
                number: TEST_BONUS_CARD.into(),
                rewards: vec![
                    Reward {
                        kind: "BNS".into(),
                        total_amount: 1235,
                    },
                    Reward {
                        kind: "FBB".into(),
                        total_amount: 500,
                    },
                ],
            }],
        }
    }

    /// The account secret an adapter needs to talk to this simulator at `endpoint_url`.
    pub fn account_credentials(&self, endpoint_url: &str) -> AccountCredentials {
        let mut values = self.terminal.secret_values();
        values.push((keys::MODE.to_owned(), "TEST".to_owned()));
        AccountCredentials::new(endpoint_url, values)
    }
}

/// The simulator's shared state behind the router.
pub struct Sim {
    creds: SimCredentials,
    state: Arc<SimState>,
    rewards: Mutex<HashMap<String, Vec<Reward>>>,
    history_lag: Mutex<HashMap<String, HistoryLag>>,
}

impl Sim {
    /// The lag set for the order's next history read, consumed.
    fn take_history_lag(&self, order_id: &str) -> Option<HistoryLag> {
        self.history_lag
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(order_id)
    }

    fn rewards_of(&self, card: &str) -> Option<Vec<Reward>> {
        self.rewards
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(card)
            .cloned()
    }
}

impl sim::Host for Sim {
    fn sim_state(&self) -> &SimState {
        &self.state
    }
}

/// The simulator's routes over `state` (Garanti: refunds allowed on the sale's own day).
pub fn router(creds: SimCredentials, state: Arc<SimState>) -> Router {
    let rewards = creds
        .reward_cards
        .iter()
        .map(|c| (c.number.clone(), c.rewards.clone()))
        .collect();
    let sim = Arc::new(Sim {
        creds,
        state,
        rewards: Mutex::new(rewards),
        history_lag: Mutex::new(HashMap::new()),
    });
    Router::new()
        .route("/VPServlet", post(servlet))
        .route("/_sim/orders", post(register_order))
        .route("/_sim/end-of-day", post(sim::admin::end_of_day::<Sim>))
        .route("/_sim/faults", post(sim::admin::set_faults::<Sim>))
        .route("/_sim/rewards", post(set_rewards))
        .route("/_sim/history-lag", post(set_history_lag))
        .with_state(sim)
}

/// A new simulated bank (empty book, no faults) served on a free loopback port.
pub async fn start(creds: SimCredentials) -> std::io::Result<(SimServer, Arc<SimState>)> {
    sim::host(false, |state| router(creds, state)).await
}

fn xml_response(body: Vec<u8>) -> Response {
    (
        [(header::CONTENT_TYPE, "text/xml;charset=ISO-8859-9")],
        body,
    )
        .into_response()
}

async fn servlet(State(sim): State<Arc<Sim>>, body: Bytes) -> Response {
    let (latency, fault) = sim.state.take_fault();
    match fault {
        Some(FaultKind::DropBefore) => return dropped_connection(),
        Some(FaultKind::TechnicalError) => {
            return xml_response(wire::render(&wire::Answer::technical()))
        }
        _ => {}
    }
    let response = if rules::is_money_request(&body) {
        serve_money(
            &sim.state,
            || xml_response(wire::render(&wire::Answer::technical())),
            || xml_response(wire::render(&rules::process(&sim, &body))),
        )
        .await
    } else {
        xml_response(wire::render(&rules::process(&sim, &body)))
    };
    // Latency is served after processing, like the other simulators: a caller that times
    // out leaves the operation applied, which is what a slow bank does to us.
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    if fault == Some(FaultKind::DropAfter) {
        return dropped_connection();
    }
    response
}

async fn register_order(State(sim): State<Arc<Sim>>, JsonBytes(body): JsonBytes) -> Response {
    let req: RegisterOrder = match bodies::json(&body) {
        Ok(r) => r,
        Err(refused) => return refused.into_response(),
    };
    let t = &sim.creds.terminal;
    if req.terminal_id != t.terminal_id || req.merchant_id != t.merchant_id {
        return (StatusCode::FORBIDDEN, "unknown terminal or merchant").into_response();
    }
    let o = &req.order;
    let registered = sim.state.book().register_test_order(&t.terminal_id, o);
    match registered {
        Ok(()) => (StatusCode::CREATED, "registered").into_response(),
        Err(Refusal::Duplicate) => (StatusCode::CONFLICT, "order id already used").into_response(),
        Err(r) => (StatusCode::BAD_REQUEST, format!("{r:?}")).into_response(),
    }
}

async fn set_rewards(State(sim): State<Arc<Sim>>, JsonBytes(body): JsonBytes) -> Response {
    let card: RewardCard = match bodies::json(&body) {
        Ok(c) => c,
        Err(refused) => return refused.into_response(),
    };
    sim.rewards
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert(card.number, card.rewards);
    StatusCode::OK.into_response()
}

async fn set_history_lag(State(sim): State<Arc<Sim>>, JsonBytes(body): JsonBytes) -> Response {
    let lag: HistoryLagBody = match bodies::json(&body) {
        Ok(l) => l,
        Err(refused) => return refused.into_response(),
    };
    sim.history_lag
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert(lag.order_id, lag.answer);
    StatusCode::OK.into_response()
}
