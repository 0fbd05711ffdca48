//! The dashboard's webhook endpoints (IAM-authorized admin routes): create, list, read,
//! update and delete endpoints, rotate an endpoint's signing secret, send it a test event.
//! Routes on the HTTP API route key; the handlers are `paygate_http::admin::endpoints`.

use lambda_http::{Body, Request, Response};

pub struct Deps {
    pub admin: paygate_http::admin::EndpointsDeps,
}

impl Deps {
    /// Tables, queue and secret prefix from the environment; the strict egress policy
    /// unless `PAYGATE_WEBHOOK_ALLOW_ADDRS` is set (never in the template).
    pub async fn from_env() -> Result<Self, paygate_compose::ConfigError> {
        let tables = paygate_compose::AdminTables::from_env()?;
        let prefix = paygate_compose::webhook_secret_prefix_from_env()?;
        let egress = paygate_compose::egress_policy_from_env()?;
        let client = paygate_aws::Clients::from_env().await.dynamo;
        let sqs = paygate_aws::Clients::from_env().await.sqs;
        let secrets = paygate_aws::Clients::from_env().await.secrets;
        let (clock, ids) = paygate_compose::system();
        let parts = paygate_compose::AdminParts {
            client: &client,
            sqs: &sqs,
            tables: &tables,
            clock,
        };
        Ok(Self {
            admin: paygate_compose::admin_endpoints_deps(&parts, &secrets, ids, egress, &prefix),
        })
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Response<Body> {
    paygate_http::admin::http::handle_endpoints(&deps.admin, req).await
}

#[cfg(test)]
mod tests;
