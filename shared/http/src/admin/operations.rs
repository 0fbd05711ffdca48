//! Webhook operations beyond one resend (served by the `admin-deliveries` function):
//!
//! * **recover**: every `failed` delivery of an endpoint created in a time range goes back
//!   to pending and its next attempt is queued now, as a resend would. Bounded: at most
//!   [`RECOVER_MAX`] deliveries per call, oldest first; `more: true` says that more may
//!   follow: call again with `since` = the answer's `lastCreatedAt`. Idempotent: a delivery
//!   is reset only while it is final (a conditional write), so one pending again (resent
//!   by this or an earlier call) is skipped, never queued twice.
//! * **health**: the endpoint's counters (kept on the endpoint as attempts are recorded)
//!   and its backlog (a count over the sparse index of its pending deliveries).

use futures::future::join_all;
use paygate_domain::{
    webhook::{Delivery, DeliveryStatus},
    StoreError, Timestamp,
};
use serde_json::{Map, Value};

use crate::{
    admin::{
        deliveries::DeliveriesDeps,
        endpoint_of,
        endpoints::endpoint_disabled,
        merchant, queue_now, store_error,
        views::{disabled_reason, HealthView, RecoverView},
        with_health,
    },
    ApiError,
};

/// Most deliveries one recover call requests.
pub const RECOVER_MAX: usize = 500;
/// Resets in flight at once.
const CONCURRENCY: usize = 25;
/// A call stops starting new resets after this long (well inside the function's 15 s) and
/// answers `more: true`.
pub const RECOVER_BUDGET_MS: i64 = 8_000;

pub use crate::admin::input::recover_range;

/// What became of one failed delivery.
enum Reset {
    Requested,
    Skipped,
}

/// Puts one failed delivery back to pending and queues its next attempt. A lost answer is
/// resolved by reading the delivery back: pending now means the reset happened (ours or
/// another's; a second message for the same attempt number is harmless, the deliver
/// function claims each attempt once).
async fn reset_one(
    deps: &DeliveriesDeps,
    d: &Delivery,
    now: Timestamp,
) -> Result<Reset, StoreError> {
    let resent = match deps.deliveries.reset_for_resend(&d.id, now).await {
        Ok(Some(r)) => r,
        Ok(None) | Err(StoreError::Conflict { .. }) => return Ok(Reset::Skipped),
        Err(e) => match deps.deliveries.get_delivery(&d.id).await? {
            Some(r) if r.status == DeliveryStatus::Pending && r.updated_at == now => r,
            Some(r) if r.status == DeliveryStatus::Pending => return Ok(Reset::Skipped),
            _ => return Err(e),
        },
    };
    let attempt = resent.attempts_made + 1;
    queue_now(
        deps.queue.as_ref(),
        &resent.id,
        attempt,
        now,
        "recovered delivery",
    )
    .await;
    Ok(Reset::Requested)
}

/// `POST …/webhook-endpoints/{endpointId}/recover` `{"since", "until"?}` → 202.
pub async fn recover(
    deps: &DeliveriesDeps,
    merchant_raw: &str,
    endpoint_raw: &str,
    body: &Map<String, Value>,
) -> Result<RecoverView, ApiError> {
    let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
    let now = deps.clock.now();
    let range = recover_range(body, now)?;
    let endpoint = endpoint_of(deps.endpoints.as_ref(), &merchant_id, endpoint_raw).await?;
    if !endpoint.enabled {
        return Err(endpoint_disabled());
    }
    let (failed, mut more) = deps
        .deliveries
        .list_failed(&endpoint.id, range, RECOVER_MAX)
        .await
        .map_err(store_error)?;
    let mut view = RecoverView {
        requested: 0,
        skipped: 0,
        more: false,
        last_created_at: None,
    };
    for chunk in failed.chunks(CONCURRENCY) {
        if deps.clock.now().unix_millis() - now.unix_millis() > RECOVER_BUDGET_MS {
            more = true;
            break;
        }
        let mine: Vec<&Delivery> = chunk
            .iter()
            .filter(|d| d.merchant_id == merchant_id)
            .collect();
        let results = join_all(mine.iter().map(|d| reset_one(deps, d, now))).await;
        for r in results {
            match r.map_err(store_error)? {
                Reset::Requested => view.requested += 1,
                Reset::Skipped => view.skipped += 1,
            }
        }
        view.last_created_at = chunk.last().map(|d| d.created_at);
    }
    view.more = more;
    tracing::info!(
        endpoint_id = %endpoint.id,
        requested = view.requested,
        skipped = view.skipped,
        more = view.more,
        "deliveries recovered"
    );
    Ok(view)
}

/// `GET …/webhook-endpoints/{endpointId}/health` → 200.
pub async fn health(
    deps: &DeliveriesDeps,
    merchant_raw: &str,
    endpoint_raw: &str,
) -> Result<HealthView, ApiError> {
    let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
    let (endpoint, h) = with_health(deps.health.as_ref(), &merchant_id, endpoint_raw).await?;
    let backlog = deps
        .deliveries
        .count_pending(&endpoint.id)
        .await
        .map_err(store_error)?;
    let now = deps.clock.now();
    let (attempts, _) = h.window(now);
    Ok(HealthView {
        endpoint_id: endpoint.id.to_string(),
        success_rate: h.success_rate(now),
        attempts_24h: attempts,
        last_success_at: h.last_success_at,
        last_failure_at: h.last_failure_at,
        failing_since: h.failing_since,
        backlog,
        status: if endpoint.enabled {
            "enabled"
        } else {
            "disabled"
        },
        disabled_reason: disabled_reason(&endpoint),
    })
}

#[cfg(test)]
#[path = "operations_tests.rs"]
mod tests;
