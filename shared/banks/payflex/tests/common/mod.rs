//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{ops::Deref, time::Duration};

use paygate_bank_payflex::{
    sim::{self, SimCredentials},
    PayFlex, PayFlexProvider, PROVIDER_CODE, VPOS_PATH,
};
use paygate_bankkit::{sim::testing::TestBank, AccountCredentials, BankTransport};
use paygate_domain::PosAccount;

/// MEWS test account values (`PayFlexV4PosRequestDataMapperTest`).
pub const MERCHANT_ID: &str = "000000000111111";
pub const PASSWORD: &str = "3XTgER89as";
pub const TERMINAL: &str = "VP999999";
/// The adapter's bound on one call; fault latency above it is a time-out.
pub const TIMEOUT: Duration = Duration::from_millis(700);

/// The kit's test bank with this family's helpers.
pub struct Bank(TestBank<PayFlexProvider>);

impl Deref for Bank {
    type Target = TestBank<PayFlexProvider>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

pub fn account(id: &str) -> PosAccount {
    paygate_bankkit::sim::testing::test_account(
        id,
        PROVIDER_CODE,
        "0015",
        "Türkiye Vakıflar Bankası",
    )
}

pub fn secret(
    endpoint: &str,
    merchant_id: &str,
    password: &str,
    terminal: &str,
) -> AccountCredentials {
    AccountCredentials::new(
        endpoint,
        [
            ("merchantId".to_owned(), merchant_id.to_owned()),
            ("password".to_owned(), password.to_owned()),
            ("terminalNo".to_owned(), terminal.to_owned()),
        ],
    )
}

/// The bank knows two merchants.
pub async fn bank() -> Bank {
    bank_with(|c| c).await
}

/// [`bank`] with its simulator's credentials (and variant) changed by `tune`.
pub async fn bank_with(tune: impl FnOnce(SimCredentials) -> SimCredentials) -> Bank {
    let accepted = tune(
        SimCredentials::default()
            .with(MERCHANT_ID, PASSWORD, TERMINAL)
            .with("000100000013506", "OTHER01", "VP000579"),
    );
    Bank(TestBank::new(
        sim::start(accepted).await.unwrap(),
        account,
        "acc_vakifbank",
        VPOS_PATH,
        |endpoint| secret(endpoint, MERCHANT_ID, PASSWORD, TERMINAL),
        |creds| PayFlexProvider::new(PayFlex, BankTransport::new(TIMEOUT), creds),
    ))
}

impl Bank {
    /// Posts a hand-written form body to `path` and returns the answer's text.
    pub async fn raw(&self, path: &str, content_type: &str, body: Vec<u8>) -> String {
        let bytes = BankTransport::new(TIMEOUT)
            .post(&format!("{}{path}", self.server.url), content_type, body)
            .await
            .unwrap();
        String::from_utf8(bytes).unwrap()
    }
}

#[allow(unused_imports)]
pub use paygate_bankkit::sim::testing::op;

#[allow(unused_imports)]
pub use paygate_bankkit::sim::testing::card;
