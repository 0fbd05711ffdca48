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
use paygate_payments::{run_reconciler, OpError, RunReport};

/// Dependencies, built once per Lambda instance by `paygate_compose`.
pub use paygate_compose::Reconciler as Deps;

/// Metric namespace of the gateway's own metrics.
pub const METRIC_NAMESPACE: &str = "paygate";
/// The metric the unsettled-payments alarm watches.
pub const OVER_LIMIT_METRIC: &str = "UnsettledOverLimit";

/// One run; its figures go to the log as an EMF record (CloudWatch turns it into metrics).
pub async fn handle(deps: &Deps, _event: EventBridgeEvent) -> Result<RunReport, OpError> {
    match run_reconciler(&deps.reconciler).await {
        Ok(report) => {
            // Figures only when there was something to do: an idle minute costs no log line
            // (the alarm treats missing data as not breaching).
            if report.due > 0 {
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

/// The run's figures as one CloudWatch embedded-metric-format record.
pub fn emf(report: &RunReport, stage: &str, now: paygate_domain::Timestamp) -> String {
    serde_json::json!({
        "_aws": {
            "Timestamp": now.unix_millis(),
            "CloudWatchMetrics": [{
                "Namespace": METRIC_NAMESPACE,
                "Dimensions": [["Stage"]],
                "Metrics": [
                    {"Name": "ReconcileDue", "Unit": "Count"},
                    {"Name": "ReconcileSettled", "Unit": "Count"},
                    {"Name": "ReconcileDeferred", "Unit": "Count"},
                    {"Name": "ReconcileErrors", "Unit": "Count"},
                    {"Name": OVER_LIMIT_METRIC, "Unit": "Count"},
                ],
            }],
        },
        "Stage": stage,
        "ReconcileDue": report.due,
        "ReconcileSettled": report.settled,
        "ReconcileDeferred": report.deferred,
        "ReconcileErrors": report.errors,
        OVER_LIMIT_METRIC: report.over_limit,
    })
    .to_string()
}
