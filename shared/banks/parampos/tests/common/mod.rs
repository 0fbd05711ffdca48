//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{sync::Arc, time::Duration};

use paygate_bank_parampos::{
    sim::{self, SimCredentials},
    ParamPos, ParamPosProvider, API_PATH, PROVIDER_CODE,
};
use paygate_bankkit::{
    sim::{Faults, SimServer, SimState},
    AccountCredentials, BankTransport, MemoryCredentials,
};
use paygate_domain::{ports::TestOrderState, PosAccount};

/// Param's public test account (dev.param.com.tr "Test Bilgileri", MEWS tests), with a
/// password of our own.
pub const CLIENT_CODE: &str = "10738";
pub const CLIENT_USERNAME: &str = "Test";
pub const CLIENT_PASSWORD: &str = "Pa55-Test";
pub const GUID: &str = "0c13d406-873b-403b-9c09-a5766840d98c";
/// The adapter's bound on one call; fault latency above it is a time-out.
pub const TIMEOUT: Duration = Duration::from_millis(700);

pub struct Bank {
    pub server: SimServer,
    pub state: Arc<SimState>,
    pub provider: ParamPosProvider,
    pub creds: Arc<MemoryCredentials>,
    pub account: PosAccount,
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
    let (server, state) = sim::start(accepted).await.unwrap();
    let creds = Arc::new(MemoryCredentials::default());
    let account = account("acc_param");
    creds.insert(
        account.id.clone(),
        secret(
            &format!("{}{API_PATH}", server.url),
            CLIENT_CODE,
            CLIENT_PASSWORD,
            GUID,
        ),
    );
    let provider = ParamPosProvider::new(
        ParamPos,
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

    /// Registers an order through the adapter's test helper (the admin route).
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

    /// Another account of the same merchant at this service, with other secret values.
    pub fn other_account(&self, id: &str, secret: AccountCredentials) -> PosAccount {
        let acc = account(id);
        self.creds.insert(acc.id.clone(), secret);
        acc
    }

    /// Posts a hand-written body to the service and reads the answer.
    pub async fn raw(&self, body: &str) -> paygate_bank_parampos::response::Reply {
        let bytes = BankTransport::new(TIMEOUT)
            .unwrap()
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
            .unwrap()
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
