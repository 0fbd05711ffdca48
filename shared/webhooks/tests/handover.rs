//! An event counts as handed over only once its deliveries exist: the fast path publishes
//! without marking, the fan-out marks after creating every delivery, and the sweeper
//! re-publishes whatever is still unmarked after its grace period. So an event whose fan-out
//! failed until its message reached the dead-letter queue is still delivered, exactly once.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{
    atomic::{AtomicUsize, Ordering},
    Arc,
};

use async_trait::async_trait;
use paygate_domain::testkit::{
    ManualClock, MemoryDeliveries, MemoryEndpoints, MemoryPayments, MemoryPublisher, MemoryQueue,
    ScriptedSender, StaticSecrets, T0,
};
use paygate_domain::{
    ports::{
        Clock, EndpointReader, EventPublisher, Expectation, Outbox, OutboxWriter, PaymentChange,
        PaymentWriter,
    },
    webhook::{EventFilter, RetrySchedule, WebhookEndpoint},
    AccountId, Currency, EventId, EventRecord, EventType, MerchantId, Mode, Payment, PaymentId,
    PaymentStatus, StoreError, Timestamp, WebhookEndpointId,
};
use paygate_payments::EventSink;
use paygate_webhooks::{
    deliver, fanout, sweep, sweep::GRACE_MS, DeliverDeps, FanoutDeps, SweepDeps, SweepReport,
};

/// The events queue's `maxReceiveCount`: after that many failed receives a message is in
/// the dead-letter queue.
const MAX_RECEIVES: usize = 5;

/// Endpoints whose listing fails the first `failures` times (the fan-out fails with it).
struct FlakyEndpoints {
    inner: MemoryEndpoints,
    failures: AtomicUsize,
}

#[async_trait]
impl EndpointReader for FlakyEndpoints {
    async fn list_endpoints(
        &self,
        merchant: &MerchantId,
    ) -> Result<Vec<WebhookEndpoint>, StoreError> {
        let left = self.failures.load(Ordering::SeqCst);
        if left > 0 {
            self.failures.store(left - 1, Ordering::SeqCst);
            return Err(StoreError::Unavailable("injected outage".into()));
        }
        self.inner.list_endpoints(merchant).await
    }

    async fn get_endpoint(
        &self,
        merchant: &MerchantId,
        id: &WebhookEndpointId,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        self.inner.get_endpoint(merchant, id).await
    }
}

struct World {
    clock: Arc<ManualClock>,
    store: Arc<MemoryPayments>,
    endpoints: Arc<FlakyEndpoints>,
    deliveries: Arc<MemoryDeliveries>,
    queue: Arc<MemoryQueue>,
    sender: Arc<ScriptedSender>,
    secrets: Arc<StaticSecrets>,
    /// The events queue, as the fast path and the sweeper write to it.
    events_queue: Arc<MemoryPublisher>,
}

fn world(endpoints: &[&str]) -> World {
    let inner = MemoryEndpoints::default();
    let secrets = Arc::new(StaticSecrets::default());
    for id in endpoints {
        inner.insert(WebhookEndpoint {
            id: WebhookEndpointId::parse(id).unwrap(),
            merchant_id: MerchantId::parse("mch_1").unwrap(),
            url: format!("https://merchant.example/{id}"),
            events: vec![EventFilter::All],
            mode: Mode::Test,
            enabled: true,
            description: String::new(),
            secret_id: format!("secret-{id}"),
            secret_version: 0,
            created_at: T0,
            updated_at: T0,
            disabled_reason: None,
        });
        secrets.set(&format!("secret-{id}"), &["whsec_one"]);
    }
    World {
        clock: Arc::new(ManualClock::at(T0)),
        store: Arc::new(MemoryPayments::default()),
        endpoints: Arc::new(FlakyEndpoints {
            inner,
            failures: AtomicUsize::new(0),
        }),
        deliveries: Arc::new(MemoryDeliveries::default()),
        queue: Arc::new(MemoryQueue::default()),
        sender: Arc::new(ScriptedSender::default()),
        secrets,
        events_queue: Arc::new(MemoryPublisher::default()),
    }
}

fn payment() -> Payment {
    Payment {
        id: PaymentId::parse("pay_1").unwrap(),
        merchant_id: MerchantId::parse("mch_1").unwrap(),
        mode: Mode::Test,
        account_id: AccountId::parse("acc_1").unwrap(),
        order_id: "O1".into(),
        currency: Currency::Try,
        amount: 10_000,
        captured_amount: 10_000,
        refunded_amount: 0,
        status: PaymentStatus::Captured,
        pending: None,
        auth_code: String::new(),
        rrn: String::new(),
        version: 1,
        created_at: T0,
        updated_at: T0,
    }
}

fn event(id: &str, at: Timestamp) -> EventRecord {
    EventRecord::for_payment(
        EventId::parse(id).unwrap(),
        EventType::PaymentCaptured,
        &payment(),
        at,
    )
}

impl World {
    /// Commits an event with its payment change, as an operation does.
    async fn commit(&self, id: &str) -> EventRecord {
        let ev = event(id, self.clock.now());
        let mut p = payment();
        p.id = PaymentId::parse(&format!("pay_{}", id.trim_start_matches("evt_"))).unwrap();
        self.store
            .save(PaymentChange {
                payment: p,
                expect: Expectation::Absent,
                transaction: None,
                event: Some(ev.clone()),
            })
            .await
            .unwrap();
        ev
    }

    fn fast_path(&self) -> EventSink {
        EventSink {
            publisher: self.events_queue.clone(),
        }
    }

    fn fanout_deps(&self) -> FanoutDeps {
        FanoutDeps {
            endpoints: self.endpoints.clone(),
            deliveries: self.deliveries.clone(),
            queue: self.queue.clone(),
            outbox: self.store.clone(),
            clock: self.clock.clone(),
        }
    }

    fn sweep_deps(&self, outbox: Arc<dyn Outbox>, publisher: Arc<dyn EventPublisher>) -> SweepDeps {
        SweepDeps {
            outbox,
            publisher,
            deliveries: self.deliveries.clone(),
            queue: self.queue.clone(),
            clock: self.clock.clone(),
            grace_ms: GRACE_MS,
            batch: paygate_webhooks::sweep::BATCH,
        }
    }

    async fn sweep(&self) -> SweepReport {
        sweep(&self.sweep_deps(self.store.clone(), self.events_queue.clone()))
            .await
            .unwrap()
    }

    /// Takes every message off the events queue and fans each out once; `false` for each
    /// that failed (SQS would redeliver it).
    async fn receive_events(&self) -> Vec<bool> {
        let messages = std::mem::take(&mut *self.events_queue.published.lock().unwrap());
        let mut ok = Vec::new();
        for m in &messages {
            ok.push(fanout(&self.fanout_deps(), m).await.is_ok());
        }
        ok
    }

    async fn deliver_all(&self) {
        let d = DeliverDeps {
            deliveries: self.deliveries.clone(),
            outbox: self.store.clone(),
            endpoints: self.endpoints.clone(),
            secrets: self.secrets.clone(),
            sender: self.sender.clone(),
            queue: self.queue.clone(),
            clock: self.clock.clone(),
            schedule: RetrySchedule::default(),
            health: Arc::new(MemoryEndpoints::default()),
            disable_policy: Default::default(),
            metrics: Arc::new(paygate_domain::metrics::NoMetrics),
        };
        for (msg, _) in self.queue.drain() {
            deliver(&d, &msg).await.unwrap();
        }
    }

    fn received(&self) -> Vec<(String, String)> {
        self.sender
            .requests
            .lock()
            .unwrap()
            .iter()
            .map(|(url, _, body)| {
                let id = serde_json::from_slice::<serde_json::Value>(body).unwrap()["id"]
                    .as_str()
                    .unwrap()
                    .to_owned();
                (url.clone(), id)
            })
            .collect()
    }
}

#[tokio::test]
async fn the_fast_path_publishes_but_does_not_mark() {
    let w = world(&["whe_a"]);
    let ev = w.commit("evt_1").await;
    w.fast_path().after_commit(&ev).await;
    assert_eq!(w.events_queue.ids(), vec![ev.id.clone()]);
    assert_eq!(w.store.unsent(), vec![ev.id], "queued is not handed over");
    // The fan-out marks it once its delivery exists.
    w.receive_events().await;
    assert_eq!(w.deliveries.all().len(), 1);
    assert!(w.store.unsent().is_empty());
}

#[tokio::test]
async fn an_event_whose_fanout_failed_into_the_dlq_is_resent_by_the_sweeper_once() {
    let w = world(&["whe_a"]);
    // GIVEN a committed event the fast path queued, and a fan-out that fails on it on every
    // receive until SQS moves the message to the dead-letter queue
    let ev = w.commit("evt_1").await;
    w.fast_path().after_commit(&ev).await;
    w.endpoints.failures.store(MAX_RECEIVES, Ordering::SeqCst);
    let message = w.events_queue.published.lock().unwrap()[0].clone();
    for _ in 0..MAX_RECEIVES {
        assert!(fanout(&w.fanout_deps(), &message).await.is_err());
    }
    w.events_queue.published.lock().unwrap().clear(); // now in the DLQ
    assert!(w.deliveries.all().is_empty());

    // WHEN the sweeper runs within its grace period, nothing is sent again
    w.clock.advance_millis(GRACE_MS / 2);
    assert_eq!(w.sweep().await.events_sent, 0);
    // AND after it the event is published again and fanned out
    w.clock.advance_millis(GRACE_MS);
    assert_eq!(w.sweep().await.events_sent, 1);
    assert_eq!(w.receive_events().await, [true]);
    w.deliver_all().await;

    // THEN the endpoint got exactly its delivery, and later sweeps leave the event alone
    assert_eq!(
        w.received(),
        [(
            "https://merchant.example/whe_a".to_owned(),
            ev.id.to_string()
        )]
    );
    assert!(w.store.unsent().is_empty());
    w.clock.advance_millis(GRACE_MS * 10);
    assert_eq!(w.sweep().await, SweepReport::default());
    // AND a redrive of the dead-lettered message creates nothing new
    assert_eq!(fanout(&w.fanout_deps(), &message).await.unwrap(), 0);
    assert_eq!(w.deliveries.all().len(), 1);
}

#[tokio::test]
async fn an_event_no_endpoint_wants_is_marked_too() {
    let w = world(&[]);
    let ev = w.commit("evt_1").await;
    assert_eq!(fanout(&w.fanout_deps(), &ev).await.unwrap(), 0);
    assert!(w.store.unsent().is_empty());
    w.clock.advance_millis(GRACE_MS * 2);
    assert_eq!(w.sweep().await.events_sent, 0);
}

#[tokio::test]
async fn an_event_stored_as_sent_is_never_published_by_the_sweeper() {
    let w = world(&["whe_a"]);
    let ev = event("evt_quiet", T0);
    w.store.put_event(&ev, true).await.unwrap();
    w.clock.advance_millis(GRACE_MS * 2);
    assert_eq!(w.sweep().await.events_sent, 0);
    assert!(w.events_queue.ids().is_empty());
}

/// An outbox whose `mark_sent` always fails (the sweeper must not need it).
struct NoMarking(Arc<MemoryPayments>);

#[async_trait]
impl Outbox for NoMarking {
    async fn get_event(&self, id: &EventId) -> Result<Option<EventRecord>, StoreError> {
        self.0.get_event(id).await
    }

    async fn list_unsent(
        &self,
        before: Timestamp,
        limit: usize,
    ) -> Result<paygate_domain::ports::Listing<EventRecord>, StoreError> {
        self.0.list_unsent(before, limit).await
    }

    async fn mark_sent(&self, _id: &EventId) -> Result<bool, StoreError> {
        Err(StoreError::Unavailable("injected outage".into()))
    }
}

/// A queue that refuses one event and takes the others.
struct RefusesOne {
    refused: EventId,
    inner: MemoryPublisher,
}

#[async_trait]
impl EventPublisher for RefusesOne {
    async fn publish(&self, event: &EventRecord) -> Result<(), StoreError> {
        if event.id == self.refused {
            return Err(StoreError::Unavailable("injected send failure".into()));
        }
        self.inner.publish(event).await
    }
}

#[tokio::test]
async fn one_failing_item_never_stops_the_sweep() {
    let w = world(&["whe_a"]);
    let first = w.commit("evt_1").await;
    let second = w.commit("evt_2").await;
    let third = w.commit("evt_3").await;
    w.clock.advance_millis(GRACE_MS * 2);

    // An outbox that cannot be marked: every event is still published.
    let queue = Arc::new(MemoryPublisher::default());
    let report = sweep(&w.sweep_deps(Arc::new(NoMarking(w.store.clone())), queue.clone()))
        .await
        .unwrap();
    assert_eq!((report.events_sent, report.failures), (3, 0));
    assert_eq!(
        queue.ids(),
        [first.id.clone(), second.id.clone(), third.id.clone()]
    );

    // A queue that refuses one event: the others go, the failure is counted.
    let queue = Arc::new(RefusesOne {
        refused: second.id.clone(),
        inner: MemoryPublisher::default(),
    });
    let report = sweep(&w.sweep_deps(w.store.clone(), queue.clone()))
        .await
        .unwrap();
    assert_eq!((report.events_sent, report.failures), (2, 1));
    assert_eq!(queue.inner.ids(), [first.id, third.id]);
    assert_eq!(w.store.unsent().len(), 3, "nothing marked by the sweeper");
}

/// An outbox that cannot be listed.
struct Unlistable;

#[async_trait]
impl Outbox for Unlistable {
    async fn get_event(&self, _id: &EventId) -> Result<Option<EventRecord>, StoreError> {
        Ok(None)
    }

    async fn list_unsent(
        &self,
        _before: Timestamp,
        _limit: usize,
    ) -> Result<paygate_domain::ports::Listing<EventRecord>, StoreError> {
        Err(StoreError::Unavailable("injected outage".into()))
    }

    async fn mark_sent(&self, _id: &EventId) -> Result<bool, StoreError> {
        Ok(false)
    }
}

#[tokio::test]
async fn an_unreadable_outbox_still_lets_lost_deliveries_be_requeued_and_fails_the_run() {
    let w = world(&["whe_a"]);
    let ev = w.commit("evt_1").await;
    fanout(&w.fanout_deps(), &ev).await.unwrap();
    w.queue.drain(); // the delivery's message is lost
    w.clock.advance_millis(GRACE_MS * 2);
    let result = sweep(&w.sweep_deps(Arc::new(Unlistable), w.events_queue.clone())).await;
    assert!(result.is_err());
    assert_eq!(
        w.queue.drain().len(),
        1,
        "the overdue delivery was requeued"
    );
}
