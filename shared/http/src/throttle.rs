//! Per-API-key throttling at the edge: one wrapper, [`throttled`], around every merchant
//! route's handler, after authentication (the key id comes from the authorizer's context)
//! and before the `Idempotency-Key` wrapper, so a refused request runs nothing and records
//! nothing (its key stays free for the retry). The decision is the domain's
//! (`paygate_domain::throttle`); the counters are shared by every instance (DynamoDB).
//!
//! - Within the limits: the handler runs.
//! - Over a limit: `429 rate_limited` with `Retry-After` (whole seconds); the handler does
//!   not run.
//! - No key in the context: the handler runs (and answers 401); nothing is counted.
//! - Idempotent replays count like any request: the edge cannot know a replay before it
//!   reads the idempotency record, which is what the limit protects.
//! - The counters cannot be reached: the request is let through (**fail open**), with a
//!   warning and the `ThrottleStoreErrors` metric. Throttling protects capacity and the
//!   points oracle; refusing every merchant request while its table is down would turn a
//!   counter outage into a payment outage.

use std::{future::Future, sync::Arc};

use lambda_http::{
    http::{HeaderValue, StatusCode},
    Body, Request, Response,
};
use paygate_domain::{
    error::code,
    metrics::{Metric, Metrics},
    ports::Clock,
    throttle::{decide, Limits, RateCounter, Verdict, Window},
};

pub use paygate_domain::throttle::Scope;

use crate::{context::principal, error::ApiError};

/// The response header with the wait.
pub const RETRY_AFTER_HEADER: &str = "retry-after";

/// What the wrapper needs: the shared counters, the limits, the clock and the metrics.
#[derive(Clone)]
pub struct Throttle {
    pub counter: Arc<dyn RateCounter>,
    pub limits: Limits,
    pub clock: Arc<dyn Clock>,
    pub metrics: Arc<dyn Metrics>,
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
    let now = t.clock.now();
    let window = Window::at(who.key_id.as_str(), scope, now);
    match t.counter.hit(&window).await {
        Ok(counts) => match decide(t.limits.of(scope), counts, now) {
            Verdict::Allow => handler.await,
            Verdict::Limited { retry_after_secs } => {
                tracing::info!(key_id = %who.key_id, scope = scope.as_str(), retry_after_secs,
                    "request throttled");
                t.metrics.emit(Metric::Throttled { scope });
                rate_limited(retry_after_secs)
            }
        },
        Err(e) => {
            tracing::warn!(key_id = %who.key_id, scope = scope.as_str(), error = %e,
                "throttling counters unavailable; request let through");
            t.metrics.emit(Metric::ThrottleStoreError);
            handler.await
        }
    }
}

/// 429 `rate_limited` with `Retry-After`.
pub fn rate_limited(retry_after_secs: u32) -> Response<Body> {
    let mut resp = ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        code::RATE_LIMITED,
        format!(
            "Too many requests for this API key. Retry after {retry_after_secs} second(s) (see the Retry-After header)."
        ),
    )
    .into_response();
    resp.headers_mut().insert(
        RETRY_AFTER_HEADER,
        HeaderValue::from(retry_after_secs.max(1)),
    );
    resp
}

#[cfg(test)]
mod tests;
