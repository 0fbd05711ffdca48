//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{ops::Deref, sync::Arc, time::Duration};

use paygate_bank_akbankpos::{
    sim::{self, SimCredentials},
    AkbankPos, AkbankPosProvider, API_PATH, PROVIDER_CODE,
};
use paygate_bankkit::{sim::testing::TestBank, AccountCredentials, BankTransport};
use paygate_domain::{ports::Clock, time::Timestamp, PosAccount};

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

/// The kit's test bank with this family's helpers.
pub struct Bank(TestBank<AkbankPosProvider>);

impl Deref for Bank {
    type Target = TestBank<AkbankPosProvider>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
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
    Bank(TestBank::new(
        sim::start(accepted).await.unwrap(),
        account,
        "acc_akbank",
        API_PATH,
        |endpoint| secret(endpoint, TERMINAL, SECRET),
        |creds| {
            AkbankPosProvider::new(
                AkbankPos::new(Arc::new(FixedClock)),
                BankTransport::new(TIMEOUT),
                creds,
            )
        },
    ))
}

#[allow(unused_imports)]
pub use paygate_bankkit::sim::testing::op;
