//! `POST /v1/payments/points/inquiry`: a card's points balances at its bank, through the
//! account given or the merchant's account at the card's issuing bank (BIN routing). With
//! an `Idempotency-Key`, runs at most once per key (`paygate_http::idempotency`).

use lambda_http::{Body, Request, Response};
use paygate_http::throttle::Scope;

/// Dependencies, built once per Lambda instance by `paygate_compose`.
pub use paygate_compose::PointsInquiry as Deps;

pub async fn handle(deps: &Deps, req: Request) -> Response<Body> {
    let run = paygate_http::handlers::points(&deps.points, &req);
    let run = paygate_http::idempotent(&deps.idempotency, &req, run);
    // Its own, stricter limit: it answers whether a card is valid.
    paygate_http::throttled(&deps.throttle, Scope::Points, &req, run).await
}
