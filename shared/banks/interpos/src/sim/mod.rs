//! A Denizbank InterVPOS simulator (feature `sim`): `POST /mpi/Default.aspx` takes the
//! form bodies and answers `key=value;;key=value` like the bank, on the kit's order book with
//! the rules in `rules` (`OrderBook::new(true)`: refunds only after the end-of-day cut, voids
//! only before it). Strict: a body that is not a form, wrong credentials, unknown orders,
//! amounts above what is left and unparsable amounts are refused.
//!
//! Admin routes (test helper, local stack), at the root:
//! - `POST /_sim/orders` — `{"shopCode", "orderId", "amount", "currency", "state",
//!   "settled"}` (a [`TestOrder`](paygate_domain::ports::TestOrder) plus the shop code); `409` for a duplicate order id.
//! - `POST /_sim/end-of-day` — moves the bank past its end-of-day cut.
//! - `POST /_sim/faults` — `{"latencyMs", "technicalErrors", "dropAfterProcessing",
//!   "dropBeforeProcessing"}` (every request).
//!
//! The kit's money-request fault plan (`state.fault_plan()`) applies to `PostAuth`, `Void`
//! and `Refund` (technical error `91`/`B910001`); a late booking hides the order from the next
//! `StatusHistory` (`E39`). The ledger is keyed by (`ShopCode`, order id).

mod rules;

use std::sync::Arc;

use paygate_bankkit::{
    form::{parse_form, write_pairs},
    sim::{self, prelude::*, Secret, Served, SimServer, SimState, SimUser},
};

pub use rules::{bonus_of, status_answer, BONUS_BINS};

use crate::config::API_PATH;

/// A shop the simulated bank knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimShop {
    pub shop_code: String,
    pub user_code: String,
    pub user_pass: Secret,
    /// Whether `BonusInquiry` is allowed (else `81`/`B810005`).
    pub bonus_inquiry: bool,
}

impl SimUser for SimShop {
    const CLIENT_FIELD: &'static str = "shopCode";

    fn client(&self) -> &str {
        &self.shop_code
    }
}

/// The shops the simulator accepts, and how it voids a captured pre-authorization.
#[derive(Debug, Clone, Default)]
pub struct SimCredentials {
    pub shops: Vec<SimShop>,
    /// A `Void` of a captured pre-authorization reverses the `PostAuth` alone and leaves the
    /// pre-authorization open (`TxnStatus A`; a second `Void` releases it). Off (default):
    /// one `Void` voids the whole order. Which one Denizbank does is not documented
    /// (README); the adapter must hold in both.
    pub void_reverses_capture_only: bool,
}

impl SimCredentials {
    /// Voids of a captured pre-authorization reverse the capture alone
    /// ([`Self::void_reverses_capture_only`]).
    pub fn voiding_captures_alone(mut self) -> Self {
        self.void_reverses_capture_only = true;
        self
    }

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
            user_pass: user_pass.into(),
            bonus_inquiry,
        });
        self
    }
}

/// How this simulated bank behaves where banks differ (see [`SimCredentials`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Variant {
    pub void_reverses_capture_only: bool,
}

/// The simulator's state: the kit's, the shops, and its [`Variant`].
pub type InterPosSim = sim::Sim<SimShop, Variant>;

/// Starts the simulator on a free loopback port. Accounts use `<server.url>` + [`API_PATH`]
/// as their `endpointUrl`.
pub async fn start(credentials: SimCredentials) -> std::io::Result<(SimServer, Arc<SimState>)> {
    sim::host(true, |state| router(state, credentials)).await
}

/// The simulator's routes over `state`.
pub fn router(state: Arc<SimState>, credentials: SimCredentials) -> Router {
    let api = Router::new().route(API_PATH, post(api));
    let variant = Variant {
        void_reverses_capture_only: credentials.void_reverses_capture_only,
    };
    InterPosSim::routes(state, credentials.shops, variant, api, &[""])
}

fn answer(pairs: &rules::Answer) -> Response {
    let body = write_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())));
    sim::respond("text/plain; charset=utf-8", body.into_bytes())
}

async fn api(State(sim): State<Arc<InterPosSim>>, headers: HeaderMap, body: Bytes) -> Response {
    let sim = &*sim;
    let technical = || answer(&rules::refused("", rules::TECHNICAL));
    sim::serve_request(&sim.state, technical, || {
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
        let Some(f) = form else {
            tracing::debug!("interpos sim refused an unreadable request");
            return Served::Answer(technical());
        };
        let v = |k: &str| f.get(k).unwrap_or("").trim().to_owned();
        let shop = sim.user(|s| {
            s.shop_code == v("ShopCode")
                && s.user_code == v("UserCode")
                && s.user_pass.matches(&v("UserPass"))
        });
        match shop {
            None => Served::Answer(answer(&rules::refused(&v("orgOrderId"), rules::BAD_USER))),
            Some(shop) if matches!(v("TxnType").as_str(), "PostAuth" | "Void" | "Refund") => {
                Served::Money(move || answer(&rules::handle(sim, shop, &f)))
            }
            Some(shop) => Served::Answer(answer(&rules::handle(sim, shop, &f))),
        }
    })
    .await
}
