//! The dashboard's webhook endpoints (IAM-authorized admin routes): create, list, read,
//! update and delete endpoints, rotate an endpoint's signing secret, send it a test event.
//! Routes on the HTTP API route key; the handlers are `paygate_http::admin::endpoints`.

use lambda_http::{Body, Request, Response};

/// Dependencies, built once per Lambda instance by `paygate_compose`.
pub use paygate_compose::AdminEndpoints as Deps;

pub async fn handle(deps: &Deps, req: Request) -> Response<Body> {
    paygate_http::admin::http::handle_endpoints(&deps.admin, req).await
}

#[cfg(test)]
mod tests;
