//! `POST /v1/payments/{id}/capture`: closes a pre-authorization, fully or partially.
//!
//! Reserve on the payment (conditional write), ask the bank, then commit payment,
//! transaction and outbox event in one transaction. See `paygate_payments::run_operation`.
//! With an `Idempotency-Key`, runs at most once per key (`paygate_http::idempotency`).

use lambda_http::{Body, Request, Response};
use paygate_http::handlers::PaymentOperation;

/// Dependencies, built once per Lambda instance by `paygate_compose` (shared by the four
/// payment operations, whose one handler is [`Deps::handle`]).
pub use paygate_compose::MoneyOperation as Deps;

pub async fn handle(deps: &Deps, req: Request) -> Response<Body> {
    deps.handle(PaymentOperation::Capture, &req).await
}
