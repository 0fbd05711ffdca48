//! `POST /v1/payments/points/inquiry`: a card's points balances at its bank, through the
//! account given or the merchant's account at the card's issuing bank (BIN routing). With
//! an `Idempotency-Key`, runs at most once per key (`paygate_http::idempotency`).

use lambda_http::{Body, Request, Response};
use paygate_payments::PointsDeps;

pub struct Deps {
    pub points: PointsDeps,
    /// `Idempotency-Key` records.
    pub idempotency: paygate_http::Idempotency,
}

impl Deps {
    pub async fn from_env() -> Result<Self, paygate_compose::ConfigError> {
        let tables = paygate_compose::PointsTables::from_env()?;
        let client = paygate_aws::Clients::from_env().await.dynamo;
        let banks = paygate_compose::Banks::from_env().await?;
        let idempotency_table = paygate_compose::idempotency_table_from_env()?;
        let (clock, ids) = paygate_compose::system();
        Ok(Self {
            idempotency: paygate_compose::idempotency(
                &client,
                &idempotency_table,
                clock.clone(),
                ids,
            ),
            points: paygate_compose::points_deps(&client, &tables, &banks, clock),
        })
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Response<Body> {
    let run = paygate_http::handlers::points(&deps.points, &req);
    paygate_http::idempotent(&deps.idempotency, &req, run).await
}
