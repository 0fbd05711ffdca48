//! The reconciler, run by an EventBridge schedule every minute (`make dev`: every 10 s):
//! settles from the bank's records every payment that needs it — operations whose outcome
//! is unknown, reservations gone stale, half-done two-step cancels, `pending` payments —
//! with backoff between tries (`paygate_payments::reconciler`). It publishes its figures as
//! CloudWatch metrics (embedded metric format, namespace `paygate`); the template alarms
//! when a payment stays unsettled past the limit (`RECONCILE_ALARM_AFTER_MINUTES`).
//!
//! Its second schedule (a few times after midnight Istanbul, input `{"job":
//! "daily-reconciliation"}`) runs the daily reconciliation of the day before
//! (`paygate_payments::daily`): one report per POS account, metrics `ReconciliationMismatches`
//! and `ReconciliationIncomplete`, both alarmed.
//!
//! Only a failure to read the work list fails the invocation (the function's `Errors`
//! metric, also alarmed); a payment it could not settle this time is tried again later.

use aws_lambda_events::eventbridge::EventBridgeEvent;
use paygate_domain::daily::BusinessDay;
use paygate_payments::{
    run_daily, run_reconciler_until, DailyRun, Deadline, OpError, Redo, RunReport,
};

/// Dependencies, built once per Lambda instance by `paygate_compose`.
pub use paygate_compose::Reconciler as Deps;

/// Metric namespace of the gateway's own metrics.
pub const METRIC_NAMESPACE: &str = paygate_aws::metrics::NAMESPACE;
/// The metric the unsettled-payments alarm watches.
pub const OVER_LIMIT_METRIC: &str = "UnsettledOverLimit";

/// The `job` of the daily reconciliation's schedule (its input:
/// `{"job": "daily-reconciliation"}`, optionally with `"date": "YYYY-MM-DD"` for a run of
/// another day by hand; without it, yesterday in Istanbul).
pub const DAILY_JOB: &str = "daily-reconciliation";
/// The metric the daily reconciliation's mismatch alarm watches (mismatched lines).
pub const MISMATCH_METRIC: &str = "ReconciliationMismatches";
/// The metric the daily reconciliation's incomplete alarm watches (accounts whose bank
/// could not be read).
pub const INCOMPLETE_METRIC: &str = "ReconciliationIncomplete";

/// What an invocation was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Job {
    /// The minute's run: settle what needs settling.
    Settle(Box<EventBridgeEvent>),
    /// The daily reconciliation of a business day.
    Daily(Option<BusinessDay>),
}

impl Job {
    /// The job an event names: the daily schedule's input, else the minute's schedule.
    pub fn of(event: serde_json::Value) -> Result<Self, OpError> {
        let bad = |why: &str| OpError::Invalid {
            field: "event",
            reason: why.to_owned(),
        };
        if event.get("job").and_then(|j| j.as_str()) == Some(DAILY_JOB) {
            return match event.get("date") {
                None | Some(serde_json::Value::Null) => Ok(Self::Daily(None)),
                Some(d) => d
                    .as_str()
                    .and_then(BusinessDay::parse)
                    .map(|d| Self::Daily(Some(d)))
                    .ok_or_else(|| bad("date is not YYYY-MM-DD")),
            };
        }
        serde_json::from_value(event)
            .map(|e| Self::Settle(Box::new(e)))
            .map_err(|_| bad("neither a schedule event nor a daily job"))
    }
}

/// What an invocation did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(untagged)]
pub enum Done {
    Settle(RunReport),
    Daily(DailyRun),
}

/// The Lambda's entry: the job the event names, within the invocation's deadline.
pub async fn handle_event(
    deps: &Deps,
    event: serde_json::Value,
    deadline: Option<Deadline>,
) -> Result<Done, OpError> {
    match Job::of(event)? {
        Job::Settle(e) => handle_until(deps, *e, deadline).await.map(Done::Settle),
        Job::Daily(day) => handle_daily(deps, day, deadline).await.map(Done::Daily),
    }
}

/// The daily reconciliation of `day` (yesterday in Istanbul when `None`: only the accounts
/// an earlier run of the night did not complete; a named day: every account again); its
/// figures go to the log as an EMF record.
pub async fn handle_daily(
    deps: &Deps,
    day: Option<BusinessDay>,
    deadline: Option<Deadline>,
) -> Result<DailyRun, OpError> {
    let now = deps.daily.clock.now();
    // A day named (by hand) is redone whole; the schedule's own day only where incomplete.
    let redo = if day.is_some() {
        Redo::All
    } else {
        Redo::Incomplete
    };
    let day = day.unwrap_or_else(|| BusinessDay::of(now).previous());
    match run_daily(&deps.daily, day, redo, deadline).await {
        Ok(run) => {
            println!("{}", daily_emf(&run, &deps.stage, now));
            if run.mismatches > 0 || run.incomplete > 0 {
                tracing::error!(date = %day, mismatches = run.mismatches, incomplete = run.incomplete,
                    "the daily reconciliation found differences (see the reports)");
            }
            Ok(run)
        }
        Err(e) => {
            tracing::error!(error = %e, date = %day, "daily reconciliation run failed");
            Err(e)
        }
    }
}

/// A daily run's figures as one EMF record.
pub fn daily_emf(run: &DailyRun, stage: &str, now: paygate_domain::Timestamp) -> String {
    use paygate_aws::metrics::{EmfRecord, Unit::Count};
    let n = |v: usize| u64::try_from(v).unwrap_or(u64::MAX);
    EmfRecord::new(stage, now)
        .metrics(
            &[&[]],
            &[
                (
                    "ReconciliationAccounts",
                    Count,
                    n(run.clean + run.mismatched + run.incomplete),
                ),
                (MISMATCH_METRIC, Count, run.mismatches),
                (INCOMPLETE_METRIC, Count, n(run.incomplete)),
                ("ReconciliationLeft", Count, n(run.left)),
            ],
        )
        .to_json()
}

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
