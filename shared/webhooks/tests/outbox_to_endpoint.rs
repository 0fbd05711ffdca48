//! No event is lost: a payment change whose queue send fails after the commit still reaches
//! the merchant's endpoint through the sweeper, and a send that happens twice reaches it
//! once (the delivery id is derived from event and endpoint).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use paygate_bank_simulator::{InitialBankState, MemoryLedger, SimBank, PROVIDER_CODE};
use paygate_domain::testkit::{
    ManualClock, MemoryAccounts, MemoryDeliveries, MemoryEndpoints, MemoryPayments,
    MemoryPublisher, MemoryQueue, ScriptedSender, SeqIds, StaticSecrets, T0,
};
use paygate_domain::{
    ids::ApiKeyId,
    ports::{Clock, Outbox, PaymentWriter},
    webhook::{EventFilter, RetrySchedule, WebhookEndpoint},
    AccountId, Currency, EventRecord, MerchantId, Mode, OperationSet, Payment, PaymentId,
    PaymentStatus, PosAccount, TransactionType, WebhookEndpointId,
};
use paygate_payments::{run_operation, BankAccess, EventSink, OperationDeps, Principal, Providers};
use paygate_webhooks::{deliver, fanout, sweep, DeliverDeps, FanoutDeps, SweepDeps};

struct World {
    clock: Arc<ManualClock>,
    store: Arc<MemoryPayments>,
    fast_path: Arc<MemoryPublisher>,
    sweeper_queue: Arc<MemoryPublisher>,
    deliveries: Arc<MemoryDeliveries>,
    queue: Arc<MemoryQueue>,
    endpoints: Arc<MemoryEndpoints>,
    sender: Arc<ScriptedSender>,
    secrets: Arc<StaticSecrets>,
    ops: OperationDeps,
}

async fn world() -> World {
    let clock = Arc::new(ManualClock::at(T0));
    let store = Arc::new(MemoryPayments::default());
    let accounts = Arc::new(MemoryAccounts::default());
    let account = PosAccount {
        id: AccountId::parse("acc_1").unwrap(),
        merchant_id: MerchantId::parse("mch_1").unwrap(),
        provider_code: PROVIDER_CODE.into(),
        bank_code: "0064".into(),
        bank_name: "İşbank".into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: Mode::Test,
    };
    accounts.insert(account.clone());
    let bank = Arc::new(SimBank::new(
        Arc::new(MemoryLedger::default()),
        clock.clone(),
    ));
    bank.register_order(
        &account,
        "ORD1",
        10_000,
        Currency::Try,
        InitialBankState::Preauth,
        false,
    )
    .await
    .unwrap();
    store.insert(Payment {
        id: PaymentId::parse("pay_1").unwrap(),
        merchant_id: account.merchant_id.clone(),
        mode: Mode::Test,
        account_id: account.id.clone(),
        order_id: "ORD1".into(),
        currency: Currency::Try,
        amount: 10_000,
        captured_amount: 0,
        refunded_amount: 0,
        status: PaymentStatus::Authorized,
        pending: None,
        auth_code: String::new(),
        rrn: String::new(),
        version: 1,
        created_at: T0,
        updated_at: T0,
    });
    let fast_path = Arc::new(MemoryPublisher::default());
    let endpoints = Arc::new(MemoryEndpoints::default());
    endpoints.insert(WebhookEndpoint {
        id: WebhookEndpointId::parse("whe_1").unwrap(),
        merchant_id: account.merchant_id.clone(),
        url: "https://merchant.example/hooks".into(),
        events: vec![EventFilter::All],
        mode: Mode::Test,
        enabled: true,
        description: String::new(),
        secret_id: "s1".into(),
        secret_version: 0,
        created_at: T0,
        updated_at: T0,
        disabled_reason: None,
    });
    let secrets = Arc::new(StaticSecrets::default());
    secrets.set("s1", &["whsec_one"]);
    World {
        ops: OperationDeps {
            payments: store.clone(),
            banks: BankAccess::new(accounts, Providers::new().register(bank)),
            clock: clock.clone(),
            ids: Arc::new(SeqIds::default()),
            events: EventSink {
                publisher: fast_path.clone(),
            },
            stale_after: paygate_domain::StaleAfter::DEFAULT,
            pending_grace: paygate_domain::PendingGrace::DEFAULT,
        },
        clock,
        store,
        fast_path,
        sweeper_queue: Arc::new(MemoryPublisher::default()),
        deliveries: Arc::new(MemoryDeliveries::default()),
        queue: Arc::new(MemoryQueue::default()),
        endpoints,
        sender: Arc::new(ScriptedSender::default()),
        secrets,
    }
}

impl World {
    async fn capture(&self) {
        let who = Principal {
            merchant_id: MerchantId::parse("mch_1").unwrap(),
            mode: Mode::Test,
            key_id: ApiKeyId::parse("key_1").unwrap(),
        };
        let id = PaymentId::parse("pay_1").unwrap();
        run_operation(&self.ops, &who, &id, TransactionType::Capture, None)
            .await
            .unwrap();
    }

    async fn sweep(&self) {
        let deps = SweepDeps {
            outbox: self.store.clone(),
            publisher: self.sweeper_queue.clone(),
            deliveries: self.deliveries.clone(),
            queue: self.queue.clone(),
            clock: self.clock.clone(),
            grace_ms: 60_000,
            batch: paygate_webhooks::sweep::BATCH,
        };
        sweep(&deps).await.unwrap();
    }

    /// Fans out everything that reached the events queue, then delivers.
    async fn run_pipeline(&self, events: Vec<EventRecord>) {
        let f = FanoutDeps {
            endpoints: self.endpoints.clone(),
            deliveries: self.deliveries.clone(),
            queue: self.queue.clone(),
            outbox: self.store.clone(),
            clock: self.clock.clone(),
        };
        for e in &events {
            fanout(&f, e).await.unwrap();
        }
        let d = DeliverDeps {
            deliveries: self.deliveries.clone(),
            outbox: self.store.clone(),
            endpoints: self.endpoints.clone(),
            secrets: self.secrets.clone(),
            sender: self.sender.clone(),
            queue: self.queue.clone(),
            clock: self.clock.clone(),
            schedule: RetrySchedule::default(),
            health: self.endpoints.clone(),
            disable_policy: Default::default(),
            metrics: Arc::new(paygate_domain::metrics::NoMetrics),
        };
        for (msg, _) in self.queue.drain() {
            deliver(&d, &msg).await.unwrap();
        }
    }

    fn received_event_ids(&self) -> Vec<String> {
        self.sender
            .requests
            .lock()
            .unwrap()
            .iter()
            .map(|(_, _, body)| {
                serde_json::from_slice::<serde_json::Value>(body).unwrap()["id"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }
}

#[tokio::test]
async fn an_event_whose_queue_send_failed_is_delivered_by_the_sweeper() {
    let w = world().await;
    // GIVEN the events queue refuses the fast-path send right after the commit
    w.fast_path.set_failing(true);
    w.capture().await;
    let committed = w.store.events();
    assert_eq!(committed.len(), 1);
    assert!(w.fast_path.ids().is_empty());
    // WHEN the sweeper runs after the grace period
    w.clock.advance_millis(61_000);
    w.sweep().await;
    let swept = w.sweeper_queue.published.lock().unwrap().clone();
    w.run_pipeline(swept).await;
    // THEN the endpoint gets the event, once, with the capture that caused it
    assert_eq!(w.received_event_ids(), vec![committed[0].id.to_string()]);
    let body = w.sender.requests.lock().unwrap()[0].2.clone();
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["data"]["transaction"]["type"], "capture", "{body}");
    assert_eq!(body["data"]["transaction"]["status"], "approved", "{body}");
    assert_eq!(body["data"]["transaction"]["paymentId"], body["data"]["id"]);
    assert!(w
        .store
        .list_unsent(w.clock.now(), 10)
        .await
        .unwrap()
        .items
        .is_empty());
    w.sweep().await;
    assert_eq!(
        w.sweeper_queue.published.lock().unwrap().len(),
        1,
        "sent by the sweeper once"
    );
}

#[tokio::test]
async fn an_event_sent_twice_reaches_the_endpoint_once() {
    let w = world().await;
    w.capture().await;
    // The fast path sent it, and the sweeper sends it again before the fan-out marked it.
    let event = w.store.events().remove(0);
    let fresh = MemoryPayments::default();
    fresh
        .save(paygate_domain::ports::PaymentChange {
            payment: w
                .store
                .payment(&PaymentId::parse("pay_1").unwrap())
                .unwrap(),
            expect: paygate_domain::ports::Expectation::Absent,
            transaction: None,
            event: Some(event.clone()),
        })
        .await
        .unwrap();
    w.clock.advance_millis(61_000);
    let again = fresh.list_unsent(w.clock.now(), 10).await.unwrap().items;
    let mut both = w.fast_path.published.lock().unwrap().clone();
    both.extend(again);
    assert_eq!(both.len(), 2);
    w.run_pipeline(both).await;
    assert_eq!(w.received_event_ids(), vec![event.id.to_string()]);
}
