//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{sync::Arc, time::Duration};

use paygate_bank_nestpay::{
    sim::{self, SimCredentials},
    Nestpay, NestpayProvider, API_PATH, PROVIDER_CODE,
};
use paygate_bankkit::{
    sim::{Faults, SimServer, SimState},
    AccountCredentials, BankTransport, MemoryCredentials,
};
use paygate_domain::{ports::TestOrderState, PosAccount};

pub const CLIENT_ID: &str = "700655000200";
pub const NAME: &str = "ISBANKAPI";
pub const PASSWORD: &str = "ISBANK07";
/// The adapter's bound on one call; fault latency above it is a time-out.
pub const TIMEOUT: Duration = Duration::from_millis(700);

pub struct Bank {
    pub server: SimServer,
    pub state: Arc<SimState>,
    pub provider: NestpayProvider,
    pub creds: Arc<MemoryCredentials>,
    pub account: PosAccount,
}

pub fn account(id: &str) -> PosAccount {
    paygate_bankkit::sim::testing::test_account(id, PROVIDER_CODE, "0064", "Türkiye İş Bankası")
}

/// Secret values for an account at `endpoint`.
pub fn secret(
    endpoint: &str,
    client_id: &str,
    name: &str,
    password: &str,
    points: Option<&str>,
) -> AccountCredentials {
    let mut values = vec![
        ("clientId".to_owned(), client_id.to_owned()),
        ("name".to_owned(), name.to_owned()),
        ("password".to_owned(), password.to_owned()),
    ];
    if let Some(p) = points {
        values.push(("pointsInquiry".to_owned(), p.to_owned()));
    }
    AccountCredentials::new(endpoint, values)
}

/// The bank knows one store (points inquiry allowed) and a second one without points.
pub async fn bank() -> Bank {
    bank_with(|c| c).await
}

/// [`bank`] with its simulator's credentials (and variant) changed by `tune`.
pub async fn bank_with(tune: impl FnOnce(SimCredentials) -> SimCredentials) -> Bank {
    let accepted = tune(
        SimCredentials::default()
            .with(CLIENT_ID, NAME, PASSWORD, true)
            .with("190100000", "AKBANKAPI", "AKBANK01", false),
    );
    let (server, state) = sim::start(accepted).await.unwrap();
    let creds = Arc::new(MemoryCredentials::default());
    let account = account("acc_isbank");
    creds.insert(
        account.id.clone(),
        secret(
            &format!("{}{API_PATH}", server.url),
            CLIENT_ID,
            NAME,
            PASSWORD,
            Some("maxipuan"),
        ),
    );
    let provider =
        NestpayProvider::new(Nestpay, BankTransport::new(TIMEOUT).unwrap(), creds.clone());
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

    /// Another account of the same merchant at this bank, with other secret values.
    pub fn other_account(&self, id: &str, secret: AccountCredentials) -> PosAccount {
        let acc = account(id);
        self.creds.insert(acc.id.clone(), secret);
        acc
    }

    /// Posts a hand-written body to the API and reads the `CC5Response`.
    pub async fn raw(
        &self,
        content_type: &str,
        body: Vec<u8>,
    ) -> paygate_bank_nestpay::response::Reply {
        let bytes = BankTransport::new(TIMEOUT)
            .unwrap()
            .post(&self.endpoint(), content_type, body)
            .await
            .unwrap();
        <paygate_bank_nestpay::response::Reply as paygate_bankkit::BankReply>::decode(&bytes)
            .unwrap()
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

#[allow(unused_imports)]
pub use paygate_bankkit::sim::testing::card;
