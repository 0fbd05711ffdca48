//! A Vakıf Katılım bank simulator (feature `sim`): `POST /VirtualPOS.Gateway/Home/<Operation>`
//! speaks `VPosMessageContract` requests and the bank's answers (declared `utf-16` over UTF-8
//! bytes, as the bank sends them), on the kit's order book with the BOA rules
//! (`OrderBook::new(true)`: a refund on the sale's own business day is refused, a reversal
//! after the cut too; see `rules`). Strict: malformed XML, another root, unknown users, a
//! wrong `HashPassword` or `HashData`, an `OrderId` that is not the order's, unreadable
//! amounts are refused.
//!
//! Admin routes (test helper, local stack), at the root and under `/VirtualPOS.Gateway/Home`:
//! - `POST /_sim/orders` — `{"merchantId", "orderId", "amount", "currency", "state",
//!   "settled"}`; `409` for a duplicate order id.
//! - `POST /_sim/end-of-day` — moves the bank past its end-of-day cut.
//! - `POST /_sim/faults` — `{"latencyMs", "technicalErrors", "dropAfterProcessing",
//!   "dropBeforeProcessing"}`.
//!
//! Faults: a technical error answers `SystemError` (the simulator's code: the bank's is not
//! in the public sources; the adapter reads it as unknown). The fault counters (latency,
//! technical errors, drops) apply to the money requests — `PreAuthorizatenClose`,
//! `SaleReversal`, `PreAuthorizationReversal`, `DrawBack` and `PartialDrawBack` — and to the
//! history read (`SelectOrder`, which no money flow sends), never to the order read
//! (`SelectOrderByMerchantOrderId`), so the order read before each money request is not what
//! a test's fault hits (as PayFlex's separate search service). The kit's fault plan applies to
//! the money requests only.

mod rules;
mod wire;

use std::sync::Arc;

use paygate_bankkit::sim::{self, prelude::*, Secret, Served, SimServer, SimState, SimUser};

pub use rules::bank_order_id;
pub use wire::{read_request, Answer, WireError};

use crate::API_PATH;

/// The operations that move money (the fault plan applies to these).
pub const MONEY: [&str; 5] = [
    "PreAuthorizatenClose",
    "SaleReversal",
    "PreAuthorizationReversal",
    "DrawBack",
    "PartialDrawBack",
];
/// The read operations.
pub const READS: [&str; 2] = ["SelectOrderByMerchantOrderId", HISTORY];
/// The history read (`SelectOrder`), the one read the fault counters apply to.
pub const HISTORY: &str = "SelectOrder";

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

/// The users the simulator accepts (`MerchantId`, `CustomerId`, `UserName` must match one
/// exactly, else `MerchantNotDefined`; its password must sign the request).
#[derive(Debug, Clone, Default)]
pub struct SimCredentials {
    pub clients: Vec<SimClient>,
    /// A bank that closes the whole hold whatever `Amount` a close carries (whether the real
    /// one honours a partial close is not in the public sources: README); the adapter must
    /// not take such a close for the partial one it asked.
    pub closes_whole_holds: bool,
}

impl SimCredentials {
    /// Closes ignore their `Amount` ([`Self::closes_whole_holds`]).
    pub fn closing_whole_holds(mut self) -> Self {
        self.closes_whole_holds = true;
        self
    }

    /// Adds a user.
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

/// What the simulator keeps beside the kit's state: its variant.
#[derive(Debug, Default)]
pub(crate) struct Variant {
    pub closes_whole_holds: bool,
}

/// The simulator: the kit's state, the users and its variant.
pub(crate) type VakifKatilim = sim::Sim<SimClient, Variant>;

/// Starts the simulator on a free loopback port. Accounts use `<server.url>/VirtualPOS.
/// Gateway/Home` as their `endpointUrl`.
pub async fn start(credentials: SimCredentials) -> std::io::Result<(SimServer, Arc<SimState>)> {
    sim::host(true, |state| router(state, credentials)).await
}

/// The simulator's routes over `state` (for hosting it in another server).
pub fn router(state: Arc<SimState>, credentials: SimCredentials) -> Router {
    let mut api = Router::new();
    for op in MONEY.into_iter().chain(READS) {
        api = api.route(
            &format!("{API_PATH}/{op}"),
            post(move |State(sim): State<Arc<VakifKatilim>>, body: Bytes| api_call(sim, op, body)),
        );
    }
    let variant = Variant {
        closes_whole_holds: credentials.closes_whole_holds,
    };
    VakifKatilim::routes(state, credentials.clients, variant, api, &["", API_PATH])
}

fn xml_response(answer: &Answer) -> Response {
    sim::respond(wire::CONTENT_TYPE, answer.to_bytes())
}

/// The simulator's answer to a request it could not process.
fn technical_error(order: &str) -> Answer {
    Answer::money(rules::SYSTEM_ERROR, order, None)
}

async fn api_call(sim: Arc<VakifKatilim>, op: &'static str, body: Bytes) -> Response {
    let sim = &*sim;
    if READS.contains(&op) {
        let read = || {
            let answer = match wire::read_request(&body) {
                Ok(req) => rules::handle(sim, op, &req),
                Err(_) => Answer::orders(rules::BAD_REQUEST, "", Vec::new()),
            };
            tracing::debug!(kind = op, code = answer.code(), "vakifkatilim sim read");
            xml_response(&answer)
        };
        if op != HISTORY {
            return read();
        }
        // The day history's read takes the fault counters (the order read does not).
        let technical = || xml_response(&Answer::orders(rules::SYSTEM_ERROR, "", Vec::new()));
        return sim::serve_counted(sim.state.take_fault(), technical, async { read() }).await;
    }
    let order = wire::read_request(&body)
        .ok()
        .and_then(|r| r.text_at(&["MerchantOrderId"]).map(|s| s.trim().to_owned()))
        .unwrap_or_default();
    let technical = || xml_response(&technical_error(&order));
    sim::serve_request(&sim.state, technical, || match wire::read_request(&body) {
        Ok(req) => Served::Money(move || xml_response(&rules::handle(sim, op, &req))),
        Err(WireError(why)) => {
            tracing::debug!(error = %why, "vakifkatilim sim refused an unreadable request");
            Served::Answer(xml_response(&Answer::money(rules::BAD_REQUEST, "", None)))
        }
    })
    .await
}
