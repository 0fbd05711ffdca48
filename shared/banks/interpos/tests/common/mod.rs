//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{sync::Arc, time::Duration};

use paygate_bank_interpos::{
    sim::{self, SimCredentials},
    InterPos, InterPosProvider, API_PATH, PROVIDER_CODE,
};
use paygate_bankkit::{
    sim::{Faults, SimServer, SimState},
    AccountCredentials, BankTransport, MemoryCredentials,
};
use paygate_domain::{ports::TestOrderState, PosAccount};

/// MEWS test shop and user (`InterPosRequestDataMapperTest`); a password distinctive enough
/// for the logging test to look for (MEWS uses `3`).
pub const SHOP: &str = "3123";
pub const USER: &str = "InterTestApi";
pub const PASSWORD: &str = "Sifre.Inter3123";
/// The adapter's bound on one call; fault latency above it is a time-out.
pub const TIMEOUT: Duration = Duration::from_millis(700);

pub struct Bank {
    pub server: SimServer,
    pub state: Arc<SimState>,
    pub provider: InterPosProvider,
    pub creds: Arc<MemoryCredentials>,
    pub account: PosAccount,
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
    let (server, state) = sim::start(accepted).await.unwrap();
    let creds = Arc::new(MemoryCredentials::default());
    let account = account("acc_denizbank");
    creds.insert(
        account.id.clone(),
        secret(
            &format!("{}{API_PATH}", server.url),
            SHOP,
            USER,
            PASSWORD,
            true,
        ),
    );
    let provider = InterPosProvider::new(
        InterPos,
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

    /// Posts a hand-written body to the API and returns the answer's text.
    pub async fn raw(&self, content_type: &str, body: Vec<u8>) -> String {
        let bytes = BankTransport::new(TIMEOUT)
            .unwrap()
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
