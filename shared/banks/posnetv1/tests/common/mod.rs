//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{sync::Arc, time::Duration};

use paygate_bank_posnetv1::{
    sim::{self, SimCredentials},
    PosNetV1, PosNetV1Provider, API_PATH, PROVIDER_CODE,
};
use paygate_bankkit::{
    sim::{Faults, SimServer, SimState},
    AccountCredentials, BankTransport, MemoryCredentials,
};
use paygate_domain::{ports::TestOrderState, PosAccount};

/// The Albaraka test terminal of the MEWS crypt test.
pub const MERCHANT: &str = "6700950031";
pub const TERMINAL: &str = "67540050";
pub const ENC_KEY: &str = "10,10,10,10,10,10,10,10";
pub const TIMEOUT: Duration = Duration::from_millis(700);

pub struct Bank {
    pub server: SimServer,
    pub state: Arc<SimState>,
    pub provider: PosNetV1Provider,
    pub creds: Arc<MemoryCredentials>,
    pub account: PosAccount,
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
    let (server, state) = sim::start(accepted).await.unwrap();
    let creds = Arc::new(MemoryCredentials::default());
    let account = account("acc_albaraka");
    creds.insert(
        account.id.clone(),
        secret(&format!("{}{API_PATH}", server.url), TERMINAL, ENC_KEY),
    );
    let provider = PosNetV1Provider::new(
        PosNetV1::new(),
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
