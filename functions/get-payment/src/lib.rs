//! `GET /v1/payments/{id}`: the payment as recorded, with its transactions. Read-only.

use std::sync::Arc;

use lambda_http::{Body, Request, Response};
use paygate_domain::ports::PaymentReader;

pub struct Deps {
    pub payments: Arc<dyn PaymentReader>,
}

impl Deps {
    pub async fn from_env() -> Result<Self, paygate_compose::ConfigError> {
        let payments = paygate_compose::table(&paygate_aws::dynamo::schema::PAYMENTS)?;
        let client = paygate_aws::Clients::from_env().await.dynamo;
        // The events table is never written by this function.
        Ok(Self {
            payments: Arc::new(paygate_aws::dynamo::DynamoPayments::new(
                client, payments, "",
            )),
        })
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Response<Body> {
    paygate_http::handlers::get(deps.payments.as_ref(), &req).await
}
