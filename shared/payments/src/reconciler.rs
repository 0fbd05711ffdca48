//! The scheduled reconciler: settles, from the bank's records, every payment that needs it
//! — operations whose outcome is unknown, reservations gone stale (a Lambda died between
//! the bank call and the commit), half-done two-step cancels and `pending` payments —
//! without waiting for the merchant to call query. It settles exactly as query does
//! ([`crate::reconcile`]), so the usual events (and webhooks) follow.
//!
//! A payment the bank's answer does not settle yet is deferred with backoff
//! ([`paygate_domain::payment::reconcile_backoff_ms`]); one unsettled for longer than the
//! alarm limit is counted in the run's `overLimit` figure, which the function publishes as
//! a CloudWatch metric the template alarms on.
//!
//! A work-list item the store cannot decode is skipped, logged by its key and counted
//! (`undecodable`); it never stops the run for the others.

use std::sync::Arc;

use futures::{stream, StreamExt};
use paygate_domain::{
    payment::reconcile_backoff_ms,
    ports::{DuePayment, UnsettledPayments},
    PaymentId,
};
use serde::Serialize;

use crate::{operate::OperationDeps, reconcile::needs_settling, reconcile_payment_until};

/// How many payments one run takes at most, and how many it settles at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReconcilerLimits {
    pub batch: usize,
    pub concurrency: usize,
    /// A payment unsettled for longer than this is reported (and alarmed on).
    pub alarm_after_ms: i64,
}

impl Default for ReconcilerLimits {
    fn default() -> Self {
        Self {
            batch: 100,
            concurrency: 8,
            alarm_after_ms: 30 * 60 * 1000,
        }
    }
}

pub struct ReconcilerDeps {
    pub ops: OperationDeps,
    pub unsettled: Arc<dyn UnsettledPayments>,
    pub limits: ReconcilerLimits,
}

/// What one run did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunReport {
    /// Payments due this run.
    pub due: usize,
    /// Work-list items that could not be decoded: skipped (logged by key), every run until
    /// repaired.
    pub undecodable: usize,
    /// Settled (or found settled by someone else).
    pub settled: usize,
    /// Asked about, not settled yet (deferred with backoff).
    pub deferred: usize,
    /// Failed (store or configuration); tried again next run.
    pub errors: usize,
    /// Listed, but the payment no longer exists (deleted; the index had not caught up):
    /// nothing to settle and nothing written. The index entry goes with the item.
    pub gone: usize,
    /// Still unsettled after this run, and unsettled for longer than the alarm limit.
    pub over_limit: usize,
    /// Payments that were over the limit (ids only; nothing sensitive).
    pub over_limit_ids: Vec<PaymentId>,
}

enum One {
    Settled,
    Gone,
    Deferred { over_limit: Option<PaymentId> },
    Error { over_limit: Option<PaymentId> },
}

/// One run: every due payment, `limits.concurrency` at a time.
pub async fn run_reconciler(deps: &ReconcilerDeps) -> Result<RunReport, crate::OpError> {
    run_reconciler_until(deps, None).await
}

/// [`run_reconciler`] within the invocation's `deadline`: a payment is taken up only while
/// the time left covers a bank call and its commit; the rest stay due for the next run.
pub async fn run_reconciler_until(
    deps: &ReconcilerDeps,
    deadline: Option<crate::Deadline>,
) -> Result<RunReport, crate::OpError> {
    let now = deps.ops.clock.now();
    let due = deps
        .unsettled
        .list_due(now, deps.limits.batch)
        .await
        .map_err(crate::OpError::from)?;
    for bad in &due.undecodable {
        tracing::error!(payment_id = %bad.key, reason = %bad.reason,
            "reconciler skipped an undecodable payment item");
    }
    let mut report = RunReport {
        due: due.items.len(),
        undecodable: due.undecodable.len(),
        ..RunReport::default()
    };
    let results: Vec<One> = stream::iter(due.items)
        .map(|d| reconcile_one(deps, d, deadline))
        .buffer_unordered(deps.limits.concurrency.max(1))
        .collect()
        .await;
    for r in results {
        let over = match r {
            One::Settled => {
                report.settled += 1;
                None
            }
            One::Gone => {
                report.gone += 1;
                None
            }
            One::Deferred { over_limit } => {
                report.deferred += 1;
                over_limit
            }
            One::Error { over_limit } => {
                report.errors += 1;
                over_limit
            }
        };
        if let Some(id) = over {
            report.over_limit += 1;
            report.over_limit_ids.push(id);
        }
    }
    report.over_limit_ids.sort();
    Ok(report)
}

async fn reconcile_one(
    deps: &ReconcilerDeps,
    due: DuePayment,
    deadline: Option<crate::Deadline>,
) -> One {
    if deps.ops.banks.ensure_time_for_bank(deadline).is_err() {
        // Left as it is: still due, taken up by the next run.
        return One::Deferred { over_limit: None };
    }
    let ops = &deps.ops;
    let id = due.payment.id.clone();
    let over_limit = |p: &paygate_domain::Payment| {
        let now = ops.clock.now();
        p.unsettled_since()
            .filter(|since| now.unix_millis() - since.unix_millis() > deps.limits.alarm_after_ms)
            .map(|_| p.id.clone())
    };
    // The index is eventually consistent: act on the payment as it is now.
    let fresh = match ops.payments.get_payment(&id).await {
        Ok(Some(p)) => p,
        Ok(None) => {
            // The `unsettled` index is the payment item's own attributes: deleting the item
            // takes it out of the index, so a payment listed but not found was deleted after
            // the (eventually consistent) index was read. Nothing to settle, and nothing to
            // write: a deferral would be refused (its condition needs the item) and must
            // never recreate it.
            tracing::info!(payment_id = %id, "reconciler: listed payment no longer exists");
            return One::Gone;
        }
        Err(e) => {
            tracing::warn!(payment_id = %id, error = %e, "reconciler could not read the payment");
            return One::Error {
                over_limit: over_limit(&due.payment),
            };
        }
    };
    let now = ops.clock.now();
    if !needs_settling(&fresh, now, ops.stale_after) {
        return match fresh.pending.as_ref() {
            // Still in flight and not stale under the threshold in force (it was listed by a
            // `reconcileAt` written under a shorter one): look again once it is.
            Some(op) => {
                defer_until(
                    deps,
                    &fresh,
                    due.tries,
                    ops.stale_after.stale_at(op.started_at),
                )
                .await;
                One::Deferred { over_limit: None }
            }
            None => One::Settled,
        };
    }
    let tries = if fresh.version == due.payment.version {
        due.tries + 1
    } else {
        1
    };
    match reconcile_payment_until(ops, fresh.clone(), deadline).await {
        Ok(r) if !r.unsettled => {
            tracing::info!(payment_id = %id, status = r.payment.status.as_str(), "reconciled");
            One::Settled
        }
        Ok(r) => {
            defer(deps, &r.payment, tries).await;
            One::Deferred {
                over_limit: over_limit(&r.payment),
            }
        }
        Err(e) => {
            tracing::warn!(payment_id = %id, error = %e, "reconciling failed; will retry");
            defer(deps, &fresh, tries).await;
            One::Error {
                over_limit: over_limit(&fresh),
            }
        }
    }
}

async fn defer(deps: &ReconcilerDeps, payment: &paygate_domain::Payment, tries: u32) {
    let next = deps
        .ops
        .clock
        .now()
        .plus_millis(reconcile_backoff_ms(tries));
    defer_until(deps, payment, tries, next).await;
}

async fn defer_until(
    deps: &ReconcilerDeps,
    payment: &paygate_domain::Payment,
    tries: u32,
    next: paygate_domain::Timestamp,
) {
    if let Err(e) = deps.unsettled.defer(payment, tries, next).await {
        // Not deferred: it is simply due again at the next run.
        tracing::warn!(payment_id = %payment.id, error = %e, "could not defer");
    }
}
