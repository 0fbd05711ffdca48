//! The sweeper (every minute): the guarantee behind the fast paths. It re-publishes outbox
//! events not yet handed over after a grace period, and re-enqueues pending deliveries whose
//! attempt is overdue (their queue message was lost, e.g. a crash between recording an
//! attempt and enqueueing the next).
//!
//! An event counts as handed over only once the fan-out has created its deliveries and
//! marked it ([`crate::fanout`]); being on the events queue is not enough, since a message
//! the fan-out keeps failing on ends in the dead-letter queue. So the sweeper publishes an
//! unmarked event again on every run after the grace period until the fan-out marks it;
//! the fan-out is idempotent, so the copies create nothing twice.
//!
//! One item that fails is logged, counted in the report and left for the next run; it never
//! stops the run. An item the store cannot decode is skipped, logged by its key and counted
//! (`undecodable`). A failed listing is reported after the rest of the run has been done.

use std::sync::Arc;

use paygate_domain::{
    ports::{Clock, DeliveryMessage, DeliveryQueue, DeliveryStore, EventPublisher, Outbox},
    Timestamp,
};

use crate::PipelineError;

/// How old an unmarked event or an overdue delivery must be before the sweeper acts: longer
/// than the fast path and the fan-out normally take, so it rarely duplicates them.
pub const GRACE_MS: i64 = 60_000;
/// Most items handled per run and kind.
pub const BATCH: usize = 200;

/// What one sweep works with.
pub struct SweepDeps {
    /// Events recorded but not yet handed to the events queue.
    pub outbox: Arc<dyn Outbox>,
    /// The events queue they are handed to again.
    pub publisher: Arc<dyn EventPublisher>,
    /// Deliveries whose next attempt is overdue.
    pub deliveries: Arc<dyn DeliveryStore>,
    /// The deliveries queue they are queued on again.
    pub queue: Arc<dyn DeliveryQueue>,
    pub clock: Arc<dyn Clock>,
    /// How old an unsent event or overdue delivery must be before it is swept ([`GRACE_MS`]).
    pub grace_ms: i64,
    /// Most events, and most deliveries, handled in one run ([`BATCH`]).
    pub batch: usize,
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SweepReport {
    /// Unmarked events published again.
    pub events_sent: usize,
    pub deliveries_requeued: usize,
    /// Items that could not be queued this time (the next run tries again).
    pub failures: usize,
    /// Listed items that could not be decoded: skipped (logged by key), every run until
    /// repaired.
    pub undecodable: usize,
}

fn skip_undecodable(what: &str, listed: &[paygate_domain::ports::Undecodable]) -> usize {
    for bad in listed {
        tracing::error!(key = %bad.key, reason = %bad.reason, "sweeper skipped an undecodable {what}");
    }
    listed.len()
}

/// One run. `Err` only when listing the outbox or the deliveries failed, and only after
/// the other listing's items have been handled.
pub async fn sweep(deps: &SweepDeps) -> Result<SweepReport, PipelineError> {
    let now = deps.clock.now();
    let cutoff = Timestamp::from_unix_millis(now.unix_millis() - deps.grace_ms);
    let mut report = SweepReport::default();
    let events = republish_events(deps, cutoff, &mut report).await;
    let deliveries = requeue_deliveries(deps, cutoff, now, &mut report).await;
    if report != SweepReport::default() {
        tracing::info!(?report, "sweep");
    }
    events?;
    deliveries?;
    Ok(report)
}

async fn republish_events(
    deps: &SweepDeps,
    cutoff: Timestamp,
    report: &mut SweepReport,
) -> Result<(), PipelineError> {
    let unsent = deps
        .outbox
        .list_unsent(cutoff, deps.batch)
        .await
        .map_err(|e| {
            tracing::error!(error = %e, "sweeper could not list unsent events");
            e
        })?;
    report.undecodable += skip_undecodable("event", &unsent.undecodable);
    for event in unsent.items {
        match deps.publisher.publish(&event).await {
            Ok(()) => report.events_sent += 1,
            Err(e) => {
                tracing::warn!(event_id = %event.id, error = %e, "sweeper could not queue event");
                report.failures += 1;
            }
        }
    }
    Ok(())
}

async fn requeue_deliveries(
    deps: &SweepDeps,
    cutoff: Timestamp,
    now: Timestamp,
    report: &mut SweepReport,
) -> Result<(), PipelineError> {
    let overdue = deps
        .deliveries
        .list_overdue(cutoff, deps.batch)
        .await
        .map_err(|e| {
            tracing::error!(error = %e, "sweeper could not list overdue deliveries");
            e
        })?;
    report.undecodable += skip_undecodable("delivery", &overdue.undecodable);
    for d in overdue.items {
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
    Ok(())
}
