//! Per-API-key throttling at the edge: one wrapper, [`throttled`], around every merchant
//! route's handler, after authentication (the key id comes from the authorizer's context)
//! and before the `Idempotency-Key` wrapper, so a refused request runs nothing and records
//! nothing (its key stays free for the retry). The decisions are the domain's
//! (`paygate_domain::throttle`): first the instance's in-process gate
//! ([`paygate_domain::throttle::local`], kept in [`Throttle::gate`]), then the counters
//! shared by every instance (DynamoDB).
//!
//! - Within the limits: the handler runs.
//! - Over a limit: `429 rate_limited` with `Retry-After` (whole seconds); the handler does
//!   not run. Refused by the gate, the request never reaches the counters (a flood from one
//!   key is refused in memory); refused by the counters, the gate holds the key until the
//!   refusing window ends, so the instance sends nothing more of it to the counters meanwhile.
//! - No key in the context: the handler runs (and answers 401); nothing is counted.
//! - Idempotent replays count like any request: the edge cannot know a replay before it
//!   reads the idempotency record, which is what the limit protects.
//! - The counters cannot be reached (or fail): the `ThrottleStoreErrors` metric and a
//!   warning, then by scope ([`Scope::fails_closed`]):
//!   - points inquiry fails **closed**: `503 rate_limit_unavailable` with `Retry-After`;
//!     nothing is sent to the bank. An attacker who can make the counters fail (an outage,
//!     or a flood past the item's write ceiling) must not get an unthrottled card oracle;
//!   - every other route fails **open**: the request runs (the gate still bounds what each
//!     instance lets through). Refusing every merchant request while the counters are down
//!     would turn a counter outage into a payment outage.

use std::{
    future::Future,
    sync::{Arc, Mutex, MutexGuard, PoisonError},
};

use lambda_http::{
    http::{HeaderValue, StatusCode},
    Body, Request, Response,
};
use paygate_domain::{
    error::code,
    metrics::{Metric, Metrics},
    ports::Clock,
    throttle::{
        local::LocalGate, refused_until, secs_until, Limits, RateCounter, Verdict, Window,
        UNCHECKED_RETRY_AFTER_SECS,
    },
};

pub use paygate_domain::throttle::Scope;

use crate::{context::principal, error::ApiError};

/// The response header with the wait.
pub const RETRY_AFTER_HEADER: &str = "retry-after";

/// What the wrapper needs: the shared counters, the limits, the clock, the metrics, and the
/// instance's in-process gate (built once per function instance, like the rest: its state
/// lives as long as the Lambda instance).
#[derive(Clone)]
pub struct Throttle {
    pub counter: Arc<dyn RateCounter>,
    pub limits: Limits,
    pub clock: Arc<dyn Clock>,
    pub metrics: Arc<dyn Metrics>,
    /// Per key and scope, what this instance remembers (`Default` for a fresh one).
    pub gate: Arc<Mutex<LocalGate>>,
}

/// Runs `handler` (a future: nothing of it runs unless awaited) unless the caller's key is
/// over its limit for `scope`. See the module documentation.
pub async fn throttled<F>(t: &Throttle, scope: Scope, req: &Request, handler: F) -> Response<Body>
where
    F: Future<Output = Response<Body>>,
{
    let Ok(who) = principal(req) else {
        return handler.await;
    };
    let key_id = who.key_id.as_str();
    let now = t.clock.now();
    let limit = t.limits.of(scope);
    let verdict = lock(&t.gate).take(key_id, scope, limit, now);
    if let Verdict::Limited { retry_after_secs } = verdict {
        tracing::info!(
            key_id,
            scope = scope.as_str(),
            retry_after_secs,
            "request throttled in memory"
        );
        t.metrics.emit(Metric::Throttled { scope });
        return rate_limited(retry_after_secs);
    }
    let window = Window::at(key_id, scope, now);
    match t.counter.hit(&window).await {
        Ok(counts) => match refused_until(limit, counts, now) {
            None => handler.await,
            Some(until) => {
                lock(&t.gate).hold(key_id, scope, until);
                let retry_after_secs = secs_until(now, until);
                tracing::info!(
                    key_id,
                    scope = scope.as_str(),
                    retry_after_secs,
                    "request throttled"
                );
                t.metrics.emit(Metric::Throttled { scope });
                rate_limited(retry_after_secs)
            }
        },
        Err(e) if scope.fails_closed() => {
            tracing::warn!(key_id, scope = scope.as_str(), error = %e,
                "throttling counters unavailable; request refused (this scope fails closed)");
            t.metrics.emit(Metric::ThrottleStoreError { scope });
            limit_unavailable(UNCHECKED_RETRY_AFTER_SECS)
        }
        Err(e) => {
            tracing::warn!(key_id, scope = scope.as_str(), error = %e,
                "throttling counters unavailable; request let through");
            t.metrics.emit(Metric::ThrottleStoreError { scope });
            handler.await
        }
    }
}

/// The gate, locked only for a decision (never across an await). A poisoned lock only means
/// another request panicked mid-update: the buckets are still plain numbers.
fn lock(gate: &Mutex<LocalGate>) -> MutexGuard<'_, LocalGate> {
    gate.lock().unwrap_or_else(PoisonError::into_inner)
}

/// 429 `rate_limited` with `Retry-After`.
pub fn rate_limited(retry_after_secs: u32) -> Response<Body> {
    with_retry_after(
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            code::RATE_LIMITED,
            format!(
                "Too many requests for this API key. Retry after {retry_after_secs} second(s) (see the Retry-After header)."
            ),
        ),
        retry_after_secs,
    )
}

/// 503 `rate_limit_unavailable` with `Retry-After`: the limit could not be checked and the
/// scope fails closed.
pub fn limit_unavailable(retry_after_secs: u32) -> Response<Body> {
    with_retry_after(
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            code::RATE_LIMIT_UNAVAILABLE,
            format!(
                "This request's rate limit cannot be checked right now, so it was not run (nothing was sent to the bank). Retry after {retry_after_secs} second(s) (see the Retry-After header)."
            ),
        ),
        retry_after_secs,
    )
}

fn with_retry_after(e: ApiError, retry_after_secs: u32) -> Response<Body> {
    let mut resp = e.into_response();
    resp.headers_mut().insert(
        RETRY_AFTER_HEADER,
        HeaderValue::from(retry_after_secs.max(1)),
    );
    resp
}

#[cfg(test)]
mod tests;
