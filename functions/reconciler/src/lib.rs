//! The reconciler, run by an EventBridge schedule every minute (`make dev`: every 10 s):
//! settles from the bank's records every payment that needs it — operations whose outcome
//! is unknown, reservations gone stale, half-done two-step cancels, `pending` payments —
//! with backoff between tries (`paygate_payments::reconciler`). It publishes its figures as
//! CloudWatch metrics (embedded metric format, namespace `paygate`); the template alarms
//! when a payment stays unsettled past the limit (`RECONCILE_ALARM_AFTER_MINUTES`).
//!
//! Only a failure to read the work list fails the invocation (the function's `Errors`
//! metric, also alarmed); a payment it could not settle this time is tried again later.

use aws_lambda_events::eventbridge::EventBridgeEvent;
use paygate_payments::{run_reconciler_until, Deadline, OpError, RunReport};

/// Dependencies, built once per Lambda instance by `paygate_compose`.
pub use paygate_compose::Reconciler as Deps;

/// Metric namespace of the gateway's own metrics.
pub const METRIC_NAMESPACE: &str = paygate_aws::metrics::NAMESPACE;
/// The metric the unsettled-payments alarm watches.
pub const OVER_LIMIT_METRIC: &str = "UnsettledOverLimit";

/// One run; its figures go to the log as an EMF record (CloudWatch turns it into metrics).
pub async fn handle(deps: &Deps, event: EventBridgeEvent) -> Result<RunReport, OpError> {
    handle_until(deps, event, None).await
}

/// [`handle`] within the invocation's deadline: payments are taken up only while the time
/// left covers a bank call and its commit (the rest wait for the next run).
pub async fn handle_until(
    deps: &Deps,
    _event: EventBridgeEvent,
    deadline: Option<Deadline>,
) -> Result<RunReport, OpError> {
    match run_reconciler_until(&deps.reconciler, deadline).await {
        Ok(report) => {
            // Figures only when there was something to do: an idle minute costs no log line
            // (the alarm treats missing data as not breaching).
            if report.due > 0 || report.undecodable > 0 {
                println!(
                    "{}",
                    emf(&report, &deps.stage, deps.reconciler.ops.clock.now())
                );
            }
            if report.over_limit > 0 {
                tracing::error!(over_limit = report.over_limit, payments = ?report.over_limit_ids,
                    "payments unsettled past the limit");
            }
            Ok(report)
        }
        Err(e) => {
            tracing::error!(error = %e, "reconciler run failed");
            Err(e)
        }
    }
}

/// The run's figures as one CloudWatch embedded-metric-format record
/// (`paygate_aws::metrics::EmfRecord`, the one EMF writer).
pub fn emf(report: &RunReport, stage: &str, now: paygate_domain::Timestamp) -> String {
    use paygate_aws::metrics::{EmfRecord, Unit::Count};
    let n = |v: usize| u64::try_from(v).unwrap_or(u64::MAX);
    EmfRecord::new(stage, now)
        .metrics(
            &[&[]],
            &[
                ("ReconcileDue", Count, n(report.due)),
                ("ReconcileSettled", Count, n(report.settled)),
                ("ReconcileDeferred", Count, n(report.deferred)),
                ("ReconcileErrors", Count, n(report.errors)),
                ("ReconcileUndecodable", Count, n(report.undecodable)),
                (OVER_LIMIT_METRIC, Count, n(report.over_limit)),
            ],
        )
        .to_json()
}
