//! The dashboard's delivery history (IAM-authorized admin routes): an endpoint's
//! deliveries, one delivery with its attempts, resend, an event's deliveries. Routes on the
//! HTTP API route key; the handlers are `paygate_admin::deliveries`.

use lambda_http::{Body, Request, Response};

pub struct Deps {
    pub admin: paygate_admin::DeliveriesDeps,
}

impl Deps {
    pub async fn from_env() -> Result<Self, paygate_compose::ConfigError> {
        let tables = paygate_compose::AdminTables::from_env()?;
        let client = paygate_dynamo::client_from_env().await;
        let sqs = paygate_sqs::client_from_env().await;
        let (clock, _) = paygate_compose::system();
        let parts = paygate_compose::AdminParts {
            client: &client,
            sqs: &sqs,
            tables: &tables,
            clock,
        };
        Ok(Self {
            admin: paygate_compose::admin_deliveries_deps(&parts),
        })
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Response<Body> {
    paygate_admin::http::handle_deliveries(&deps.admin, req).await
}

#[cfg(test)]
mod tests;
