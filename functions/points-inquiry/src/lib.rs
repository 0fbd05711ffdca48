//! `POST /v1/payments/points/inquiry`: a card's points balances at its bank, through the
//! account given or the merchant's account at the card's issuing bank (BIN routing).

use lambda_http::{Body, Request, Response};
use paygate_ops::PointsDeps;

pub struct Deps {
    pub points: PointsDeps,
}

impl Deps {
    pub async fn from_env() -> Result<Self, paygate_compose::ConfigError> {
        let tables = paygate_compose::PointsTables::from_env()?;
        let client = paygate_dynamo::client_from_env().await;
        let banks = paygate_compose::Banks::from_env().await?;
        let (clock, _) = paygate_compose::system();
        Ok(Self {
            points: paygate_compose::points_deps(&client, &tables, &banks, clock),
        })
    }
}

pub async fn handle(deps: &Deps, req: Request) -> Response<Body> {
    paygate_http::handlers::points(&deps.points, &req).await
}
