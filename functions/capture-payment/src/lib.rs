//! `POST /v1/payments/{id}/capture`: closes a pre-authorization, fully or partially.
//!
//! Reserve on the payment (conditional write), ask the bank, then commit payment,
//! transaction and outbox event in one transaction. See `paygate_payments::run_operation`.
//! With an `Idempotency-Key`, runs at most once per key (`paygate_http::idempotency`).

use lambda_http::{Body, Request, Response};
use paygate_domain::TransactionType;
use paygate_payments::OperationDeps;

/// Dependencies, built once per Lambda instance.
pub struct Deps {
    pub ops: OperationDeps,
    /// `Idempotency-Key` records.
    pub idempotency: paygate_http::Idempotency,
}

impl Deps {
    pub async fn from_env() -> Result<Self, paygate_compose::ConfigError> {
        let tables = paygate_compose::OperationTables::from_env()?;
        let client = paygate_aws::Clients::from_env().await.dynamo;
        let sqs = paygate_aws::Clients::from_env().await.sqs;
        let banks = paygate_compose::Banks::from_env().await?;
        let idempotency_table = paygate_compose::idempotency_table_from_env()?;
        let (clock, ids) = paygate_compose::system();
        Ok(Self {
            idempotency: paygate_compose::idempotency(
                &client,
                &idempotency_table,
                clock.clone(),
                ids.clone(),
            ),
            ops: paygate_compose::operation_deps(&client, &sqs, &tables, &banks, clock, ids),
        })
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Response<Body> {
    let run = paygate_http::handlers::money_operation(&deps.ops, &req, TransactionType::Capture);
    paygate_http::idempotent(&deps.idempotency, &req, run).await
}
