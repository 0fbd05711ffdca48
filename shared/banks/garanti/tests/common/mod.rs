//! A simulated Garanti bank on loopback and an adapter pointed at it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use paygate_bank_garanti::{
    request::{Request, Signer, TxnType, CONTENT_TYPE, FIXED_AMOUNT},
    response::{parse_response, GvpsResponse},
    servlet_url,
    sim::{self, SimCredentials},
    Garanti, GarantiProvider,
};
use paygate_bankkit::{
    sim::{Faults, SimServer, SimState},
    AccountCredentials, BankTransport, MemoryCredentials, StepRetry,
};
use paygate_domain::{
    ports::{BankOperation, PosProvider, TestOrder, TestOrderState},
    AccountId, BankStatus, CardDetails, Currency, MerchantId, OperationSet, PosAccount,
    TransactionId,
};

/// The simulator's terminal: the key its ledger books orders under.
pub const TERMINAL: &str = "30691298";

/// A quick step retry for tests (no long sleeps).
pub fn quick_retry() -> StepRetry {
    StepRetry {
        retries: 3,
        backoff: Duration::from_millis(5),
        budget: Duration::from_secs(10),
    }
}

pub struct Bank {
    pub server: SimServer,
    pub state: Arc<SimState>,
    pub provider: GarantiProvider,
    pub account: PosAccount,
    pub creds: Arc<MemoryCredentials>,
    pub sim_creds: SimCredentials,
    pub transport: BankTransport,
    values: Mutex<BTreeMap<String, String>>,
}

pub fn account() -> PosAccount {
    account_with_id("acc_garanti")
}

pub fn account_with_id(id: &str) -> PosAccount {
    PosAccount {
        id: AccountId::parse(id).unwrap(),
        merchant_id: MerchantId::parse("mch_a").unwrap(),
        provider_code: "garanti".into(),
        bank_code: "0062".into(),
        bank_name: "Garanti BBVA".into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: paygate_domain::Mode::Test,
    }
}

pub fn op(order: &str, amount: i64) -> BankOperation {
    BankOperation {
        order_id: order.into(),
        transaction_id: TransactionId::parse("txn_test1").unwrap(),
        amount,
        currency: Currency::Try,
        full: false,
    }
}

pub fn card(number: &str) -> CardDetails {
    CardDetails {
        number: number.into(),
        exp_month: "12".into(),
        exp_year: "2030".into(),
        cvv: "987".into(),
        holder: "Ayşe Yılmaz".into(),
    }
}

pub async fn bank() -> Bank {
    bank_with_timeout(3_000).await
}

pub async fn bank_with_timeout(timeout_ms: u64) -> Bank {
    let sim_creds = SimCredentials::garanti_test();
    let (server, state) = sim::start(sim_creds.clone()).await.unwrap();
    let transport = BankTransport::new(Duration::from_millis(timeout_ms));
    let creds = Arc::new(MemoryCredentials::default());
    let account = account();
    let secret = sim_creds.account_credentials(&server.url);
    let values: BTreeMap<String, String> =
        serde_json::from_str::<BTreeMap<String, String>>(&secret.to_json())
            .unwrap()
            .into_iter()
            .filter(|(k, _)| k != "endpointUrl")
            .collect();
    creds.insert(account.id.clone(), secret);
    Bank {
        provider: GarantiProvider::new(
            Garanti::with_step_retry(quick_retry()),
            transport.clone(),
            creds.clone(),
        ),
        server,
        state,
        account,
        creds,
        sim_creds,
        transport,
        values: Mutex::new(values),
    }
}

impl Bank {
    /// Puts an order at the bank through the adapter's test-order route.
    pub async fn register(&self, order: &str, amount: i64, state: TestOrderState, settled: bool) {
        self.register_order(order, amount, Currency::Try, state, settled)
            .await
            .unwrap();
    }

    pub async fn register_in(
        &self,
        order: &str,
        amount: i64,
        currency: Currency,
        state: TestOrderState,
    ) {
        self.register_order(order, amount, currency, state, false)
            .await
            .unwrap();
    }

    pub async fn register_order(
        &self,
        order: &str,
        amount: i64,
        currency: Currency,
        state: TestOrderState,
        settled: bool,
    ) -> Result<(), paygate_domain::StoreError> {
        let t = TestOrder {
            order_id: order.into(),
            amount,
            currency,
            state,
            settled,
        };
        self.provider
            .test_orders()
            .unwrap()
            .register(&self.account, &t)
            .await
    }

    pub async fn query(&self, order: &str) -> BankStatus {
        self.provider.query(&self.account, order).await
    }

    pub async fn end_of_day(&self) {
        self.admin("/_sim/end-of-day", b"{}".to_vec()).await;
    }

    pub async fn set_rewards(&self, card: &str, rewards: &[(&str, i64)]) {
        let body = serde_json::json!({
            "number": card,
            "rewards": rewards.iter().map(|(t, a)| serde_json::json!({"type": t, "totalAmount": a})).collect::<Vec<_>>(),
        });
        self.admin("/_sim/rewards", body.to_string().into_bytes())
            .await;
    }

    pub async fn admin(&self, path: &str, body: Vec<u8>) -> Vec<u8> {
        self.transport
            .post(
                &format!("{}{path}", self.server.url),
                "application/json",
                body,
            )
            .await
            .unwrap()
    }

    pub fn set_faults(&self, f: Faults) {
        *self.state.faults() = f;
    }

    /// Changes one key of the account's secret.
    pub fn set_credential(&self, key: &str, value: &str) {
        let mut v = self.values.lock().unwrap();
        v.insert(key.into(), value.into());
        self.creds.insert(
            self.account.id.clone(),
            AccountCredentials::new(self.server.url.clone(), v.clone()),
        );
    }

    /// Posts raw bytes to the servlet.
    pub async fn post_raw(&self, body: Vec<u8>) -> GvpsResponse {
        let bytes = self
            .transport
            .post(&servlet_url(&self.server.url), CONTENT_TYPE, body)
            .await
            .unwrap();
        parse_response(&bytes).unwrap()
    }

    /// A signed request of the test terminal, for hand-made wire tests.
    pub fn request<'a>(
        &'a self,
        user: &'a str,
        txn: TxnType,
        order: &'a str,
        amount: &str,
    ) -> Request<'a> {
        let c = &self.sim_creds.terminal;
        let password = if user == c.refund_user_id {
            &c.refund_password
        } else {
            &c.prov_password
        };
        Request {
            signer: Signer {
                mode: "TEST",
                terminal: c,
                user_id: user,
                password,
            },
            txn,
            ip_address: "127.0.0.1",
            order_id: order,
            amount: amount.to_owned(),
            currency_code: "949",
            original_rrn: None,
            card: None,
            list: None,
        }
    }

    /// A void sent by hand, with or without `OriginalRetrefNum`.
    pub async fn raw_void(&self, order: &str, rrn: Option<&str>) -> GvpsResponse {
        let mut r = self.request("PROVRFN", TxnType::Void, order, FIXED_AMOUNT);
        r.original_rrn = rrn;
        self.post_raw(r.to_xml().into_bytes()).await
    }
}
