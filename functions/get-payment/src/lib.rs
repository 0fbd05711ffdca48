//! `GET /v1/payments/{id}`: the payment as recorded, with its transactions; and
//! `GET /v1/payments/{id}/transactions`: its transactions alone, oldest first. Read-only.

use lambda_http::{Body, Request, Response};
use paygate_http::throttle::Scope;

/// Dependencies, built once per Lambda instance by `paygate_compose`.
pub use paygate_compose::GetPayment as Deps;

pub async fn handle(deps: &Deps, req: Request) -> Response<Body> {
    use paygate_http::handlers::{get, is_transactions_request, transactions};
    if is_transactions_request(&req) {
        let run = transactions(deps.payments.as_ref(), &req);
        return paygate_http::throttled(&deps.throttle, Scope::Api, &req, run).await;
    }
    let run = get(deps.payments.as_ref(), &req);
    paygate_http::throttled(&deps.throttle, Scope::Api, &req, run).await
}
