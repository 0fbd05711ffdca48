//! Webhook delivery throughput (`make bench`; `cargo bench -p paygate-tests --bench
//! webhook_throughput`): the deliver function's work — a batch of delivery messages, each
//! signed and POSTed over HTTPS with the real sender (rustls, connection reuse), its attempt
//! recorded — with the stores in memory and a local HTTPS receiver that answers at once.
//!
//! The deliverer runs on a single-threaded runtime (one core at most); the receiver on a
//! runtime of its own thread. Printed: deliveries per second per batch size, the added
//! latency of one delivery (message in → attempt recorded; p50/p99), and a batch in which one
//! endpoint hangs: the others finish at once, the hanging one at the 10 s limit.
//! `BENCH_WEBHOOK_DELIVERIES` (default 3000) sets the run length.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// Durations and ratios of measurements (no money here): floats are the right type.
#![allow(clippy::float_arithmetic, clippy::cast_precision_loss)]

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use futures::future::join_all;
use paygate_domain::{
    ports::{DeliveryMessage, Expectation, PaymentChange, PaymentWriter},
    testkit::{
        ManualClock, MemoryDeliveries, MemoryEndpoints, MemoryPayments, MemoryQueue, StaticSecrets,
        T0,
    },
    webhook::{EventFilter, RetrySchedule, WebhookEndpoint},
    AccountId, Currency, EventId, EventRecord, EventType, MerchantId, Mode, Payment, PaymentId,
    PaymentStatus, WebhookEndpointId,
};
use paygate_tests::receiver::{Answer, Receiver};
use paygate_webhooks::{deliver, fanout, DeliverDeps, FanoutDeps, HttpSender, DELIVERY_TIMEOUT};

const ENDPOINTS: usize = 10;

struct World {
    deliver: DeliverDeps,
    fanout: FanoutDeps,
    store: Arc<MemoryPayments>,
    queue: Arc<MemoryQueue>,
    next_event: usize,
}

fn world(receiver: &Receiver, paths: &[String]) -> World {
    let clock = Arc::new(ManualClock::at(T0));
    let store = Arc::new(MemoryPayments::default());
    let endpoints = Arc::new(MemoryEndpoints::default());
    let deliveries = Arc::new(MemoryDeliveries::default());
    let queue = Arc::new(MemoryQueue::default());
    let secrets = Arc::new(StaticSecrets::default());
    for (k, path) in paths.iter().enumerate() {
        endpoints.insert(WebhookEndpoint {
            id: WebhookEndpointId::parse(&format!("whe_bench{k}")).unwrap(),
            merchant_id: MerchantId::parse("mch_bench").unwrap(),
            url: receiver.url(path),
            events: vec![EventFilter::parse("*").unwrap()],
            mode: Mode::Test,
            enabled: true,
            disabled_reason: None,
            description: String::new(),
            secret_id: format!("secret-{k}"),
            secret_version: 0,
            created_at: T0,
            updated_at: T0,
        });
        secrets.set(&format!("secret-{k}"), &["whsec_current0123456789"]);
    }
    let sender = HttpSender::new(receiver.sender_config(DELIVERY_TIMEOUT)).expect("sender");
    World {
        deliver: DeliverDeps {
            deliveries: deliveries.clone(),
            outbox: store.clone(),
            endpoints: endpoints.clone(),
            health: endpoints.clone(),
            disable_policy: Default::default(),
            metrics: Arc::new(paygate_domain::metrics::NoMetrics),
            secrets,
            sender: Arc::new(sender),
            queue: queue.clone(),
            clock: clock.clone(),
            schedule: RetrySchedule::parse("30s,2m").unwrap(),
        },
        fanout: FanoutDeps {
            endpoints,
            deliveries,
            queue: queue.clone(),
            outbox: store.clone(),
            clock,
        },
        store,
        queue,
        next_event: 0,
    }
}

impl World {
    /// `events` captured events, each fanned out to every endpoint: the messages to deliver.
    async fn messages(&mut self, events: usize) -> Vec<DeliveryMessage> {
        for _ in 0..events {
            let n = self.next_event;
            self.next_event += 1;
            let p = Payment {
                id: PaymentId::parse(&format!("pay_bench{n}")).unwrap(),
                merchant_id: MerchantId::parse("mch_bench").unwrap(),
                mode: Mode::Test,
                account_id: AccountId::parse("acc_bench").unwrap(),
                order_id: format!("ORD{n}"),
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
                EventId::parse(&format!("evt_bench{n}")).unwrap(),
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
            fanout(&self.fanout, &ev).await.unwrap();
        }
        self.queue.drain().into_iter().map(|(m, _)| m).collect()
    }
}

/// Delivers `msgs` in batches of `batch` (each batch concurrently, as the function does);
/// returns the wall time and every delivery's latency.
async fn run(w: &World, msgs: &[DeliveryMessage], batch: usize) -> (Duration, Vec<Duration>) {
    let mut latencies = Vec::with_capacity(msgs.len());
    let started = Instant::now();
    for chunk in msgs.chunks(batch) {
        let done = join_all(chunk.iter().map(|m| async move {
            let t = Instant::now();
            deliver(&w.deliver, m).await.expect("delivered");
            t.elapsed()
        }))
        .await;
        latencies.extend(done);
    }
    (started.elapsed(), latencies)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1_000.0
}

fn main() {
    let total: usize = std::env::var("BENCH_WEBHOOK_DELIVERIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|v: &usize| *v >= ENDPOINTS)
        .unwrap_or(3_000);
    let receiver_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("receiver runtime");
    let receiver = receiver_rt.block_on(Receiver::start());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("deliverer runtime");
    let paths: Vec<String> = (0..ENDPOINTS).map(|k| format!("/hooks/{k}")).collect();

    println!(
        "webhook delivery ({total} deliveries per row to {ENDPOINTS} endpoints; deliverer on one core, receiver answering at once)"
    );
    println!("| batch size | deliveries/s | added latency p50 ms | p99 ms |");
    println!("|---:|---:|---:|---:|");
    rt.block_on(async {
        let mut w = world(&receiver, &paths);
        // Warm-up: connections and TLS sessions, once.
        let warm = w.messages(2).await;
        run(&w, &warm, ENDPOINTS).await;
        for batch in [1, 10, 100] {
            let msgs = w.messages(total / ENDPOINTS).await;
            let (wall, mut lat) = run(&w, &msgs, batch).await;
            lat.sort();
            println!(
                "| {batch} | {:.0} | {:.2} | {:.2} |",
                msgs.len() as f64 / wall.as_secs_f64(),
                ms(percentile(&lat, 0.5)),
                ms(percentile(&lat, 0.99)),
            );
        }

        // One endpoint hangs: the batch of ten waits for it alone.
        receiver.script(&paths[0], [Answer::Hang]);
        let msgs = w.messages(1).await;
        let (wall, lat) = run(&w, &msgs, ENDPOINTS).await;
        let mut sorted = lat.clone();
        sorted.sort();
        // The slowest is the hanging endpoint's; the one before it, the last of the others.
        let others = sorted[sorted.len().saturating_sub(2)];
        println!(
            "\nslow receiver: a batch of {} with one hanging endpoint took {:.0} ms; the other {} were recorded within {:.1} ms (the limit per attempt: {} s)",
            msgs.len(),
            ms(wall),
            msgs.len() - 1,
            ms(others),
            DELIVERY_TIMEOUT.as_secs(),
        );
    });
}
