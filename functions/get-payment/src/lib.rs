//! `GET /v1/payments/{id}`: the payment as recorded, with its transactions. Read-only.

use lambda_http::{Body, Request, Response};

/// Dependencies, built once per Lambda instance by `paygate_compose`.
pub use paygate_compose::GetPayment as Deps;

pub async fn handle(deps: &Deps, req: Request) -> Response<Body> {
    paygate_http::handlers::get(deps.payments.as_ref(), &req).await
}
