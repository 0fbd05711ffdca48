//! `POST /v1/payments/points/inquiry`: a card's points balances at its bank, through the
//! account given or the merchant's account at the card's issuing bank (BIN routing).
//!
//! No `Idempotency-Key` here: the header is accepted and ignored. The inquiry reads (it
//! moves no money, so running it again is harmless), and an idempotency record would keep
//! what PCI DSS forbids keeping: the request's fingerprint is a digest of its body — card
//! number, CVV, expiry, holder — and an unkeyed digest of a card number is card data (and an
//! equality oracle). So nothing of a points inquiry is stored, in any table.

use lambda_http::{Body, Request, Response};
use paygate_http::throttle::Scope;

/// Dependencies, built once per Lambda instance by `paygate_compose`.
pub use paygate_compose::PointsInquiry as Deps;

pub async fn handle(deps: &Deps, req: Request) -> Response<Body> {
    let run = paygate_http::handlers::points(&deps.points, &req);
    // Its own, stricter limit (it answers whether a card is valid), failing closed.
    paygate_http::throttled(&deps.throttle, Scope::Points, &req, run).await
}

#[cfg(test)]
mod tests;
