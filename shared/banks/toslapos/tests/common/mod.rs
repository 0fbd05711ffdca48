//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{sync::Arc, time::Duration};

use paygate_bank_toslapos::{
    sim::{self, SimCredentials},
    ToslaPos, ToslaPosProvider, API_PATH, PROVIDER_CODE,
};
use paygate_bankkit::{
    sim::{Faults, SimServer, SimState},
    AccountCredentials, BankTransport, MemoryCredentials,
};
use paygate_domain::{
    ports::{Clock, TestOrderState},
    time::Timestamp,
    PosAccount,
};

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

pub struct Bank {
    pub server: SimServer,
    pub state: Arc<SimState>,
    pub provider: ToslaPosProvider,
    pub creds: Arc<MemoryCredentials>,
    pub account: PosAccount,
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
    let (server, state) = sim::start(accepted).await.unwrap();
    let creds = Arc::new(MemoryCredentials::default());
    let account = account("acc_tosla");
    creds.insert(
        account.id.clone(),
        secret(&format!("{}{API_PATH}", server.url), API_PASS),
    );
    let provider = ToslaPosProvider::new(
        ToslaPos::new(Arc::new(FixedClock)),
        BankTransport::new(TIMEOUT).unwrap(),
        creds.clone(),
    );
    Bank {
        server,
        state,
        provider,
        creds,
        account,
    }
}

impl Bank {
    pub fn endpoint(&self) -> String {
        format!("{}{API_PATH}", self.server.url)
    }

    pub async fn order(&self, order_id: &str, amount: i64, state: TestOrderState, settled: bool) {
        paygate_bankkit::sim::testing::register_order(
            &self.provider,
            &self.account,
            order_id,
            amount,
            state,
            settled,
        )
        .await
        .unwrap();
    }

    pub fn faults(&self, f: Faults) {
        *self.state.faults() = f;
    }

    pub fn other_account(&self, id: &str, secret: AccountCredentials) -> PosAccount {
        let acc = account(id);
        self.creds.insert(acc.id.clone(), secret);
        acc
    }

    /// Posts `body` to the API path `path` of the simulator, as is.
    pub async fn raw(&self, path: &str, body: &str) -> Vec<u8> {
        BankTransport::new(TIMEOUT)
            .unwrap()
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
