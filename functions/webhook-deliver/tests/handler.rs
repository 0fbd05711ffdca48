//! The deliver handler over in-memory ports: per-record failures, concurrent attempts.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::{sync::Arc, time::Duration};

use async_trait::async_trait;
use aws_lambda_events::sqs::{SqsBatchResponse, SqsEvent, SqsMessage};
use fn_webhook_deliver::{handle, Deps};
use paygate_domain::testkit::{
    ManualClock, MemoryDeliveries, MemoryEndpoints, MemoryPayments, MemoryQueue, ScriptedSender,
    StaticSecrets, T0,
};
use paygate_domain::{
    ports::{
        DeliveryMessage, DeliveryStore, Expectation, Outbox, PaymentChange, PaymentWriter,
        SendOutcome, WebhookSender,
    },
    webhook::{Delivery, DeliveryStatus, EventFilter, RetrySchedule, WebhookEndpoint},
    AccountId, Currency, EventId, EventRecord, EventType, MerchantId, Mode, Payment, PaymentId,
    PaymentStatus, StoreError, Timestamp, WebhookEndpointId,
};
use paygate_webhooks::DeliverDeps;

/// The outbox of `MemoryPayments`, unreachable for one event.
struct Events {
    inner: Arc<MemoryPayments>,
    down_for: Option<EventId>,
}

#[async_trait]
impl Outbox for Events {
    async fn get_event(&self, id: &EventId) -> Result<Option<EventRecord>, StoreError> {
        if self.down_for.as_ref() == Some(id) {
            return Err(StoreError::Unavailable("injected outage".into()));
        }
        self.inner.get_event(id).await
    }

    async fn list_unsent(
        &self,
        before: Timestamp,
        limit: usize,
    ) -> Result<paygate_domain::ports::Listing<EventRecord>, StoreError> {
        self.inner.list_unsent(before, limit).await
    }

    async fn mark_sent(&self, id: &EventId) -> Result<bool, StoreError> {
        self.inner.mark_sent(id).await
    }
}

/// Answers 200 only once `n` requests are in flight at the same time.
struct Rendezvous(tokio::sync::Barrier);

#[async_trait]
impl WebhookSender for Rendezvous {
    async fn send(&self, _url: &str, _h: &[(String, String)], _body: Vec<u8>) -> SendOutcome {
        self.0.wait().await;
        SendOutcome {
            status_code: Some(200),
            error: None,
            response_body: "ok".into(),
            duration_ms: 1,
        }
    }
}

struct World {
    store: Arc<MemoryPayments>,
    endpoints: Arc<MemoryEndpoints>,
    deliveries: Arc<MemoryDeliveries>,
    queue: Arc<MemoryQueue>,
    secrets: Arc<StaticSecrets>,
    sender: Arc<ScriptedSender>,
}

fn world() -> World {
    let w = World {
        store: Arc::new(MemoryPayments::default()),
        endpoints: Arc::new(MemoryEndpoints::default()),
        deliveries: Arc::new(MemoryDeliveries::default()),
        queue: Arc::new(MemoryQueue::default()),
        secrets: Arc::new(StaticSecrets::default()),
        sender: Arc::new(ScriptedSender::default()),
    };
    w.endpoints.insert(WebhookEndpoint {
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
    });
    w.secrets
        .set("paygate/dev/webhooks/whe_1", &["whsec_current"]);
    w
}

impl World {
    fn deps(&self, down_for: Option<&str>, sender: Arc<dyn WebhookSender>) -> Deps {
        Deps {
            deliver: DeliverDeps {
                deliveries: self.deliveries.clone(),
                outbox: Arc::new(Events {
                    inner: self.store.clone(),
                    down_for: down_for.map(|id| EventId::parse(id).unwrap()),
                }),
                endpoints: self.endpoints.clone(),
                secrets: self.secrets.clone(),
                sender,
                queue: self.queue.clone(),
                clock: Arc::new(ManualClock::at(T0)),
                schedule: RetrySchedule::default(),
                health: self.endpoints.clone(),
                disable_policy: Default::default(),
                metrics: Arc::new(paygate_domain::metrics::NoMetrics),
            },
        }
    }

    /// An outbox event with its pending delivery to `whe_1`; returns the first attempt's
    /// message as the fanout would have queued it.
    async fn pending(&self, event_id: &str, n: u32) -> DeliveryMessage {
        let p = Payment {
            id: PaymentId::parse(&format!("pay_{n}")).unwrap(),
            merchant_id: MerchantId::parse("mch_1").unwrap(),
            mode: Mode::Test,
            account_id: AccountId::parse("acc_1").unwrap(),
            order_id: format!("O{n}"),
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
            EventId::parse(event_id).unwrap(),
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
        let endpoint = self.endpoints.0.lock().unwrap()[0].clone();
        let delivery = Delivery::new(&ev, &endpoint, T0);
        assert!(self.deliveries.create_delivery(&delivery).await.unwrap());
        DeliveryMessage {
            delivery_id: delivery.id,
            attempt: 1,
            due_at: T0,
        }
    }
}

fn record(message_id: &str, msg: &DeliveryMessage) -> SqsMessage {
    raw(message_id, &serde_json::to_string(msg).unwrap())
}

fn raw(message_id: &str, body: &str) -> SqsMessage {
    let mut m = SqsMessage::default();
    m.message_id = Some(message_id.to_owned());
    m.body = Some(body.to_owned());
    m
}

fn batch(records: Vec<SqsMessage>) -> SqsEvent {
    let mut e = SqsEvent::default();
    e.records = records;
    e
}

fn failed_ids(resp: &SqsBatchResponse) -> Vec<String> {
    resp.batch_item_failures
        .iter()
        .map(|f| f.item_identifier.clone())
        .collect()
}

#[tokio::test]
async fn a_malformed_record_fails_alone_and_the_good_one_is_delivered() {
    let w = world();
    let msg = w.pending("evt_1", 1).await;
    let deps = w.deps(None, w.sender.clone());
    let resp = handle(
        &deps,
        batch(vec![
            raw("msg-bad", r#"{"deliveryId":"dlv_1","attempt":"one"}"#),
            record("msg-good", &msg),
        ]),
    )
    .await;
    assert_eq!(failed_ids(&resp), ["msg-bad"]);
    assert_eq!(w.sender.requests.lock().unwrap().len(), 1);
    let attempts = w.deliveries.attempts();
    assert_eq!(attempts.len(), 1);
    assert!(attempts[0].succeeded);
    let d = w.deliveries.get_delivery(&msg.delivery_id).await.unwrap();
    assert_eq!(d.unwrap().status, DeliveryStatus::Succeeded);
}

#[tokio::test]
async fn a_store_failure_fails_only_its_record() {
    let w = world();
    let ok = w.pending("evt_1", 1).await;
    let down = w.pending("evt_2", 2).await;
    let deps = w.deps(Some("evt_2"), w.sender.clone());
    let resp = handle(
        &deps,
        batch(vec![record("msg-ok", &ok), record("msg-down", &down)]),
    )
    .await;
    assert_eq!(failed_ids(&resp), ["msg-down"]);
    let attempts = w.deliveries.attempts();
    assert_eq!(attempts.len(), 1);
    assert_eq!(attempts[0].delivery_id, ok.delivery_id);
}

#[tokio::test]
async fn a_failed_attempt_is_recorded_and_rescheduled_not_reported_to_sqs() {
    let w = world();
    let msg = w.pending("evt_1", 1).await;
    w.sender.push_status(500);
    let deps = w.deps(None, w.sender.clone());
    let resp = handle(&deps, batch(vec![record("m1", &msg)])).await;
    assert!(resp.batch_item_failures.is_empty());
    let queued = w.queue.drain();
    assert_eq!(queued.len(), 1);
    assert_eq!(queued[0].0.attempt, 2);
    assert_eq!(queued[0].1, 30, "first retry after 30 s");
}

#[tokio::test]
async fn records_of_a_batch_are_attempted_concurrently() {
    let w = world();
    let a = w.pending("evt_1", 1).await;
    let b = w.pending("evt_2", 2).await;
    let deps = w.deps(None, Arc::new(Rendezvous(tokio::sync::Barrier::new(2))));
    let resp = tokio::time::timeout(
        Duration::from_secs(5),
        handle(&deps, batch(vec![record("m1", &a), record("m2", &b)])),
    )
    .await
    .expect("the two attempts never ran at the same time");
    assert!(resp.batch_item_failures.is_empty());
    assert_eq!(w.deliveries.attempts().len(), 2);
}

/// `infra/events/webhook-deliver.json` is a real SQS event with a delivery message body.
#[test]
fn the_sample_event_carries_a_delivery_message() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../infra/events/webhook-deliver.json"
    );
    let sample: SqsEvent = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(!sample.records.is_empty());
    for r in sample.records {
        assert!(r.message_id.is_some());
        let _: DeliveryMessage = serde_json::from_str(r.body.as_deref().unwrap()).unwrap();
    }
}
