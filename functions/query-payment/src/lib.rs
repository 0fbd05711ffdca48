//! `POST /v1/payments/{id}/query`: asks the bank for the order's state, returns it with the
//! recorded payment, settles an operation whose outcome was unknown, and finalizes a
//! `pending` payment. See `paygate_payments::query_payment`. With an `Idempotency-Key`, runs at
//! most once per key (`paygate_http::idempotency`).

use lambda_http::{Body, Request, Response};
use paygate_http::handlers::PaymentOperation;

/// Dependencies, built once per Lambda instance by `paygate_compose` (shared by the four
/// payment operations, whose one handler is [`Deps::handle`]).
pub use paygate_compose::MoneyOperation as Deps;

pub async fn handle(deps: &Deps, req: Request) -> Response<Body> {
    deps.handle(PaymentOperation::Query, &req).await
}
