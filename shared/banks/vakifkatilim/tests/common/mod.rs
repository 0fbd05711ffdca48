//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{ops::Deref, time::Duration};

use paygate_bank_vakifkatilim::{
    sim::{self, SimCredentials},
    VakifKatilim, VakifKatilimProvider, API_PATH, PROVIDER_CODE,
};
use paygate_bankkit::{sim::testing::TestBank, AccountCredentials, BankTransport};
use paygate_domain::PosAccount;

/// The account of the MEWS request-mapper tests (`VakifKatilimPosRequestDataMapperTest`).
pub const MERCHANT: &str = "1";
pub const CUSTOMER: &str = "11111";
pub const USER: &str = "APIUSER";
pub const PASSWORD: &str = "kdsnsksl";
pub const TIMEOUT: Duration = Duration::from_millis(700);

/// The kit's test bank with this family's helpers.
pub struct Bank(TestBank<VakifKatilimProvider>);

impl Deref for Bank {
    type Target = TestBank<VakifKatilimProvider>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

pub fn account(id: &str) -> PosAccount {
    paygate_bankkit::sim::testing::test_account(id, PROVIDER_CODE, "0210", "Vakıf Katılım")
}

pub fn secret(endpoint: &str, password: &str) -> AccountCredentials {
    AccountCredentials::new(
        endpoint,
        [
            ("merchantId".to_owned(), MERCHANT.to_owned()),
            ("customerId".to_owned(), CUSTOMER.to_owned()),
            ("userName".to_owned(), USER.to_owned()),
            ("password".to_owned(), password.to_owned()),
        ],
    )
}

pub async fn bank() -> Bank {
    Bank(TestBank::new(
        sim::start(SimCredentials::default().with(MERCHANT, CUSTOMER, USER, PASSWORD))
            .await
            .unwrap(),
        account,
        "acc_vakifkatilim",
        API_PATH,
        |endpoint| secret(endpoint, PASSWORD),
        |creds| VakifKatilimProvider::new(VakifKatilim, BankTransport::new(TIMEOUT), creds),
    ))
}

impl Bank {
    pub fn end_of_day(&self) {
        self.state.book().end_of_day();
    }
}

#[allow(unused_imports)]
pub use paygate_bankkit::sim::testing::op;
