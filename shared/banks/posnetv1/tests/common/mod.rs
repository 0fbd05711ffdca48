//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{ops::Deref, time::Duration};

use paygate_bank_posnetv1::{
    sim::{self, SimCredentials},
    PosNetV1, PosNetV1Provider, API_PATH, PROVIDER_CODE,
};
use paygate_bankkit::{sim::testing::TestBank, AccountCredentials, BankTransport};
use paygate_domain::PosAccount;

/// The Albaraka test terminal of the MEWS crypt test.
pub const MERCHANT: &str = "6700950031";
pub const TERMINAL: &str = "67540050";
pub const ENC_KEY: &str = "10,10,10,10,10,10,10,10";
pub const TIMEOUT: Duration = Duration::from_millis(700);

/// The kit's test bank with this family's helpers.
pub struct Bank(TestBank<PosNetV1Provider>);

impl Deref for Bank {
    type Target = TestBank<PosNetV1Provider>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

pub fn account(id: &str) -> PosAccount {
    paygate_bankkit::sim::testing::test_account(id, PROVIDER_CODE, "0203", "Albaraka Türk")
}

pub fn secret(endpoint: &str, terminal: &str, key: &str) -> AccountCredentials {
    AccountCredentials::new(
        endpoint,
        [
            ("merchantNo".to_owned(), MERCHANT.to_owned()),
            ("terminalNo".to_owned(), terminal.to_owned()),
            ("encKey".to_owned(), key.to_owned()),
        ],
    )
}

pub async fn bank() -> Bank {
    let accepted = SimCredentials::default()
        .with(MERCHANT, TERMINAL, ENC_KEY)
        .with(MERCHANT, "67540051", "other-key");
    Bank(TestBank::new(
        sim::start(accepted).await.unwrap(),
        account,
        "acc_albaraka",
        API_PATH,
        |endpoint| secret(endpoint, TERMINAL, ENC_KEY),
        |creds| PosNetV1Provider::new(PosNetV1::new(), BankTransport::new(TIMEOUT), creds),
    ))
}

impl Bank {
    /// The kinds of the order's transactions at the bank, oldest first.
    pub fn kinds(&self, order_id: &str) -> Vec<&'static str> {
        self.state
            .ledger_of(TERMINAL, order_id)
            .map(|l| l.operations.iter().map(|t| t.kind).collect())
            .unwrap_or_default()
    }
}

#[allow(unused_imports)]
pub use paygate_bankkit::sim::testing::op;
