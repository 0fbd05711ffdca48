//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{sync::Arc, time::Duration};

use paygate_bank_kuveytpos::{
    sim::{self, SimCredentials},
    KuveytPos, KuveytPosProvider, BANK_CODE, PROVIDER_CODE, SERVICE_PATH,
};
use paygate_bankkit::{
    sim::{Faults, SimServer, SimState},
    AccountCredentials, BankTransport, MemoryCredentials,
};
use paygate_domain::{
    ports::{Clock, TestOrderState},
    PosAccount, Timestamp,
};

/// The Kuveyt Türk test store of the MEWS examples (merchant 496, customer 400235, the
/// `apitest` user).
pub const MERCHANT_ID: &str = "496";
pub const CUSTOMER_ID: &str = "400235";
pub const USER_NAME: &str = "apitest";
pub const PASSWORD: &str = "api123";
/// The adapter's bound on one call; fault latency above it is a time-out.
pub const TIMEOUT: Duration = Duration::from_millis(700);

/// 2024-04-24T16:03:42Z, the day of the MEWS TDV2.0.0 fixtures.
pub struct FixedClock;

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_millis(1_713_974_622_000)
    }
}

pub struct Bank {
    pub server: SimServer,
    pub state: Arc<SimState>,
    pub provider: KuveytPosProvider,
    pub creds: Arc<MemoryCredentials>,
    pub account: PosAccount,
}

pub fn account(id: &str) -> PosAccount {
    paygate_bankkit::sim::testing::test_account(id, PROVIDER_CODE, BANK_CODE, "Kuveyt Türk")
}

/// Secret values for an account at `endpoint`.
pub fn secret(endpoint: &str, user_name: &str, password: &str) -> AccountCredentials {
    AccountCredentials::new(
        endpoint,
        [
            ("merchantId".to_owned(), MERCHANT_ID.to_owned()),
            ("customerId".to_owned(), CUSTOMER_ID.to_owned()),
            ("userName".to_owned(), user_name.to_owned()),
            ("password".to_owned(), password.to_owned()),
        ],
    )
}

/// The bank knows the MEWS test store.
pub async fn bank() -> Bank {
    let (server, state) =
        sim::start(SimCredentials::default().with(MERCHANT_ID, CUSTOMER_ID, USER_NAME, PASSWORD))
            .await
            .unwrap();
    let creds = Arc::new(MemoryCredentials::default());
    let account = account("acc_kuveyt");
    creds.insert(
        account.id.clone(),
        secret(
            &format!("{}{SERVICE_PATH}", server.url),
            USER_NAME,
            PASSWORD,
        ),
    );
    let provider = KuveytPosProvider::new(
        KuveytPos::new(Arc::new(FixedClock)),
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
        format!("{}{SERVICE_PATH}", self.server.url)
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

    /// Another account at this bank with other secret values.
    pub fn other_account(&self, id: &str, secret: AccountCredentials) -> PosAccount {
        let acc = account(id);
        self.creds.insert(acc.id.clone(), secret);
        acc
    }

    /// How many reversals the bank applied to `order`.
    pub fn voids(&self, order: &str) -> usize {
        self.state
            .ledger_of(MERCHANT_ID, order)
            .unwrap()
            .operations
            .iter()
            .filter(|t| t.kind == "void")
            .count()
    }

    /// What the bank refunded of `order`.
    pub fn refunded(&self, order: &str) -> i64 {
        self.state.ledger_of(MERCHANT_ID, order).unwrap().refunded
    }

    /// Posts a hand-written body with a `SOAPAction` to the service.
    pub async fn raw(
        &self,
        action: &str,
        body: &str,
    ) -> Result<Vec<u8>, paygate_bankkit::TransportError> {
        BankTransport::new(TIMEOUT)
            .unwrap()
            .post_with_headers(
                &self.endpoint(),
                "text/xml; charset=UTF-8",
                &[("SOAPAction", action)],
                body.as_bytes().to_vec(),
            )
            .await
    }
}

#[allow(unused_imports)]
pub use paygate_bankkit::sim::testing::op;
