//! `POST /v1/payments/{id}/refund`: refunds part or all of the remaining captured amount;
//! and `POST /v1/payments/{id}/reverse`: a void or a refund, whichever the payment needs.
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
    // `POST /v1/payments/{id}/reverse` too: a void or a refund, the same money path
    // (`paygate_http::reverse`).
    let op = if paygate_http::reverse::is_reverse_request(&req) {
        PaymentOperation::Reverse
    } else {
        PaymentOperation::Refund
    };
    deps.handle(op, &req).await
}

#[cfg(test)]
mod tests;
