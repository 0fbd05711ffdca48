//! The sweeper (every minute): the guarantee behind the fast paths. It sends outbox events
//! still unsent after a grace period, and re-enqueues pending deliveries whose attempt is
//! overdue (their queue message was lost, e.g. a crash between recording an attempt and
//! enqueueing the next).

use std::sync::Arc;

use paygate_domain::{
    ports::{Clock, DeliveryMessage, DeliveryQueue, DeliveryStore, EventPublisher, Outbox},
    Timestamp,
};

use crate::PipelineError;

/// How old an unsent event or an overdue delivery must be before the sweeper acts: longer
/// than the fast path normally takes, so it rarely duplicates it.
pub const GRACE_MS: i64 = 60_000;
/// Most items handled per run and kind.
pub const BATCH: usize = 200;

pub struct SweepDeps {
    pub outbox: Arc<dyn Outbox>,
    pub publisher: Arc<dyn EventPublisher>,
    pub deliveries: Arc<dyn DeliveryStore>,
    pub queue: Arc<dyn DeliveryQueue>,
    pub clock: Arc<dyn Clock>,
    pub grace_ms: i64,
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SweepReport {
    pub events_sent: usize,
    pub deliveries_requeued: usize,
    pub failures: usize,
}

pub async fn sweep(deps: &SweepDeps) -> Result<SweepReport, PipelineError> {
    let now = deps.clock.now();
    let cutoff = Timestamp::from_unix_millis(now.unix_millis() - deps.grace_ms);
    let mut report = SweepReport::default();
    for event in deps.outbox.list_unsent(cutoff, BATCH).await? {
        match deps.publisher.publish(&event).await {
            Ok(()) => {
                deps.outbox.mark_sent(&event.id).await?;
                report.events_sent += 1;
            }
            Err(e) => {
                tracing::warn!(event_id = %event.id, error = %e, "sweeper could not queue event");
                report.failures += 1;
            }
        }
    }
    for d in deps.deliveries.list_overdue(cutoff, BATCH).await? {
        let msg = DeliveryMessage {
            delivery_id: d.id.clone(),
            attempt: d.attempts_made + 1,
            due_at: d.next_attempt_at.unwrap_or(now),
        };
        match deps.queue.enqueue(&msg, 0).await {
            Ok(()) => report.deliveries_requeued += 1,
            Err(e) => {
                tracing::warn!(delivery_id = %d.id, error = %e, "sweeper could not requeue delivery");
                report.failures += 1;
            }
        }
    }
    if report != SweepReport::default() {
        tracing::info!(?report, "sweep");
    }
    Ok(report)
}
