//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{ops::Deref, time::Duration};

use paygate_bank_nestpay::{
    sim::{self, SimCredentials},
    Nestpay, NestpayProvider, API_PATH, PROVIDER_CODE,
};
use paygate_bankkit::{sim::testing::TestBank, AccountCredentials, BankTransport};
use paygate_domain::PosAccount;

pub const CLIENT_ID: &str = "700655000200";
pub const NAME: &str = "ISBANKAPI";
pub const PASSWORD: &str = "ISBANK07";
/// The adapter's bound on one call; fault latency above it is a time-out.
pub const TIMEOUT: Duration = Duration::from_millis(700);

/// The kit's test bank with this family's helpers.
pub struct Bank(TestBank<NestpayProvider>);

impl Deref for Bank {
    type Target = TestBank<NestpayProvider>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

pub fn account(id: &str) -> PosAccount {
    paygate_bankkit::sim::testing::test_account(id, PROVIDER_CODE, "0064", "Türkiye İş Bankası")
}

/// Secret values for an account at `endpoint`.
pub fn secret(
    endpoint: &str,
    client_id: &str,
    name: &str,
    password: &str,
    points: Option<&str>,
) -> AccountCredentials {
    let mut values = vec![
        ("clientId".to_owned(), client_id.to_owned()),
        ("name".to_owned(), name.to_owned()),
        ("password".to_owned(), password.to_owned()),
    ];
    if let Some(p) = points {
        values.push(("pointsInquiry".to_owned(), p.to_owned()));
    }
    AccountCredentials::new(endpoint, values)
}

/// The bank knows one store (points inquiry allowed) and a second one without points.
pub async fn bank() -> Bank {
    bank_with(|c| c).await
}

/// [`bank`] with its simulator's credentials (and variant) changed by `tune`.
pub async fn bank_with(tune: impl FnOnce(SimCredentials) -> SimCredentials) -> Bank {
    let accepted = tune(
        SimCredentials::default()
            .with(CLIENT_ID, NAME, PASSWORD, true)
            .with("190100000", "AKBANKAPI", "AKBANK01", false),
    );
    Bank(TestBank::new(
        sim::start(accepted).await.unwrap(),
        account,
        "acc_isbank",
        API_PATH,
        |endpoint| secret(endpoint, CLIENT_ID, NAME, PASSWORD, Some("maxipuan")),
        |creds| NestpayProvider::new(Nestpay, BankTransport::new(TIMEOUT), creds),
    ))
}

impl Bank {
    /// Posts a hand-written body to the API and reads the `CC5Response`.
    pub async fn raw(
        &self,
        content_type: &str,
        body: Vec<u8>,
    ) -> paygate_bank_nestpay::response::Reply {
        let bytes = BankTransport::new(TIMEOUT)
            .post(&self.endpoint(), content_type, body)
            .await
            .unwrap();
        <paygate_bank_nestpay::response::Reply as paygate_bankkit::BankReply>::decode(&bytes)
            .unwrap()
    }
}

#[allow(unused_imports)]
pub use paygate_bankkit::sim::testing::op;

#[allow(unused_imports)]
pub use paygate_bankkit::sim::testing::card;
