//! A Posnet simulator on a loopback port and an adapter pointed at it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::{sync::Arc, time::Duration};

use paygate_bank_posnet::{
    response::Reply,
    sim::{self, SimCredentials},
    wire, Posnet, PosnetProvider,
};
use paygate_bankkit::{
    sim::SimServer, sim::SimState, AccountCredentials, BankTransport, MemoryCredentials, StepRetry,
};
use paygate_domain::{
    ports::{BankOperation, PosProvider, TestOrder, TestOrderState},
    AccountId, BankOutcome, BankStatus, Currency, MerchantId, OperationSet, PosAccount,
    TransactionId,
};

pub const MID: &str = "6706598320";
pub const TID: &str = "67005551";
/// A World card (the bank's sample card) and a card of another bank.
pub const WORLD_CARD: &str = "5400637500005263";
pub const OTHER_CARD: &str = "4355084355084358";

pub struct Bank {
    pub server: SimServer,
    pub state: Arc<SimState>,
    pub provider: PosnetProvider,
    pub account: PosAccount,
    pub creds: Arc<MemoryCredentials>,
    pub http: BankTransport,
}

pub fn account(id: &str) -> PosAccount {
    PosAccount {
        id: AccountId::parse(id).unwrap(),
        merchant_id: MerchantId::parse("mch_test1").unwrap(),
        provider_code: "posnet".into(),
        bank_code: "0067".into(),
        bank_name: "Yapı Kredi".into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: paygate_domain::Mode::Test,
    }
}

impl Bank {
    pub async fn start() -> Self {
        Self::with_timeout(Duration::from_secs(3)).await
    }

    pub async fn with_timeout(timeout: Duration) -> Self {
        let (server, state) = sim::start(SimCredentials {
            mid: MID.into(),
            tid: TID.into(),
        })
        .await;
        let creds = Arc::new(MemoryCredentials::default());
        let account = account("acc_posnet1");
        let endpoint = format!("{}{}", server.url, wire::SERVICE_PATH);
        creds.insert(
            account.id.clone(),
            AccountCredentials::new(
                endpoint,
                [
                    ("mid".to_owned(), MID.to_owned()),
                    ("tid".to_owned(), TID.to_owned()),
                ],
            ),
        );
        let transport = BankTransport::new(timeout);
        let provider = PosnetProvider::new(
            Posnet::with_step_retry(StepRetry {
                retries: 3,
                backoff: Duration::from_millis(5),
                budget: Duration::from_secs(10),
            }),
            transport,
            creds.clone(),
        );
        Self {
            server,
            state,
            provider,
            account,
            creds,
            http: BankTransport::new(Duration::from_secs(3)),
        }
    }

    pub fn service_url(&self) -> String {
        format!("{}{}", self.server.url, wire::SERVICE_PATH)
    }

    /// Another account at the same simulator with other credentials.
    pub fn account_with(&self, id: &str, values: &[(&str, &str)]) -> PosAccount {
        let acc = account(id);
        self.creds.insert(
            acc.id.clone(),
            AccountCredentials::new(
                self.service_url(),
                values
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
            ),
        );
        acc
    }

    pub async fn register(
        &self,
        order_id: &str,
        amount: i64,
        state: TestOrderState,
        settled: bool,
    ) {
        self.provider
            .test_orders()
            .unwrap()
            .register(
                &self.account,
                &TestOrder {
                    order_id: order_id.into(),
                    amount,
                    currency: Currency::Try,
                    state,
                    settled,
                },
            )
            .await
            .unwrap();
    }

    pub async fn admin(&self, path: &str, json: &str) {
        self.http
            .post(
                &format!("{}{path}", self.server.url),
                "application/json",
                json.as_bytes().to_vec(),
            )
            .await
            .unwrap();
    }

    pub async fn end_of_day(&self) {
        self.admin("/_sim/end-of-day", "{}").await;
    }

    pub async fn faults(&self, json: &str) {
        self.admin("/_sim/faults", json).await;
    }

    pub async fn capture(&self, order: &str, amount: i64) -> BankOutcome {
        self.provider
            .capture(&self.account, &op(order, amount))
            .await
    }

    pub async fn cancel(&self, order: &str) -> BankOutcome {
        self.provider.cancel(&self.account, &op(order, 0)).await
    }

    pub async fn refund(&self, order: &str, amount: i64) -> BankOutcome {
        self.provider
            .refund(&self.account, &op(order, amount))
            .await
    }

    pub async fn query(&self, order: &str) -> BankStatus {
        self.provider.query(&self.account, order).await
    }

    /// A raw request to the XML service; the parsed answer.
    pub async fn raw(&self, xml: &str, headers: &[(&str, &str)]) -> Reply {
        let bytes = self
            .http
            .post_with_headers(
                &self.service_url(),
                "application/x-www-form-urlencoded",
                headers,
                wire::form_body(xml),
            )
            .await
            .unwrap();
        <Reply as paygate_bankkit::BankReply>::decode(&bytes).unwrap()
    }

    /// The number of reversal rows the bank lists for an order (by our order id).
    pub fn book_kinds(&self, order: &str) -> Vec<&'static str> {
        let key = wire::wire_order_id(order, "").unwrap();
        let book = self.state.book();
        book.get(MID, &key)
            .map(|o| o.history.iter().map(|t| t.kind).collect())
            .unwrap_or_default()
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

pub fn declined_code(outcome: &BankOutcome) -> (&str, bool) {
    match outcome {
        BankOutcome::Declined {
            code, after_cutoff, ..
        } => (code.as_str(), *after_cutoff),
        other => panic!("expected a decline, got {other:?}"),
    }
}

pub fn approved_rrn(outcome: &BankOutcome) -> String {
    match outcome {
        BankOutcome::Approved {
            rrn: Some(rrn),
            auth_code: Some(_),
            code,
        } => {
            assert_eq!(code, "1");
            rrn.clone()
        }
        other => panic!("expected an approval with references, got {other:?}"),
    }
}
