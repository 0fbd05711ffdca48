//! The webhook pipeline in the local stack: the same `fanout`, `deliver` and `sweep` the
//! Lambdas run, fed by pollers that stand in for the event source mappings and a timer
//! that stands in for the sweeper's schedule.
//!
//! Like an event source mapping, a poller deletes a message only when its handler
//! succeeded; a failed (or unparsable) message stays, comes back after the queue's
//! visibility timeout and ends in the dead-letter queue after `maxReceiveCount` receives.
//!
//! The pollers short-poll (`WaitTimeSeconds=0`) and sleep [`WebhookOptions::idle_poll`]
//! after an empty receive: moto serializes every request (see `paygate_aws::moto`), so a
//! long poll would hold every other request of the emulator for its whole wait.

use std::{future::Future, sync::Arc, time::Duration};

use paygate_domain::{ports::DeliveryMessage, webhook::RetrySchedule, EventRecord};
use paygate_webhooks::SenderConfig;
use paygate_webhooks::{DeliverDeps, FanoutDeps, SweepDeps};
use tokio::{sync::Semaphore, task::JoinSet};

/// Messages one poller handles at the same time at most (a batch is at most 10).
const MAX_IN_FLIGHT: usize = 32;

/// How long a poller waits after a failed receive before trying again.
const RECEIVE_ERROR_BACKOFF: Duration = Duration::from_secs(1);

/// How the local stack runs the webhook pipeline.
#[derive(Debug, Clone)]
pub struct WebhookOptions {
    /// The sender's egress policy, extra roots and per-attempt deadline.
    pub sender: SenderConfig,
    /// Waits between attempts (the spec's by default).
    pub schedule: RetrySchedule,
    /// How often the sweeper runs (deployed: every minute).
    pub sweep_every: Duration,
    /// How old an unsent event or an overdue delivery must be before the sweeper acts
    /// (deployed: [`paygate_webhooks::sweep::GRACE_MS`]).
    pub sweep_grace: Duration,
    /// How long a poller sleeps after a receive that returned nothing.
    pub idle_poll: Duration,
    /// How long the deliver step reuses a signing secret it read (deployed:
    /// `paygate_aws::secrets::DEFAULT_TTL`). A rotation does not wait for it: the endpoint's
    /// `secretVersion` makes the next delivery read the rotated secret.
    pub secret_cache_ttl: Duration,
}

impl Default for WebhookOptions {
    /// Production sender (strict egress, system roots, 10 s), the spec's schedule, the
    /// sweeper every 30 s with the deployed grace period.
    fn default() -> Self {
        Self {
            sender: SenderConfig::default(),
            schedule: RetrySchedule::default(),
            sweep_every: Duration::from_secs(30),
            sweep_grace: Duration::from_millis(
                u64::try_from(paygate_webhooks::sweep::GRACE_MS).unwrap_or(60_000),
            ),
            idle_poll: Duration::from_millis(200),
            secret_cache_ttl: paygate_aws::secrets::DEFAULT_TTL,
        }
    }
}

/// The three background tasks; dropping this aborts them (and every handler in flight).
pub(crate) struct Pipeline {
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

pub(crate) struct PipelineParts {
    pub sqs: paygate_aws::sqs::Client,
    pub events_queue_url: String,
    pub deliveries_queue_url: String,
    pub fanout: FanoutDeps,
    pub deliver: DeliverDeps,
    pub sweep: SweepDeps,
    pub idle_poll: Duration,
    pub sweep_every: Duration,
}

/// Spawns the events poller, the deliveries poller and the sweeper.
pub(crate) fn spawn(p: PipelineParts) -> Pipeline {
    let fanout = Arc::new(p.fanout);
    let deliver = Arc::new(p.deliver);
    let sweep = p.sweep;
    let events = tokio::spawn(poll_queue(
        p.sqs.clone(),
        p.events_queue_url,
        p.idle_poll,
        "events",
        move |body: String| {
            let deps = fanout.clone();
            async move {
                let event: EventRecord = match serde_json::from_str(&body) {
                    Ok(e) => e,
                    Err(e) => {
                        tracing::error!(error = %e, "events queue: not an event record; left for the DLQ");
                        return false;
                    }
                };
                match paygate_webhooks::fanout(&deps, &event).await {
                    Ok(n) => {
                        tracing::info!(event_id = %event.id, event_type = event.event_type.as_str(), deliveries = n, "event fanned out");
                        true
                    }
                    Err(e) => {
                        tracing::warn!(event_id = %event.id, error = %e, "fanout failed; the message comes back");
                        false
                    }
                }
            }
        },
    ));
    let deliveries = tokio::spawn(poll_queue(
        p.sqs,
        p.deliveries_queue_url,
        p.idle_poll,
        "deliveries",
        move |body: String| {
            let deps = deliver.clone();
            async move {
                let msg: DeliveryMessage = match serde_json::from_str(&body) {
                    Ok(m) => m,
                    Err(e) => {
                        tracing::error!(error = %e, "deliveries queue: not a delivery message; left for the DLQ");
                        return false;
                    }
                };
                match paygate_webhooks::deliver(&deps, &msg).await {
                    Ok(outcome) => {
                        tracing::debug!(delivery_id = %msg.delivery_id, attempt = msg.attempt, ?outcome, "deliver");
                        true
                    }
                    Err(e) => {
                        tracing::warn!(delivery_id = %msg.delivery_id, error = %e, "deliver failed; the message comes back");
                        false
                    }
                }
            }
        },
    ));
    let sweeper = tokio::spawn(async move {
        let every = p.sweep_every.max(Duration::from_millis(10));
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            if let Err(e) = paygate_webhooks::sweep(&sweep).await {
                tracing::warn!(error = %e, "sweep failed; the next tick tries again");
            }
        }
    });
    Pipeline {
        tasks: vec![events, deliveries, sweeper],
    }
}

/// Receives batches from `queue_url` and runs `handle` on every message concurrently,
/// deleting a message once `handle` returned `true` for it.
async fn poll_queue<H, F>(
    sqs: paygate_aws::sqs::Client,
    queue_url: String,
    idle: Duration,
    name: &'static str,
    handle: H,
) where
    H: Fn(String) -> F + Send + Sync + 'static,
    F: Future<Output = bool> + Send + 'static,
{
    let permits = Arc::new(Semaphore::new(MAX_IN_FLIGHT));
    // Owned by this task: aborting the poller drops the set, which aborts its handlers.
    let mut running = JoinSet::new();
    loop {
        while running.try_join_next().is_some() {}
        let free = permits.available_permits();
        if free == 0 {
            // Wait for a handler to finish before taking more messages off the queue.
            if let Ok(p) = permits.clone().acquire_owned().await {
                drop(p);
            }
            continue;
        }
        let max = i32::try_from(free.min(10)).unwrap_or(10);
        let batch = match paygate_aws::sqs::receive(&sqs, &queue_url, max, 0).await {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!(queue = name, error = %e, "receive failed");
                tokio::time::sleep(RECEIVE_ERROR_BACKOFF).await;
                continue;
            }
        };
        if batch.is_empty() {
            tokio::time::sleep(idle).await;
            continue;
        }
        for m in batch {
            let Ok(permit) = permits.clone().acquire_owned().await else {
                return;
            };
            let work = handle(m.body);
            let sqs = sqs.clone();
            let url = queue_url.clone();
            running.spawn(async move {
                if work.await {
                    if let Err(e) = paygate_aws::sqs::delete(&sqs, &url, &m.receipt_handle).await {
                        // Handled but not deleted: it comes back, and handling is idempotent.
                        tracing::warn!(queue = name, message_id = %m.message_id, error = %e, "delete failed");
                    }
                }
                drop(permit);
            });
        }
    }
}
