//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{ops::Deref, sync::Arc, time::Duration};

use paygate_bank_kuveytpos::{
    sim::{self, SimCredentials},
    KuveytPos, KuveytPosProvider, BANK_CODE, PROVIDER_CODE, SERVICE_PATH,
};
use paygate_bankkit::{sim::testing::TestBank, AccountCredentials, BankTransport};
use paygate_domain::{ports::Clock, PosAccount, Timestamp};

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

/// The kit's test bank with this family's helpers.
pub struct Bank(TestBank<KuveytPosProvider>);

impl Deref for Bank {
    type Target = TestBank<KuveytPosProvider>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
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
    Bank(TestBank::new(
        sim::start(SimCredentials::default().with(MERCHANT_ID, CUSTOMER_ID, USER_NAME, PASSWORD))
            .await
            .unwrap(),
        account,
        "acc_kuveyt",
        SERVICE_PATH,
        |endpoint| secret(endpoint, USER_NAME, PASSWORD),
        |creds| {
            KuveytPosProvider::new(
                KuveytPos::new(Arc::new(FixedClock)),
                BankTransport::new(TIMEOUT),
                creds,
            )
        },
    ))
}

impl Bank {
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
