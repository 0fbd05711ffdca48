//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{ops::Deref, sync::Arc, time::Duration};

use paygate_bank_toslapos::{
    sim::{self, SimCredentials},
    ToslaPos, ToslaPosProvider, API_PATH, PROVIDER_CODE,
};
use paygate_bankkit::{sim::testing::TestBank, AccountCredentials, BankTransport};
use paygate_domain::{ports::Clock, time::Timestamp, PosAccount};

/// Tosla's public test client (developer centre, MEWS `ToslaPosCryptTest`).
pub const CLIENT_ID: &str = "1000000494";
pub const API_USER: &str = "POS_ENT_Test_001";
pub const API_PASS: &str = "POS_ENT_Test_001!*!*";
pub const TIMEOUT: Duration = Duration::from_millis(700);

/// 2023-12-09T17:11:21Z (20231209201121 in Istanbul).
pub struct FixedClock;

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_millis(1_702_141_881_000)
    }
}

/// The kit's test bank with this family's helpers.
pub struct Bank(TestBank<ToslaPosProvider>);

impl Deref for Bank {
    type Target = TestBank<ToslaPosProvider>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

pub fn account(id: &str) -> PosAccount {
    paygate_bankkit::sim::testing::test_account(id, PROVIDER_CODE, "0000", "Tosla")
}

pub fn secret(endpoint: &str, api_pass: &str) -> AccountCredentials {
    AccountCredentials::new(
        endpoint,
        [
            ("clientId".to_owned(), CLIENT_ID.to_owned()),
            ("apiUser".to_owned(), API_USER.to_owned()),
            ("apiPass".to_owned(), api_pass.to_owned()),
        ],
    )
}

pub async fn bank() -> Bank {
    let accepted = SimCredentials::default()
        .with(CLIENT_ID, API_USER, API_PASS)
        .with("1000000777", "OTHER", "other-pass");
    Bank(TestBank::new(
        sim::start(accepted).await.unwrap(),
        account,
        "acc_tosla",
        API_PATH,
        |endpoint| secret(endpoint, API_PASS),
        |creds| {
            ToslaPosProvider::new(
                ToslaPos::new(Arc::new(FixedClock)),
                BankTransport::new(TIMEOUT),
                creds,
            )
        },
    ))
}

impl Bank {
    /// Posts `body` to the API path `path` of the simulator, as is.
    pub async fn raw(&self, path: &str, body: &str) -> Vec<u8> {
        BankTransport::new(TIMEOUT)
            .post(
                &format!("{}/{path}", self.endpoint()),
                "application/json",
                body.as_bytes().to_vec(),
            )
            .await
            .unwrap()
    }
}

#[allow(unused_imports)]
pub use paygate_bankkit::sim::testing::op;
