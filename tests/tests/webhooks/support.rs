//! What the webhook tests share: a stack wired to a receiver, endpoint registration,
//! and waits with deadlines.

use std::{future::Future, time::Duration};

use paygate_domain::{
    ports::{DeliveryAdmin, DeliveryStore},
    webhook::{Attempt, Delivery, DeliveryId, DeliveryStatus, EventFilter, RetrySchedule},
    EventId, MerchantId, Mode,
};
use paygate_tests::{
    receiver::{Hook, Receiver},
    Stack, WebhookOptions,
};

/// Per-attempt deadline of the stacks' senders (the spec's 10 s, shortened for tests).
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a test waits for something the pipeline does right away (fanout, a first
/// attempt): generous, the shared moto serializes every request of every test.
pub const SOON: Duration = Duration::from_secs(20);

/// A stack whose sender reaches `rx`, retrying on `schedule`, sweeping every second.
pub async fn stack_for(label: &str, rx: &Receiver, schedule: &str) -> Stack {
    stack_with(label, options(rx, schedule)).await
}

pub async fn stack_with(label: &str, opts: WebhookOptions) -> Stack {
    Stack::start_with_webhooks(label, opts).await
}

/// The options [`stack_for`] uses; the grace period keeps the sweeper off the fast path.
pub fn options(rx: &Receiver, schedule: &str) -> WebhookOptions {
    WebhookOptions {
        sender: rx.sender_config(ATTEMPT_TIMEOUT),
        schedule: RetrySchedule::parse(schedule).expect("a retry schedule"),
        sweep_every: Duration::from_secs(1),
        sweep_grace: Duration::from_secs(10),
        idle_poll: Duration::from_millis(100),
        secret_cache_ttl: Duration::from_secs(300),
    }
}

pub fn merchant(id: &str) -> MerchantId {
    MerchantId::parse(id).unwrap()
}

/// Registers an endpoint of `merchant` at `rx`'s `path`; returns its id and secret.
pub async fn endpoint(
    stack: &Stack,
    merchant_id: &str,
    rx: &Receiver,
    path: &str,
    events: &[&str],
    mode: Mode,
) -> (paygate_domain::webhook::WebhookEndpoint, String) {
    let filters: Vec<EventFilter> = events
        .iter()
        .map(|e| EventFilter::parse(e).unwrap_or_else(|| panic!("event filter {e}")))
        .collect();
    stack
        .server()
        .register_endpoint(&merchant(merchant_id), &rx.url(path), &filters, mode)
        .await
        .expect("endpoint registered")
}

/// Polls `probe` until it gives a value, at most `within`.
pub async fn until<T, F, Fut>(what: &str, within: Duration, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if let Some(v) = probe().await {
            return v;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not within {within:?}: {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The delivery once it is final (succeeded or failed).
pub async fn final_delivery(stack: &Stack, id: &DeliveryId, within: Duration) -> Delivery {
    let deliveries = stack.server().deliveries();
    until(&format!("delivery {id} final"), within, || async {
        deliveries
            .get_delivery(id)
            .await
            .unwrap()
            .filter(|d| d.status != DeliveryStatus::Pending)
    })
    .await
}

/// Every recorded attempt of a delivery, by number.
pub async fn attempts(stack: &Stack, id: &DeliveryId) -> Vec<Attempt> {
    stack.server().deliveries().list_attempts(id).await.unwrap()
}

/// Every delivery of an event.
pub async fn deliveries_of(stack: &Stack, event: &str) -> Vec<Delivery> {
    stack
        .server()
        .deliveries()
        .list_by_event(&EventId::parse(event).unwrap())
        .await
        .unwrap()
}

/// Waits until both pipeline queues are empty (nothing visible, in flight or delayed):
/// after that, nothing more is sent unless something new happens.
pub async fn queues_drained(stack: &Stack) {
    let s = stack.server();
    until(
        "the events and deliveries queues are empty",
        SOON,
        || async {
            let events = paygate_aws::sqs::depth(&s.sqs, &s.queues.events)
                .await
                .unwrap();
            let deliveries = paygate_aws::sqs::depth(&s.sqs, &s.queues.deliveries)
                .await
                .unwrap();
            (events == 0 && deliveries == 0).then_some(())
        },
    )
    .await;
}

/// The delivery id a hook carries.
pub fn delivery_id(hook: &Hook) -> DeliveryId {
    DeliveryId::parse(hook.header("x-svc-delivery").expect("X-Svc-Delivery")).unwrap()
}

/// The hooks among `hooks` about payment `id`.
pub fn about<'a>(hooks: &'a [Hook], payment: &str) -> Vec<&'a Hook> {
    hooks
        .iter()
        .filter(|h| h.json()["data"]["id"] == payment)
        .collect()
}
