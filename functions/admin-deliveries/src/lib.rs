//! The dashboard's delivery history (IAM-authorized admin routes): an endpoint's
//! deliveries, one delivery with its attempts, resend, an event's deliveries. Routes on the
//! HTTP API route key; the handlers are `paygate_http::admin::deliveries`.

use lambda_http::{Body, Request, Response};

pub struct Deps {
    pub admin: paygate_http::admin::DeliveriesDeps,
}

impl Deps {
    pub async fn from_env() -> Result<Self, paygate_compose::ConfigError> {
        let tables = paygate_compose::AdminTables::from_env()?;
        let client = paygate_aws::Clients::from_env().await.dynamo;
        let sqs = paygate_aws::Clients::from_env().await.sqs;
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
    paygate_http::admin::http::handle_deliveries(&deps.admin, req).await
}

#[cfg(test)]
mod tests;
