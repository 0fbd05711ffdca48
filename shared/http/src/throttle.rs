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
//!
//! Points inquiry counts three times, each failing closed: its key ([`Scope::Points`]), then
//! its merchant over all its keys in the key's mode ([`Scope::PointsMerchant`]), both here
//! before the body is read; then, once the card's fields are valid and before any lookup or
//! bank call, the card across every merchant ([`Scope::PointsCard`], by [`CardThrottle`]
//! under a keyed HMAC of the number). Every refusal answers the same `rate_limited` text,
//! whichever limit refused: a refusal by the card's limit must not tell a merchant the card
//! was used elsewhere beyond what any 429 does.

use std::{
    future::Future,
    sync::{Arc, Mutex, MutexGuard, PoisonError},
};

use async_trait::async_trait;
use lambda_http::{Body, Request, Response};
use paygate_domain::{
    metrics::{Metric, Metrics},
    ports::Clock,
    throttle::{
        card::{card_subject, CardKeySource},
        local::LocalGate,
        refused_until_in, secs_until, Limits, RateCounter, Refused, Verdict, Window,
        UNCHECKED_RETRY_AFTER_SECS,
    },
};
use paygate_payments::{points::CardGate, Principal};

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
/// over its limit for `scope` (for [`Scope::Points`], also unless the merchant is over
/// [`Scope::PointsMerchant`], counted over all its keys). See the module documentation.
pub async fn throttled<F>(t: &Throttle, scope: Scope, req: &Request, handler: F) -> Response<Body>
where
    F: Future<Output = Response<Body>>,
{
    let Ok(who) = principal(req) else {
        return handler.await;
    };
    let key_id = who.key_id.as_str();
    if let Err(refused) = admit(t, scope, key_id, key_id).await {
        return ApiError::refused(refused).into_response();
    }
    if scope == Scope::Points {
        let merchant = format!("{}:{}", who.mode.as_str(), who.merchant_id);
        if let Err(refused) = admit(t, Scope::PointsMerchant, &merchant, key_id).await {
            return ApiError::refused(refused).into_response();
        }
    }
    handler.await
}

/// One request of `subject` (a key id, a merchant, a card's HMAC) in `scope`: the gate, then
/// the shared counters. `Ok` when it may run: within the limit, or the counters failed and
/// the scope fails open. `key_id` is what the log names (never the subject: a card's HMAC
/// is not logged).
pub async fn admit(t: &Throttle, scope: Scope, subject: &str, key_id: &str) -> Result<(), Refused> {
    let now = t.clock.now();
    let limit = t.limits.of(scope);
    let verdict = lock(&t.gate).take(subject, scope, limit, now);
    if let Verdict::Limited { retry_after_secs } = verdict {
        tracing::info!(
            key_id,
            scope = scope.as_str(),
            retry_after_secs,
            "request throttled in memory"
        );
        t.metrics.emit(Metric::Throttled { scope });
        return Err(Refused::Limited { retry_after_secs });
    }
    let window = Window::at(subject, scope, now);
    match t.counter.hit(&window).await {
        Ok(counts) => match refused_until_in(scope, limit, counts, now) {
            None => Ok(()),
            Some(until) => {
                lock(&t.gate).hold(subject, scope, until);
                let retry_after_secs = secs_until(now, until);
                tracing::info!(
                    key_id,
                    scope = scope.as_str(),
                    retry_after_secs,
                    "request throttled"
                );
                t.metrics.emit(Metric::Throttled { scope });
                Err(Refused::Limited { retry_after_secs })
            }
        },
        Err(e) if scope.fails_closed() => {
            tracing::warn!(key_id, scope = scope.as_str(), error = %e,
                "throttling counters unavailable; request refused (this scope fails closed)");
            t.metrics.emit(Metric::ThrottleStoreError { scope });
            Err(Refused::Unchecked {
                retry_after_secs: UNCHECKED_RETRY_AFTER_SECS,
            })
        }
        Err(e) => {
            tracing::warn!(key_id, scope = scope.as_str(), error = %e,
                "throttling counters unavailable; request let through");
            t.metrics.emit(Metric::ThrottleStoreError { scope });
            Ok(())
        }
    }
}

/// The longest `Retry-After` of a refusal by the per-card limit: the longest of any other
/// limit (a minute's end).
pub const MAX_CARD_RETRY_AFTER_SECS: u32 = 60;

/// The per-card limit of points inquiry ([`Scope::PointsCard`]) over the same counters,
/// gate and metrics: the card counts under [`card_subject`], a keyed HMAC of its number
/// (the key from [`CardKeySource`], Secrets Manager deployed). A key that cannot be loaded
/// refuses like counters that cannot be reached: `503 rate_limit_unavailable`.
#[derive(Clone)]
pub struct CardThrottle {
    pub throttle: Throttle,
    pub key: Arc<dyn CardKeySource>,
}

#[async_trait]
impl CardGate for CardThrottle {
    async fn admit(&self, who: &Principal, number: &str) -> Result<(), Refused> {
        let key_id = who.key_id.as_str();
        let key = match self.key.card_key().await {
            Ok(k) => k,
            Err(e) => {
                tracing::warn!(key_id, scope = Scope::PointsCard.as_str(), error = %e,
                    "card key unavailable; request refused (this scope fails closed)");
                self.throttle.metrics.emit(Metric::ThrottleStoreError {
                    scope: Scope::PointsCard,
                });
                return Err(Refused::Unchecked {
                    retry_after_secs: UNCHECKED_RETRY_AFTER_SECS,
                });
            }
        };
        let subject = card_subject(&key, who.mode, number);
        admit(&self.throttle, Scope::PointsCard, &subject, key_id)
            .await
            .map_err(|refused| match refused {
                // At most a minute, as every other refusal: a wait past the minute would
                // tell the merchant the card's hour is spent, and so that it was used
                // elsewhere. A retry within the hour is refused again, in memory.
                Refused::Limited { retry_after_secs } => Refused::Limited {
                    retry_after_secs: retry_after_secs.min(MAX_CARD_RETRY_AFTER_SECS),
                },
                unchecked => unchecked,
            })
    }
}

/// The gate, locked only for a decision (never across an await). A poisoned lock only means
/// another request panicked mid-update: the buckets are still plain numbers.
fn lock(gate: &Mutex<LocalGate>) -> MutexGuard<'_, LocalGate> {
    gate.lock().unwrap_or_else(PoisonError::into_inner)
}

/// 429 `rate_limited` with `Retry-After`.
pub fn rate_limited(retry_after_secs: u32) -> Response<Body> {
    ApiError::refused(Refused::Limited { retry_after_secs }).into_response()
}

/// 503 `rate_limit_unavailable` with `Retry-After`: the limit could not be checked and the
/// scope fails closed.
pub fn limit_unavailable(retry_after_secs: u32) -> Response<Body> {
    ApiError::refused(Refused::Unchecked { retry_after_secs }).into_response()
}

#[cfg(test)]
mod tests;
