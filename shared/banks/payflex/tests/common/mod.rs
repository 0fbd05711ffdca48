//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{sync::Arc, time::Duration};

use paygate_bank_payflex::{
    sim::{self, SimCredentials},
    PayFlex, PayFlexProvider, PROVIDER_CODE, VPOS_PATH,
};
use paygate_bankkit::{
    sim::{Faults, SimServer, SimState},
    AccountCredentials, BankTransport, MemoryCredentials,
};
use paygate_domain::{ports::TestOrderState, PosAccount};

/// MEWS test account values (`PayFlexV4PosRequestDataMapperTest`).
pub const MERCHANT_ID: &str = "000000000111111";
pub const PASSWORD: &str = "3XTgER89as";
pub const TERMINAL: &str = "VP999999";
/// The adapter's bound on one call; fault latency above it is a time-out.
pub const TIMEOUT: Duration = Duration::from_millis(700);

pub struct Bank {
    pub server: SimServer,
    pub state: Arc<SimState>,
    pub provider: PayFlexProvider,
    pub creds: Arc<MemoryCredentials>,
    pub account: PosAccount,
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
    let (server, state) = sim::start(accepted).await.unwrap();
    let creds = Arc::new(MemoryCredentials::default());
    let account = account("acc_vakifbank");
    creds.insert(
        account.id.clone(),
        secret(
            &format!("{}{VPOS_PATH}", server.url),
            MERCHANT_ID,
            PASSWORD,
            TERMINAL,
        ),
    );
    let provider =
        PayFlexProvider::new(PayFlex, BankTransport::new(TIMEOUT).unwrap(), creds.clone());
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
        format!("{}{VPOS_PATH}", self.server.url)
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

    /// Posts a hand-written form body to `path` and returns the answer's text.
    pub async fn raw(&self, path: &str, content_type: &str, body: Vec<u8>) -> String {
        let bytes = BankTransport::new(TIMEOUT)
            .unwrap()
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
