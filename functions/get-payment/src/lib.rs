//! `GET /v1/payments/{id}`: the payment as recorded, with its transactions. Read-only.

use lambda_http::{Body, Request, Response};
use paygate_http::throttle::Scope;

/// Dependencies, built once per Lambda instance by `paygate_compose`.
pub use paygate_compose::GetPayment as Deps;

pub async fn handle(deps: &Deps, req: Request) -> Response<Body> {
    let run = paygate_http::handlers::get(deps.payments.as_ref(), &req);
    paygate_http::throttled(&deps.throttle, Scope::Api, &req, run).await
}
