//! The reconciler in the local stack: the same `fn_reconciler::handle` the scheduled Lambda
//! runs, on a timer (every 10 s by default, `PAYGATE_RECONCILE_EVERY_SECS`) instead of the
//! deployed every-minute schedule, wired through the same composition root.

use std::time::Duration;

use aws_lambda_events::eventbridge::EventBridgeEvent;
use tokio::task::JoinHandle;

/// How often `make dev` runs the reconciler unless `PAYGATE_RECONCILE_EVERY_SECS` says
/// otherwise.
pub const DEFAULT_RECONCILE_EVERY: Duration = Duration::from_secs(10);

/// The environment variable setting the local reconciler's period, in whole seconds (`0`
/// turns it off).
pub const RECONCILE_EVERY_ENV: &str = "PAYGATE_RECONCILE_EVERY_SECS";

/// The period from the environment: unset → the default; `0` → off; anything else not a
/// whole number is an error at start-up.
pub fn every_from_env() -> Result<Option<Duration>, String> {
    match std::env::var(RECONCILE_EVERY_ENV) {
        Ok(v) if !v.trim().is_empty() => match v.trim().parse::<u64>() {
            Ok(0) => Ok(None),
            Ok(s) => Ok(Some(Duration::from_secs(s))),
            Err(_) => Err(format!(
                "{RECONCILE_EVERY_ENV} must be a whole number of seconds"
            )),
        },
        _ => Ok(Some(DEFAULT_RECONCILE_EVERY)),
    }
}

/// The running timer; dropping it stops it.
pub struct Reconciler(JoinHandle<()>);

impl Drop for Reconciler {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Runs the reconciler every `every`, as the schedule would.
pub fn spawn(deps: fn_reconciler::Deps, every: Duration) -> Reconciler {
    Reconciler(tokio::spawn(async move {
        let mut tick = tokio::time::interval(every.max(Duration::from_millis(10)));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            match fn_reconciler::handle(&deps, EventBridgeEvent::default()).await {
                Ok(r) if r.due > 0 => tracing::info!(
                    due = r.due,
                    settled = r.settled,
                    deferred = r.deferred,
                    errors = r.errors,
                    "reconciler run"
                ),
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "reconciler run failed; the next tick tries again")
                }
            }
        }
    }))
}
