//! A Tosla simulator (feature `sim`): `POST <API_PATH>/{postAuth, void, refund, inquiry,
//! history}`
//! speak the JSON protocol on the kit's order book (`OrderBook::new(false)`: refunds are
//! taken on the sale's own day, as MEWS's functional test refunds right after paying; a void
//! cancels the whole order, a captured pre-authorization included, on its business day only
//! and is refused with `101` after the cut). Every request's `hash` is checked against its
//! client's password and accepted once; a wrong, missing or reused one, or an unknown
//! client, is `Code 997` "Hash Hatası"; a malformed body `Code 998` "Validasyon Hatası"
//! (nothing applied; both on HTTP 200, as MEWS's fixtures show them).
//!
//! `history` lists the lines of a `transactionDate` (`OrderBook::booked_on`; one order's
//! when `orderId` is given), [`HISTORY_PAGE_CAP`] to a page at most whatever `pageSize`
//! asks, `Count` the day's total.
//!
//! Admin routes (test helper, local stack), at the root and under the API base:
//! - `POST /_sim/orders` — `{"clientId", "orderId", "amount", "currency", "state",
//!   "settled"}`; `409` for a duplicate order id.
//! - `POST /_sim/end-of-day`, `POST /_sim/faults` (as the other simulators).
//!
//! Faults: a technical error is HTTP 503 (nothing applied); the kit's money-request fault
//! plan applies to `postAuth`, `void` and `refund`; a late booking hides the order from the
//! next inquiry (answered "not found").

mod rules;
mod wire;

use std::{
    collections::HashSet,
    sync::{Arc, Mutex},
};

use paygate_bankkit::sim::{self, prelude::*, Secret, Served, SimServer, SimState, SimUser};

pub use rules::HISTORY_PAGE_CAP;
pub use wire::read_request;

use crate::API_PATH;

/// A client (API user) the simulated institution knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimClient {
    pub client_id: String,
    pub api_user: String,
    pub api_pass: Secret,
}

impl SimUser for SimClient {
    const CLIENT_FIELD: &'static str = "clientId";

    fn client(&self) -> &str {
        &self.client_id
    }
}

/// The clients the simulator accepts.
#[derive(Debug, Clone, Default)]
pub struct SimCredentials {
    pub clients: Vec<SimClient>,
}

impl SimCredentials {
    pub fn with(mut self, client_id: &str, api_user: &str, api_pass: &str) -> Self {
        self.clients.push(SimClient {
            client_id: client_id.to_owned(),
            api_user: api_user.to_owned(),
            api_pass: api_pass.into(),
        });
        self
    }
}

/// The hashes already accepted ("her hash sadece bir kez kullanılacaktır").
#[derive(Debug, Default)]
pub struct UsedHashes(Mutex<HashSet<String>>);

impl UsedHashes {
    /// Records `hash`; `false` when it was used before.
    pub fn first_use(&self, hash: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(hash.to_owned())
    }
}

/// The simulator's state: the kit's, the clients and the hashes seen.
pub(crate) type ToslaSim = sim::Sim<SimClient, UsedHashes>;

/// The API's operations (paths below [`API_PATH`]).
pub const PATHS: [&str; 5] = ["postAuth", "void", "refund", "inquiry", "history"];

/// Starts the simulator on a free loopback port. Accounts use `<server.url><API_PATH>` as
/// their `endpointUrl`.
pub async fn start(credentials: SimCredentials) -> std::io::Result<(SimServer, Arc<SimState>)> {
    sim::host(false, |state| router(state, credentials)).await
}

/// The simulator's routes over `state`.
pub fn router(state: Arc<SimState>, credentials: SimCredentials) -> Router {
    let mut api = Router::new();
    for path in PATHS {
        api = api.route(
            &format!("{API_PATH}/{path}"),
            post(move |State(sim): State<Arc<ToslaSim>>, body: Bytes| api_call(sim, path, body)),
        );
    }
    ToslaSim::routes(
        state,
        credentials.clients,
        UsedHashes::default(),
        api,
        &["", API_PATH],
    )
}

pub(crate) fn json(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn technical() -> Response {
    json(
        StatusCode::SERVICE_UNAVAILABLE,
        r#"{"Code":999,"Message":"Sistem hatası"}"#.to_owned(),
    )
}

async fn api_call(sim: Arc<ToslaSim>, path: &'static str, body: Bytes) -> Response {
    let sim = &*sim;
    sim::serve_request(&sim.state, technical, || {
        match wire::read_request(&sim.users, &sim.extra, path, &body) {
            Err(answer) => {
                tracing::debug!(path, "toslapos sim refused a request");
                Served::Answer(json(StatusCode::OK, answer))
            }
            Ok((client, req)) => {
                let client_id = client.client_id.clone();
                let process =
                    move || json(StatusCode::OK, rules::handle(sim, &client_id, path, &req));
                if matches!(path, "inquiry" | "history") {
                    Served::Answer(process())
                } else {
                    Served::Money(process)
                }
            }
        }
    })
    .await
}
