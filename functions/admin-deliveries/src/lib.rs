//! The dashboard's delivery history (IAM-authorized admin routes): an endpoint's
//! deliveries, one delivery with its attempts, resend, an event's deliveries. Routes on the
//! HTTP API route key; the handlers are `paygate_http::admin::deliveries`.

use lambda_http::{Body, Request, Response};

/// Dependencies, built once per Lambda instance by `paygate_compose`.
pub use paygate_compose::AdminDeliveries as Deps;

pub async fn handle(deps: &Deps, req: Request) -> Response<Body> {
    paygate_http::admin::http::handle_deliveries(&deps.admin, req).await
}

#[cfg(test)]
mod tests;
