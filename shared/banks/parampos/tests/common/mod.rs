//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{ops::Deref, time::Duration};

use paygate_bank_parampos::{
    sim::{self, SimCredentials},
    ParamPos, ParamPosProvider, API_PATH, PROVIDER_CODE,
};
use paygate_bankkit::{sim::testing::TestBank, AccountCredentials, BankTransport};
use paygate_domain::PosAccount;

/// Param's public test account (dev.param.com.tr "Test Bilgileri", MEWS tests), with a
/// password of our own.
pub const CLIENT_CODE: &str = "10738";
pub const CLIENT_USERNAME: &str = "Test";
pub const CLIENT_PASSWORD: &str = "Pa55-Test";
pub const GUID: &str = "0c13d406-873b-403b-9c09-a5766840d98c";
/// The adapter's bound on one call; fault latency above it is a time-out.
pub const TIMEOUT: Duration = Duration::from_millis(700);

/// The kit's test bank with this family's helpers.
pub struct Bank(TestBank<ParamPosProvider>);

impl Deref for Bank {
    type Target = TestBank<ParamPosProvider>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

pub fn account(id: &str) -> PosAccount {
    paygate_bankkit::sim::testing::test_account(id, PROVIDER_CODE, "0000", "Param")
}

/// Secret values for an account at `endpoint`.
pub fn secret(endpoint: &str, code: &str, password: &str, guid: &str) -> AccountCredentials {
    AccountCredentials::new(
        endpoint,
        [
            ("clientCode".to_owned(), code.to_owned()),
            ("clientUsername".to_owned(), CLIENT_USERNAME.to_owned()),
            ("clientPassword".to_owned(), password.to_owned()),
            ("guid".to_owned(), guid.to_owned()),
        ],
    )
}

/// The service knows the test account and a second one.
pub async fn bank() -> Bank {
    let accepted = SimCredentials::default()
        .with(CLIENT_CODE, CLIENT_USERNAME, CLIENT_PASSWORD, GUID)
        .with("10739", CLIENT_USERNAME, "other", GUID);
    Bank(TestBank::new(
        sim::start(accepted).await.unwrap(),
        account,
        "acc_param",
        API_PATH,
        |endpoint| secret(endpoint, CLIENT_CODE, CLIENT_PASSWORD, GUID),
        |creds| ParamPosProvider::new(ParamPos, BankTransport::new(TIMEOUT), creds),
    ))
}

impl Bank {
    /// Posts a hand-written body to the service and reads the answer.
    pub async fn raw(&self, body: &str) -> paygate_bank_parampos::response::Reply {
        let bytes = BankTransport::new(TIMEOUT)
            .post(
                &self.endpoint(),
                "text/xml; charset=utf-8",
                body.as_bytes().to_vec(),
            )
            .await
            .unwrap();
        <paygate_bank_parampos::response::Reply as paygate_bankkit::BankReply>::decode(&bytes)
            .unwrap()
    }

    /// Moves the service past its end-of-day cut.
    pub async fn end_of_day(&self) {
        BankTransport::new(TIMEOUT)
            .post(
                &format!("{}/_sim/end-of-day", self.server.url),
                "application/json",
                b"{}".to_vec(),
            )
            .await
            .unwrap();
    }
}

#[allow(unused_imports)]
pub use paygate_bankkit::sim::testing::op;
