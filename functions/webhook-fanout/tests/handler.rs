//! The fanout handler over in-memory ports: per-record failures, never whole batches.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use async_trait::async_trait;
use aws_lambda_events::sqs::{SqsEvent, SqsMessage};
use fn_webhook_fanout::{handle, Deps};
use paygate_domain::testkit::{
    ManualClock, MemoryDeliveries, MemoryEndpoints, MemoryPayments, MemoryQueue, T0,
};
use paygate_domain::{
    ports::EndpointReader,
    webhook::{EventFilter, WebhookEndpoint},
    AccountId, Currency, EventId, EventRecord, EventType, MerchantId, Mode, Payment, PaymentId,
    PaymentStatus, StoreError, WebhookEndpointId,
};
use paygate_webhooks::FanoutDeps;

/// Endpoints that are down for one merchant and in memory for the others; with a barrier,
/// each listing waits until as many are in flight.
struct Endpoints {
    inner: MemoryEndpoints,
    down_for: Option<MerchantId>,
    rendezvous: Option<tokio::sync::Barrier>,
}

#[async_trait]
impl EndpointReader for Endpoints {
    async fn list_endpoints(
        &self,
        merchant: &MerchantId,
    ) -> Result<Vec<WebhookEndpoint>, StoreError> {
        if self.down_for.as_ref() == Some(merchant) {
            return Err(StoreError::Unavailable("injected outage".into()));
        }
        if let Some(b) = &self.rendezvous {
            b.wait().await;
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
    deps: Deps,
    deliveries: Arc<MemoryDeliveries>,
    queue: Arc<MemoryQueue>,
}

fn endpoint(merchant: &str, id: &str) -> WebhookEndpoint {
    WebhookEndpoint {
        id: WebhookEndpointId::parse(id).unwrap(),
        merchant_id: MerchantId::parse(merchant).unwrap(),
        url: format!("https://merchant.example/{id}"),
        events: vec![EventFilter::parse("*").unwrap()],
        mode: Mode::Test,
        enabled: true,
        description: String::new(),
        secret_id: format!("paygate/dev/webhooks/{id}"),
        secret_version: 0,
        created_at: T0,
        updated_at: T0,
        disabled_reason: None,
    }
}

/// Merchants `mch_1`, `mch_2` and `mch_anatolia` (the samples') have one endpoint each; `down_for`'s endpoints fail.
fn world(down_for: Option<&str>) -> World {
    world_with(down_for, None)
}

fn world_with(down_for: Option<&str>, rendezvous: Option<tokio::sync::Barrier>) -> World {
    let inner = MemoryEndpoints::default();
    inner.insert(endpoint("mch_1", "whe_1"));
    inner.insert(endpoint("mch_2", "whe_2"));
    inner.insert(endpoint("mch_anatolia", "whe_anatoliaMain"));
    let deliveries = Arc::new(MemoryDeliveries::default());
    let queue = Arc::new(MemoryQueue::default());
    let deps = Deps {
        fanout: FanoutDeps {
            endpoints: Arc::new(Endpoints {
                inner,
                down_for: down_for.map(|m| MerchantId::parse(m).unwrap()),
                rendezvous,
            }),
            deliveries: deliveries.clone(),
            queue: queue.clone(),
            outbox: Arc::new(MemoryPayments::default()),
            clock: Arc::new(ManualClock::at(T0)),
        },
    };
    World {
        deps,
        deliveries,
        queue,
    }
}

fn event(id: &str, merchant: &str) -> EventRecord {
    let p = Payment {
        id: PaymentId::parse("pay_1").unwrap(),
        merchant_id: MerchantId::parse(merchant).unwrap(),
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
    EventRecord::for_payment(
        EventId::parse(id).unwrap(),
        EventType::PaymentCaptured,
        &p,
        T0,
    )
}

fn record(message_id: &str, body: &str) -> SqsMessage {
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

fn failed_ids(resp: &aws_lambda_events::sqs::SqsBatchResponse) -> Vec<String> {
    resp.batch_item_failures
        .iter()
        .map(|f| f.item_identifier.clone())
        .collect()
}

#[tokio::test]
async fn a_malformed_record_fails_alone_and_the_good_one_is_fanned_out() {
    let w = world(None);
    let good = serde_json::to_string(&event("evt_1", "mch_1")).unwrap();
    let resp = handle(
        &w.deps,
        batch(vec![
            record("msg-good", &good),
            record("msg-bad", r#"{"id":"evt_2","type":"payment.nope"}"#),
        ]),
    )
    .await;
    assert_eq!(failed_ids(&resp), ["msg-bad"]);
    let deliveries = w.deliveries.all();
    assert_eq!(deliveries.len(), 1);
    assert_eq!(deliveries[0].event_id.as_str(), "evt_1");
    let queued = w.queue.drain();
    assert_eq!(queued.len(), 1);
    assert_eq!(queued[0].0.delivery_id, deliveries[0].id);
}

#[tokio::test]
async fn a_record_without_a_body_fails() {
    let w = world(None);
    let mut empty = SqsMessage::default();
    empty.message_id = Some("msg-empty".into());
    let resp = handle(&w.deps, batch(vec![empty])).await;
    assert_eq!(failed_ids(&resp), ["msg-empty"]);
}

#[tokio::test]
async fn a_store_failure_fails_only_its_record() {
    let w = world(Some("mch_2"));
    let ok = serde_json::to_string(&event("evt_1", "mch_1")).unwrap();
    let down = serde_json::to_string(&event("evt_2", "mch_2")).unwrap();
    let resp = handle(
        &w.deps,
        batch(vec![record("msg-down", &down), record("msg-ok", &ok)]),
    )
    .await;
    assert_eq!(failed_ids(&resp), ["msg-down"]);
    let deliveries = w.deliveries.all();
    assert_eq!(deliveries.len(), 1);
    assert_eq!(deliveries[0].event_id.as_str(), "evt_1");
}

#[tokio::test]
async fn a_redelivered_event_creates_no_second_delivery() {
    let w = world(None);
    let body = serde_json::to_string(&event("evt_1", "mch_1")).unwrap();
    let first = handle(&w.deps, batch(vec![record("m1", &body)])).await;
    let again = handle(&w.deps, batch(vec![record("m2", &body)])).await;
    assert!(first.batch_item_failures.is_empty());
    assert!(again.batch_item_failures.is_empty());
    assert_eq!(w.deliveries.all().len(), 1);
    assert_eq!(w.queue.drain().len(), 1);
}

#[tokio::test]
async fn records_of_a_batch_are_fanned_out_concurrently() {
    let w = world_with(None, Some(tokio::sync::Barrier::new(2)));
    let a = serde_json::to_string(&event("evt_1", "mch_1")).unwrap();
    let b = serde_json::to_string(&event("evt_2", "mch_2")).unwrap();
    let resp = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        handle(&w.deps, batch(vec![record("m1", &a), record("m2", &b)])),
    )
    .await
    .expect("the two records never ran at the same time");
    assert!(resp.batch_item_failures.is_empty());
    assert_eq!(w.deliveries.all().len(), 2);
}

/// `infra/events/webhook-fanout.json` is a real SQS event with an event record body.
#[tokio::test]
async fn the_sample_event_is_fanned_out() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../infra/events/webhook-fanout.json"
    );
    let sample: SqsEvent = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let w = world(None);
    let resp = handle(&w.deps, sample).await;
    assert!(resp.batch_item_failures.is_empty());
    let deliveries = w.deliveries.all();
    assert_eq!(deliveries.len(), 1);
    // The deliver sample is the message this fanout queues.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../infra/events/webhook-deliver.json"
    );
    let deliver: SqsEvent = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let queued = w.queue.drain();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(deliver.records[0].body.as_deref().unwrap())
            .unwrap(),
        serde_json::to_value(&queued[0].0).unwrap()
    );
    assert_eq!(queued[0].0.delivery_id, deliveries[0].id);
}
