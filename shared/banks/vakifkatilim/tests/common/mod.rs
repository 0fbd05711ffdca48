//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{sync::Arc, time::Duration};

use paygate_bank_vakifkatilim::{
    sim::{self, SimCredentials},
    VakifKatilim, VakifKatilimProvider, API_PATH, PROVIDER_CODE,
};
use paygate_bankkit::{
    sim::{SimServer, SimState},
    AccountCredentials, BankTransport, MemoryCredentials,
};
use paygate_domain::{ports::TestOrderState, PosAccount};

/// The account of the MEWS request-mapper tests (`VakifKatilimPosRequestDataMapperTest`).
pub const MERCHANT: &str = "1";
pub const CUSTOMER: &str = "11111";
pub const USER: &str = "APIUSER";
pub const PASSWORD: &str = "kdsnsksl";
pub const TIMEOUT: Duration = Duration::from_millis(700);

pub struct Bank {
    pub server: SimServer,
    pub state: Arc<SimState>,
    pub provider: VakifKatilimProvider,
    pub creds: Arc<MemoryCredentials>,
    pub account: PosAccount,
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
    let (server, state) =
        sim::start(SimCredentials::default().with(MERCHANT, CUSTOMER, USER, PASSWORD))
            .await
            .unwrap();
    let creds = Arc::new(MemoryCredentials::default());
    let account = account("acc_vakifkatilim");
    creds.insert(
        account.id.clone(),
        secret(&format!("{}{API_PATH}", server.url), PASSWORD),
    );
    let provider = VakifKatilimProvider::new(
        VakifKatilim,
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

    pub fn other_account(&self, id: &str, secret: AccountCredentials) -> PosAccount {
        let acc = account(id);
        self.creds.insert(acc.id.clone(), secret);
        acc
    }

    pub fn end_of_day(&self) {
        self.state.book().end_of_day();
    }
}

#[allow(unused_imports)]
pub use paygate_bankkit::sim::testing::op;
