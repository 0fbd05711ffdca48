//! The sweeper handler over in-memory ports.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use async_trait::async_trait;
use aws_lambda_events::eventbridge::EventBridgeEvent;
use fn_outbox_sweeper::{handle, Deps, Report};
use paygate_domain::testkit::{
    ManualClock, MemoryDeliveries, MemoryPayments, MemoryPublisher, MemoryQueue, T0,
};
use paygate_domain::{
    ports::{DeliveryStore, Expectation, Listing, Outbox, PaymentChange, PaymentWriter},
    webhook::{Delivery, EventFilter, WebhookEndpoint},
    AccountId, Currency, EventId, EventRecord, EventType, MerchantId, Mode, Payment, PaymentId,
    PaymentStatus, StoreError, Timestamp, WebhookEndpointId,
};
use paygate_webhooks::{sweep::GRACE_MS, SweepDeps};

/// An outbox that cannot be read.
struct Unreachable;

#[async_trait]
impl Outbox for Unreachable {
    async fn get_event(&self, _id: &EventId) -> Result<Option<EventRecord>, StoreError> {
        Err(StoreError::Unavailable("injected outage".into()))
    }

    async fn list_unsent(
        &self,
        _before: Timestamp,
        _limit: usize,
    ) -> Result<Listing<EventRecord>, StoreError> {
        Err(StoreError::Unavailable("injected outage".into()))
    }

    async fn mark_sent(&self, _id: &EventId) -> Result<bool, StoreError> {
        Err(StoreError::Unavailable("injected outage".into()))
    }
}

/// An outbox whose listing also meets an item it cannot decode.
struct Garbled(Arc<MemoryPayments>);

#[async_trait]
impl Outbox for Garbled {
    async fn get_event(&self, id: &EventId) -> Result<Option<EventRecord>, StoreError> {
        self.0.get_event(id).await
    }

    async fn list_unsent(
        &self,
        before: Timestamp,
        limit: usize,
    ) -> Result<Listing<EventRecord>, StoreError> {
        let mut listed = self.0.list_unsent(before, limit).await?;
        listed.undecodable.push(paygate_domain::ports::Undecodable {
            key: "evt_garbled".into(),
            reason: "event item: attribute `doc` is missing".into(),
        });
        Ok(listed)
    }

    async fn mark_sent(&self, id: &EventId) -> Result<bool, StoreError> {
        self.0.mark_sent(id).await
    }
}

struct World {
    store: Arc<MemoryPayments>,
    publisher: Arc<MemoryPublisher>,
    deliveries: Arc<MemoryDeliveries>,
    queue: Arc<MemoryQueue>,
}

fn world() -> World {
    World {
        store: Arc::new(MemoryPayments::default()),
        publisher: Arc::new(MemoryPublisher::default()),
        deliveries: Arc::new(MemoryDeliveries::default()),
        queue: Arc::new(MemoryQueue::default()),
    }
}

impl World {
    /// Deps two minutes after T0 (past the grace period of anything written at T0).
    fn deps(&self, outbox: Arc<dyn Outbox>) -> Deps {
        Deps {
            sweep: SweepDeps {
                outbox,
                publisher: self.publisher.clone(),
                deliveries: self.deliveries.clone(),
                queue: self.queue.clone(),
                clock: Arc::new(ManualClock::at(T0.plus_millis(2 * GRACE_MS))),
                grace_ms: GRACE_MS,
                batch: paygate_webhooks::sweep::BATCH,
            },
        }
    }

    /// An outbox event left unsent at T0 and a pending delivery whose message was lost.
    async fn left_behind(&self) -> (EventRecord, Delivery) {
        let p = Payment {
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
        };
        let ev = EventRecord::for_payment(
            EventId::parse("evt_1").unwrap(),
            EventType::PaymentCaptured,
            &p,
            T0,
        );
        self.store
            .save(PaymentChange {
                payment: p,
                expect: Expectation::Absent,
                transaction: None,
                event: Some(ev.clone()),
            })
            .await
            .unwrap();
        let endpoint = WebhookEndpoint {
            id: WebhookEndpointId::parse("whe_1").unwrap(),
            merchant_id: MerchantId::parse("mch_1").unwrap(),
            url: "https://merchant.example/hooks".into(),
            events: vec![EventFilter::parse("*").unwrap()],
            mode: Mode::Test,
            enabled: true,
            description: String::new(),
            secret_id: "paygate/dev/webhooks/whe_1".into(),
            secret_version: 0,
            created_at: T0,
            updated_at: T0,
            disabled_reason: None,
        };
        let delivery = Delivery::new(&ev, &endpoint, T0);
        assert!(self.deliveries.create_delivery(&delivery).await.unwrap());
        (ev, delivery)
    }
}

fn scheduled() -> EventBridgeEvent {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../infra/events/outbox-sweeper.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test]
async fn the_sweep_sends_unsent_events_and_requeues_lost_deliveries() {
    let w = world();
    let (ev, delivery) = w.left_behind().await;
    let report = handle(&w.deps(w.store.clone()), scheduled()).await.unwrap();
    assert_eq!(
        report,
        Report {
            events_sent: 1,
            deliveries_requeued: 1,
            failures: 0,
            undecodable: 0,
        }
    );
    assert_eq!(w.publisher.ids(), vec![ev.id.clone()]);
    assert_eq!(
        w.store.unsent(),
        vec![ev.id],
        "marked only by the fan-out, once its deliveries exist"
    );
    let queued = w.queue.drain();
    assert_eq!(queued.len(), 1);
    assert_eq!(queued[0].0.delivery_id, delivery.id);
    assert_eq!(queued[0].0.attempt, 1);
    assert_eq!(
        serde_json::to_value(report).unwrap(),
        serde_json::json!({"eventsSent": 1, "deliveriesRequeued": 1, "failures": 0, "undecodable": 0})
    );
}

#[tokio::test]
async fn an_event_that_cannot_be_queued_is_counted_and_stays_unsent() {
    let w = world();
    let (ev, _) = w.left_behind().await;
    w.publisher.set_failing(true);
    let report = handle(&w.deps(w.store.clone()), scheduled()).await.unwrap();
    assert_eq!(report.events_sent, 0);
    assert_eq!(report.failures, 1);
    assert_eq!(w.store.unsent(), [ev.id]);
}

#[tokio::test]
async fn an_undecodable_item_is_skipped_and_counted_and_the_rest_is_swept() {
    let w = world();
    let (ev, _) = w.left_behind().await;
    let report = handle(&w.deps(Arc::new(Garbled(w.store.clone()))), scheduled())
        .await
        .unwrap();
    assert_eq!(
        report,
        Report {
            events_sent: 1,
            deliveries_requeued: 1,
            failures: 0,
            undecodable: 1,
        }
    );
    assert_eq!(w.publisher.ids(), vec![ev.id]);
}

#[tokio::test]
async fn an_unreadable_outbox_fails_the_invocation() {
    let w = world();
    let result = handle(&w.deps(Arc::new(Unreachable)), scheduled()).await;
    assert!(matches!(
        result,
        Err(paygate_webhooks::PipelineError::Store(
            StoreError::Unavailable(_)
        ))
    ));
}

#[tokio::test]
async fn nothing_to_do_is_an_empty_report() {
    let w = world();
    let report = handle(&w.deps(w.store.clone()), EventBridgeEvent::default())
        .await
        .unwrap();
    assert_eq!(report, Report::default());
}
