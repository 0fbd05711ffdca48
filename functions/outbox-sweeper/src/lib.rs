//! The outbox sweeper, run by an EventBridge schedule every minute: the guarantee behind
//! the fast paths (`paygate_webhooks::sweep`). It puts outbox events still unsent after a
//! grace period on the events queue, and re-enqueues pending deliveries whose attempt is
//! overdue because their queue message was lost.
//!
//! Items it could not queue are counted in the report and found again by the next run;
//! items the store cannot decode are skipped and counted (`undecodable`); only
//! a failure to read the outbox or the deliveries fails the invocation (a Lambda error, seen
//! in the function's `Errors` metric).

use aws_lambda_events::eventbridge::EventBridgeEvent;
use paygate_webhooks::{PipelineError, SweepReport};
use serde::Serialize;

/// Dependencies, built once per Lambda instance by `paygate_compose`.
pub use paygate_compose::OutboxSweeper as Deps;

/// What one run did: the invocation's result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub events_sent: usize,
    pub deliveries_requeued: usize,
    /// Items that could not be queued this time (the next run tries again).
    pub failures: usize,
    /// Listed items that could not be decoded (skipped, logged by key).
    pub undecodable: usize,
}

impl From<SweepReport> for Report {
    fn from(r: SweepReport) -> Self {
        Self {
            events_sent: r.events_sent,
            deliveries_requeued: r.deliveries_requeued,
            failures: r.failures,
            undecodable: r.undecodable,
        }
    }
}

/// One sweep. The scheduled event carries nothing the sweep needs: every run looks at the
/// whole outbox and all pending deliveries.
pub async fn handle(deps: &Deps, _event: EventBridgeEvent) -> Result<Report, PipelineError> {
    match paygate_webhooks::sweep(&deps.sweep).await {
        Ok(report) => Ok(report.into()),
        Err(e) => {
            tracing::error!(error = %e, "sweep failed");
            Err(e)
        }
    }
}
