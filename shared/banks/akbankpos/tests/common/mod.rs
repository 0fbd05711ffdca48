//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{sync::Arc, time::Duration};

use paygate_bank_akbankpos::{
    sim::{self, SimCredentials},
    AkbankPos, AkbankPosProvider, API_PATH, PROVIDER_CODE,
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

/// The Akbank test terminal of the MEWS crypt test.
pub const MERCHANT: &str = "2023090417500272654BD9A49CF07574";
pub const TERMINAL: &str = "2023090417500284633D137A249DBBEB";
pub const SECRET: &str = "3230323330393034313735303032363031353172675f357637355f3273387373745f7233725f73323333383737335f323272383774767276327672323531355f";
pub const TIMEOUT: Duration = Duration::from_millis(700);

/// 2024-04-20T10:48:02Z.
pub struct FixedClock;

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_millis(1_713_610_082_000)
    }
}

pub struct Bank {
    pub server: SimServer,
    pub state: Arc<SimState>,
    pub provider: AkbankPosProvider,
    pub creds: Arc<MemoryCredentials>,
    pub account: PosAccount,
}

pub fn account(id: &str) -> PosAccount {
    paygate_bankkit::sim::testing::test_account(id, PROVIDER_CODE, "0046", "Akbank")
}

pub fn secret(endpoint: &str, terminal: &str, key: &str) -> AccountCredentials {
    AccountCredentials::new(
        endpoint,
        [
            ("merchantSafeId".to_owned(), MERCHANT.to_owned()),
            ("terminalSafeId".to_owned(), terminal.to_owned()),
            ("secretKey".to_owned(), key.to_owned()),
            ("customerIp".to_owned(), "127.0.0.1".to_owned()),
        ],
    )
}

pub async fn bank() -> Bank {
    let accepted = SimCredentials::default()
        .with(MERCHANT, TERMINAL, SECRET)
        .with(MERCHANT, "OTHERTERMINAL", "other-key");
    let (server, state) = sim::start(accepted).await.unwrap();
    let creds = Arc::new(MemoryCredentials::default());
    let account = account("acc_akbank");
    creds.insert(
        account.id.clone(),
        secret(&format!("{}{API_PATH}", server.url), TERMINAL, SECRET),
    );
    let provider = AkbankPosProvider::new(
        AkbankPos::new(Arc::new(FixedClock)),
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

    pub async fn admin(
        &self,
        path: &str,
        json: &str,
    ) -> Result<Vec<u8>, paygate_bankkit::TransportError> {
        BankTransport::new(TIMEOUT)
            .unwrap()
            .post(
                &format!("{}{path}", self.server.url),
                "application/json",
                json.as_bytes().to_vec(),
            )
            .await
    }
}

#[allow(unused_imports)]
pub use paygate_bankkit::sim::testing::op;
