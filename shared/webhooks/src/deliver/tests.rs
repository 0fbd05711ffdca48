use std::sync::Arc;

use paygate_domain::testkit::{
    ManualClock, MemoryDeliveries, MemoryEndpoints, MemoryPayments, MemoryPublisher, MemoryQueue,
    ScriptedSender, StaticSecrets, T0,
};
use paygate_domain::{
    ports::{DeliveryMessage, DeliveryStore, SendOutcome},
    webhook::{AttemptError, DeliveryStatus, EventFilter, RetrySchedule, WebhookEndpoint},
    AccountId, Currency, EventId, EventRecord, EventType, MerchantId, Mode, Payment, PaymentId,
    PaymentStatus, WebhookEndpointId,
};

use super::*;
use crate::{fanout, sweep, FanoutDeps, SweepDeps};

struct World {
    clock: Arc<ManualClock>,
    store: Arc<MemoryPayments>,
    endpoints: Arc<MemoryEndpoints>,
    deliveries: Arc<MemoryDeliveries>,
    queue: Arc<MemoryQueue>,
    sender: Arc<ScriptedSender>,
    secrets: Arc<StaticSecrets>,
    publisher: Arc<MemoryPublisher>,
}

fn world() -> World {
    World {
        clock: Arc::new(ManualClock::at(T0)),
        store: Arc::new(MemoryPayments::default()),
        endpoints: Arc::new(MemoryEndpoints::default()),
        deliveries: Arc::new(MemoryDeliveries::default()),
        queue: Arc::new(MemoryQueue::default()),
        sender: Arc::new(ScriptedSender::default()),
        secrets: Arc::new(StaticSecrets::default()),
        publisher: Arc::new(MemoryPublisher::default()),
    }
}

impl World {
    fn deliver_deps(&self, schedule: RetrySchedule) -> DeliverDeps {
        DeliverDeps {
            deliveries: self.deliveries.clone(),
            outbox: self.store.clone(),
            endpoints: self.endpoints.clone(),
            secrets: self.secrets.clone(),
            sender: self.sender.clone(),
            queue: self.queue.clone(),
            clock: self.clock.clone(),
            schedule,
            health: self.endpoints.clone(),
            disable_policy: Default::default(),
            metrics: Arc::new(paygate_domain::metrics::NoMetrics),
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

    fn endpoint(&self, id: &str, events: &[&str], mode: Mode) {
        self.endpoints.insert(WebhookEndpoint {
            id: WebhookEndpointId::parse(id).unwrap(),
            merchant_id: MerchantId::parse("mch_1").unwrap(),
            url: format!("https://merchant.example/{id}"),
            events: events
                .iter()
                .map(|e| EventFilter::parse(e).unwrap())
                .collect(),
            mode,
            enabled: true,
            description: String::new(),
            secret_id: format!("secret-{id}"),
            secret_version: 0,
            created_at: T0,
            updated_at: T0,
            disabled_reason: None,
        });
        self.secrets
            .set(&format!("secret-{id}"), &["whsec_current"]);
    }

    /// Writes a captured-payment event into the outbox, as an operation's commit would.
    async fn event(&self, t: EventType) -> EventRecord {
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
        let ev =
            EventRecord::for_payment(EventId::parse("evt_1").unwrap(), t, &p, self.clock.now());
        use paygate_domain::ports::{Expectation, PaymentChange, PaymentWriter};
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

    /// Runs the deliveries queue like SQS + Lambda would, moving the clock to each message's
    /// visibility time, until it is empty. Returns the (attempt time, headers) of every send.
    async fn run_queue(&self, deps: &DeliverDeps) {
        for _ in 0..1000 {
            let batch = self.queue.drain();
            if batch.is_empty() {
                return;
            }
            for (msg, delay) in batch {
                self.clock.advance_millis(delay * 1000);
                deliver(deps, &msg).await.unwrap();
            }
        }
        panic!("queue never drained");
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> &'a str {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
        .unwrap()
}

#[tokio::test]
async fn fanout_creates_one_delivery_per_subscribed_endpoint_of_the_mode_once() {
    let w = world();
    w.endpoint("whe_all", &["*"], Mode::Test);
    w.endpoint("whe_cap", &["payment.captured"], Mode::Test);
    w.endpoint("whe_ref", &["payment.refunded"], Mode::Test);
    w.endpoint("whe_live", &["*"], Mode::Live);
    let ev = w.event(EventType::PaymentCaptured).await;
    assert_eq!(fanout(&w.fanout_deps(), &ev).await.unwrap(), 2);
    assert_eq!(w.queue.drain().len(), 2);
    // Processing the same event again creates nothing.
    assert_eq!(fanout(&w.fanout_deps(), &ev).await.unwrap(), 0);
    assert!(w.queue.drain().is_empty());
    let mut endpoints: Vec<_> = w
        .deliveries
        .all()
        .into_iter()
        .map(|d| d.endpoint_id.to_string())
        .collect();
    endpoints.sort();
    assert_eq!(endpoints, ["whe_all", "whe_cap"]);
}

#[tokio::test]
async fn a_delivery_is_signed_and_sent_with_the_specs_headers() {
    let w = world();
    w.endpoint("whe_a", &["*"], Mode::Test);
    w.secrets.set("secret-whe_a", &["whsec_new", "whsec_old"]);
    let ev = w.event(EventType::PaymentCaptured).await;
    fanout(&w.fanout_deps(), &ev).await.unwrap();
    w.run_queue(&w.deliver_deps(RetrySchedule::default())).await;
    let reqs = w.sender.requests.lock().unwrap().clone();
    assert_eq!(reqs.len(), 1);
    let (url, headers, body) = &reqs[0];
    assert_eq!(url, "https://merchant.example/whe_a");
    assert_eq!(header(headers, "X-Svc-Event"), "payment.captured");
    assert_eq!(header(headers, "Content-Type"), "application/json");
    assert!(header(headers, "User-Agent").starts_with("paygate-webhooks/"));
    let sig = header(headers, "X-Svc-Signature");
    assert_eq!(
        sig.matches("v1=").count(),
        2,
        "one v1 per valid secret: {sig}"
    );
    let now = w.clock.now().unix_seconds();
    for secret in ["whsec_new", "whsec_old"] {
        crate::signature::verify(sig, body, &[secret], now, 300).unwrap();
    }
    assert!(crate::signature::verify(sig, body, &["whsec_other"], now, 300).is_err());
    let json: serde_json::Value = serde_json::from_slice(body).unwrap();
    assert_eq!(json["id"], "evt_1");
    assert_eq!(json["type"], "payment.captured");
    assert_eq!(json["data"]["object"], "payment");
    let d = &w.deliveries.all()[0];
    assert_eq!(d.status, DeliveryStatus::Succeeded);
    assert_eq!(header(headers, "X-Svc-Delivery"), d.id.as_str());
}

#[tokio::test]
async fn three_failures_then_success_is_four_attempts_at_the_schedule() {
    let w = world();
    w.endpoint("whe_a", &["*"], Mode::Test);
    for code in [500, 503, 404] {
        w.sender.push_status(code);
    }
    let ev = w.event(EventType::PaymentCaptured).await;
    fanout(&w.fanout_deps(), &ev).await.unwrap();
    w.run_queue(&w.deliver_deps(RetrySchedule::default())).await;
    let attempts = w.deliveries.attempts();
    assert_eq!(attempts.len(), 4);
    let gaps: Vec<i64> = attempts
        .windows(2)
        .map(|a| (a[1].at.unix_millis() - a[0].at.unix_millis()) / 1000)
        .collect();
    assert_eq!(gaps, [30, 120, 600]);
    assert_eq!(
        attempts.iter().map(|a| a.status_code).collect::<Vec<_>>(),
        [Some(500), Some(503), Some(404), Some(200)]
    );
    let reqs = w.sender.requests.lock().unwrap().clone();
    let ids: Vec<&str> = reqs
        .iter()
        .map(|(_, h, _)| header(h, "X-Svc-Delivery"))
        .collect();
    assert!(
        ids.windows(2).all(|p| p[0] == p[1]),
        "same X-Svc-Delivery on every attempt"
    );
    assert_eq!(w.deliveries.all()[0].status, DeliveryStatus::Succeeded);
}

#[tokio::test]
async fn always_failing_ends_failed_after_one_plus_eight_attempts_with_hops() {
    let w = world();
    w.endpoint("whe_a", &["*"], Mode::Test);
    for _ in 0..20 {
        w.sender.script.lock().unwrap().push_back(SendOutcome {
            status_code: None,
            error: Some(AttemptError::Timeout),
            response_body: String::new(),
            duration_ms: 10_000,
        });
    }
    let ev = w.event(EventType::PaymentCaptured).await;
    fanout(&w.fanout_deps(), &ev).await.unwrap();
    let deps = w.deliver_deps(RetrySchedule::default());
    // Every queued delay respects SQS's 900 s limit.
    let mut max_delay = 0;
    for _ in 0..1000 {
        let batch = w.queue.drain();
        if batch.is_empty() {
            break;
        }
        for (msg, delay) in batch {
            max_delay = max_delay.max(delay);
            w.clock.advance_millis(delay * 1000);
            deliver(&deps, &msg).await.unwrap();
        }
    }
    assert!(max_delay <= 900);
    let attempts = w.deliveries.attempts();
    assert_eq!(attempts.len(), 9);
    let gaps: Vec<i64> = attempts
        .windows(2)
        .map(|a| (a[1].at.unix_millis() - a[0].at.unix_millis()) / 1000)
        .collect();
    assert_eq!(gaps, [30, 120, 600, 1_800, 7_200, 21_600, 43_200, 86_400]);
    let d = &w.deliveries.all()[0];
    assert_eq!(d.status, DeliveryStatus::Failed);
    assert_eq!(d.next_attempt_at, None);
}

#[tokio::test]
async fn a_redelivered_message_never_makes_a_second_attempt_of_the_same_number() {
    let w = world();
    w.endpoint("whe_a", &["*"], Mode::Test);
    let ev = w.event(EventType::PaymentCaptured).await;
    fanout(&w.fanout_deps(), &ev).await.unwrap();
    let (msg, _) = w.queue.drain().remove(0);
    let deps = w.deliver_deps(RetrySchedule::default());
    assert!(matches!(
        deliver(&deps, &msg).await.unwrap(),
        DeliverOutcome::Attempted {
            number: 1,
            succeeded: true,
            ..
        }
    ));
    assert_eq!(deliver(&deps, &msg).await.unwrap(), DeliverOutcome::Skipped);
    assert_eq!(w.deliveries.attempts().len(), 1);
    assert_eq!(w.sender.requests.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_claimed_attempt_is_not_sent_twice_while_its_lease_holds() {
    let w = world();
    w.endpoint("whe_a", &["*"], Mode::Test);
    let ev = w.event(EventType::PaymentCaptured).await;
    fanout(&w.fanout_deps(), &ev).await.unwrap();
    let (msg, _) = w.queue.drain().remove(0);
    // Another consumer claimed attempt 1 and is still sending.
    assert!(w
        .deliveries
        .claim_attempt(
            &msg.delivery_id,
            1,
            TimeRange::new(T0, T0.plus_millis(30_000))
        )
        .await
        .unwrap());
    let deps = w.deliver_deps(RetrySchedule::default());
    assert_eq!(deliver(&deps, &msg).await.unwrap(), DeliverOutcome::Skipped);
    assert!(w.sender.requests.lock().unwrap().is_empty());
    // If it died, the attempt can be made once the lease has expired.
    w.clock.advance_millis(31_000);
    assert!(matches!(
        deliver(&deps, &msg).await.unwrap(),
        DeliverOutcome::Attempted { number: 1, .. }
    ));
}

#[tokio::test]
async fn an_early_message_waits_in_hops() {
    let w = world();
    let deps = w.deliver_deps(RetrySchedule::default());
    let msg = DeliveryMessage {
        delivery_id: paygate_domain::DeliveryId::parse("dlv_x").unwrap(),
        attempt: 5,
        due_at: T0.plus_millis(7_200_000),
    };
    assert_eq!(
        deliver(&deps, &msg).await.unwrap(),
        DeliverOutcome::Rescheduled { delay_secs: 900 }
    );
    assert_eq!(w.queue.drain(), vec![(msg, 900)]);
}

#[tokio::test]
async fn a_disabled_endpoint_counts_as_a_failed_attempt() {
    let w = world();
    w.endpoint("whe_a", &["*"], Mode::Test);
    let ev = w.event(EventType::PaymentCaptured).await;
    fanout(&w.fanout_deps(), &ev).await.unwrap();
    w.endpoints.0.lock().unwrap()[0].enabled = false;
    let (msg, _) = w.queue.drain().remove(0);
    deliver(&w.deliver_deps(RetrySchedule::default()), &msg)
        .await
        .unwrap();
    let a = &w.deliveries.attempts()[0];
    assert_eq!(a.error, Some(AttemptError::EndpointUnavailable));
    assert!(!a.succeeded);
    assert!(w.sender.requests.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_disabled_endpoint_keeps_its_schedule_but_a_deleted_one_ends_the_delivery_at_once() {
    let w = world();
    w.endpoint("whe_a", &["*"], Mode::Test);
    let ev = w.event(EventType::PaymentCaptured).await;
    fanout(&w.fanout_deps(), &ev).await.unwrap();
    let deps = w.deliver_deps(RetrySchedule::default());
    // GIVEN the endpoint is disabled: the attempt fails and the next one is scheduled
    w.endpoints.0.lock().unwrap()[0].enabled = false;
    let (msg, _) = w.queue.drain().remove(0);
    let out = deliver(&deps, &msg).await.unwrap();
    assert!(matches!(
        out,
        DeliverOutcome::Attempted { next: Some(2), .. }
    ));
    assert_eq!(w.deliveries.all()[0].status, DeliveryStatus::Pending);
    // WHEN the endpoint is deleted before the retry
    w.endpoints.0.lock().unwrap().clear();
    let (msg, delay) = w.queue.drain().remove(0);
    w.clock.advance_millis(delay * 1000);
    let out = deliver(&deps, &msg).await.unwrap();
    // THEN that attempt is `endpoint_unavailable` and the delivery is failed now: nothing
    // more is queued (not ~45 h of retries)
    assert_eq!(
        out,
        DeliverOutcome::Attempted {
            number: 2,
            succeeded: false,
            next: None
        }
    );
    let d = &w.deliveries.all()[0];
    assert_eq!(d.status, DeliveryStatus::Failed);
    assert_eq!(d.next_attempt_at, None);
    assert_eq!(
        w.deliveries.attempts()[1].error,
        Some(AttemptError::EndpointUnavailable)
    );
    assert!(w.queue.drain().is_empty());
    assert!(w.sender.requests.lock().unwrap().is_empty());
}

#[tokio::test]
async fn the_sweeper_sends_unsent_events_and_requeues_lost_deliveries() {
    let w = world();
    w.endpoint("whe_a", &["*"], Mode::Test);
    let ev = w.event(EventType::PaymentCaptured).await;
    let deps = SweepDeps {
        outbox: w.store.clone(),
        publisher: w.publisher.clone(),
        deliveries: w.deliveries.clone(),
        queue: w.queue.clone(),
        clock: w.clock.clone(),
        grace_ms: 60_000,
        batch: crate::sweep::BATCH,
    };
    // Within the grace period nothing happens (the fast path may still be running).
    assert_eq!(sweep(&deps).await.unwrap().events_sent, 0);
    w.clock.advance_millis(61_000);
    assert_eq!(sweep(&deps).await.unwrap().events_sent, 1);
    assert_eq!(w.publisher.ids(), vec![ev.id.clone()]);
    // Until the fan-out has handed it over, every run publishes it again.
    assert_eq!(sweep(&deps).await.unwrap().events_sent, 1);
    // A delivery whose message was lost is requeued once overdue.
    fanout(&w.fanout_deps(), &ev).await.unwrap();
    assert_eq!(
        sweep(&deps).await.unwrap().events_sent,
        0,
        "handed over: never again"
    );
    w.queue.drain();
    w.clock.advance_millis(61_000);
    let r = sweep(&deps).await.unwrap();
    assert_eq!(r.deliveries_requeued, 1);
    let (msg, delay) = w.queue.drain().remove(0);
    assert_eq!((msg.attempt, delay), (1, 0));
}

#[tokio::test]
async fn attempts_feed_the_endpoint_health_and_five_failing_days_disable_it() {
    use paygate_domain::webhook::{DisablePolicy, DisabledReason};
    let w = world();
    w.endpoint("whe_a", &["*"], Mode::Test);
    let id = WebhookEndpointId::parse("whe_a").unwrap();
    // The spec's schedule spans about 45 hours: 9 attempts, all failing.
    for _ in 0..9 {
        w.sender.push_status(500);
    }
    let ev = w.event(EventType::PaymentCaptured).await;
    fanout(&w.fanout_deps(), &ev).await.unwrap();
    let mut deps = w.deliver_deps(RetrySchedule::default());
    deps.disable_policy = DisablePolicy {
        min_attempts: 9,
        ..DisablePolicy::default()
    };
    w.run_queue(&deps).await;
    let h = w.endpoints.health(&id);
    assert_eq!(h.failing_since, Some(T0));
    assert_eq!(h.failed_attempts, 9);
    assert_eq!(
        h.last_failure_at,
        w.deliveries.attempts().last().map(|a| a.at)
    );
    assert!(w.endpoints.0.lock().unwrap()[0].enabled);
    // Five days after the first failure, a resend fails once more: the endpoint is disabled.
    w.clock.set(T0.plus_millis(5 * 86_400_000));
    let d = w.deliveries.all().remove(0);
    use paygate_domain::ports::DeliveryAdmin;
    let resent = w
        .deliveries
        .reset_for_resend(&d.id, w.clock.now())
        .await
        .unwrap()
        .unwrap();
    w.sender.push_status(500);
    let msg = DeliveryMessage {
        delivery_id: resent.id.clone(),
        attempt: resent.attempts_made + 1,
        due_at: w.clock.now(),
    };
    deliver(&deps, &msg).await.unwrap();
    let e = w.endpoints.0.lock().unwrap()[0].clone();
    assert!(!e.enabled);
    assert_eq!(e.disabled_reason, Some(DisabledReason::Failing));
    let version = w.endpoints.health(&id).version;
    // Attempts while it is disabled (endpoint_unavailable) are not counted.
    w.run_queue(&deps).await;
    assert!(w.deliveries.attempts().len() > 10);
    assert_eq!(w.endpoints.health(&id).version, version);
}
mod metrics;
