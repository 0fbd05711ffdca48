//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{ops::Deref, time::Duration};

use paygate_bank_interpos::{
    sim::{self, SimCredentials},
    InterPos, InterPosProvider, API_PATH, PROVIDER_CODE,
};
use paygate_bankkit::{sim::testing::TestBank, AccountCredentials, BankTransport};
use paygate_domain::PosAccount;

/// MEWS test shop and user (`InterPosRequestDataMapperTest`); a password distinctive enough
/// for the logging test to look for (MEWS uses `3`).
pub const SHOP: &str = "3123";
pub const USER: &str = "InterTestApi";
pub const PASSWORD: &str = "Sifre.Inter3123";
/// The adapter's bound on one call; fault latency above it is a time-out.
pub const TIMEOUT: Duration = Duration::from_millis(700);

/// The kit's test bank with this family's helpers.
pub struct Bank(TestBank<InterPosProvider>);

impl Deref for Bank {
    type Target = TestBank<InterPosProvider>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

pub fn account(id: &str) -> PosAccount {
    paygate_bankkit::sim::testing::test_account(id, PROVIDER_CODE, "0134", "Denizbank")
}

pub fn secret(
    endpoint: &str,
    shop: &str,
    user: &str,
    password: &str,
    bonus: bool,
) -> AccountCredentials {
    let mut values = vec![
        ("shopCode".to_owned(), shop.to_owned()),
        ("userCode".to_owned(), user.to_owned()),
        ("userPass".to_owned(), password.to_owned()),
    ];
    if bonus {
        values.push(("pointsInquiry".to_owned(), "bonus".to_owned()));
    }
    AccountCredentials::new(endpoint, values)
}

/// The bank knows two shops: this one with Bonus inquiry, another without.
pub async fn bank() -> Bank {
    bank_with(|c| c).await
}

/// [`bank`] with its simulator's credentials (and variant) changed by `tune`.
pub async fn bank_with(tune: impl FnOnce(SimCredentials) -> SimCredentials) -> Bank {
    let accepted = tune(
        SimCredentials::default()
            .with(SHOP, USER, PASSWORD, true)
            .with("4455", "OtherApi", "OTHER01", false),
    );
    Bank(TestBank::new(
        sim::start(accepted).await.unwrap(),
        account,
        "acc_denizbank",
        API_PATH,
        |endpoint| secret(endpoint, SHOP, USER, PASSWORD, true),
        |creds| InterPosProvider::new(InterPos, BankTransport::new(TIMEOUT), creds),
    ))
}

impl Bank {
    /// Posts a hand-written body to the API and returns the answer's text.
    pub async fn raw(&self, content_type: &str, body: Vec<u8>) -> String {
        let bytes = BankTransport::new(TIMEOUT)
            .post(&self.endpoint(), content_type, body)
            .await
            .unwrap();
        String::from_utf8(bytes).unwrap()
    }
}

#[allow(unused_imports)]
pub use paygate_bankkit::sim::testing::op;

#[allow(unused_imports)]
pub use paygate_bankkit::sim::testing::card;
