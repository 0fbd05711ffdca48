//! Deliver: one attempt of one delivery, then the next one scheduled.
//!
//! A message that arrives before its due time re-enqueues itself for the rest of the wait
//! (hops of at most 900 s: SQS's limit). An attempt is claimed with a lease before it is
//! sent, and recorded on condition that no attempt of its number exists, so an SQS
//! redelivery of the same message never produces two attempts of the same number.

use std::sync::Arc;

use paygate_domain::{
    metrics::{AttemptResult, Metric, Metrics},
    ports::{
        Clock, DeliveryMessage, DeliveryQueue, DeliveryStore, EndpointHealthStore, EndpointReader,
        Outbox, SigningSecrets, WebhookSender,
    },
    webhook::{
        hop_delay_secs, Attempt, AttemptError, DeliveryStatus, DisablePolicy, Envelope,
        RetrySchedule,
    },
    TimeRange,
};

use crate::PipelineError;

pub use paygate_domain::webhook::USER_AGENT;

/// How long a claimed attempt is reserved; longer than one attempt can take (10 s plus the
/// store writes), shorter than the queue's visibility timeout.
pub const LEASE_MS: i64 = 30_000;

/// What one delivery attempt works with.
pub struct DeliverDeps {
    /// The delivery: claimed (leased) for the attempt, then its attempt recorded.
    pub deliveries: Arc<dyn DeliveryStore>,
    /// The event the delivery carries (its body is signed and sent).
    pub outbox: Arc<dyn Outbox>,
    /// The endpoint's URL, state and secret id.
    pub endpoints: Arc<dyn EndpointReader>,
    /// The endpoint's signing secrets (the current one first).
    pub secrets: Arc<dyn SigningSecrets>,
    /// The SSRF-guarded HTTPS client.
    pub sender: Arc<dyn WebhookSender>,
    /// The next attempt, when this one failed.
    pub queue: Arc<dyn DeliveryQueue>,
    pub clock: Arc<dyn Clock>,
    /// When the next attempts are due (the spec's 30s, 2m, … 24h).
    pub schedule: RetrySchedule,
    /// The endpoint's health counters, updated after every recorded attempt.
    pub health: Arc<dyn EndpointHealthStore>,
    /// When a failing endpoint is warned about and disabled.
    pub disable_policy: DisablePolicy,
    /// Each attempt's result, and the delay from an event to its first attempt.
    pub metrics: Arc<dyn Metrics>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeliverOutcome {
    /// Not due yet: re-enqueued with this delay.
    Rescheduled { delay_secs: i64 },
    /// Nothing to do (unknown delivery, already final, attempt done or claimed elsewhere).
    Skipped,
    /// The attempt was made and recorded.
    Attempted {
        number: u32,
        succeeded: bool,
        next: Option<u32>,
    },
}

pub async fn deliver(
    deps: &DeliverDeps,
    msg: &DeliveryMessage,
) -> Result<DeliverOutcome, PipelineError> {
    let now = deps.clock.now();
    if msg.due_at > now {
        let delay_secs = hop_delay_secs(now, msg.due_at);
        deps.queue.enqueue(msg, delay_secs).await?;
        return Ok(DeliverOutcome::Rescheduled { delay_secs });
    }
    let Some(delivery) = deps.deliveries.get_delivery(&msg.delivery_id).await? else {
        tracing::warn!(delivery_id = %msg.delivery_id, "message for an unknown delivery");
        return Ok(DeliverOutcome::Skipped);
    };
    if delivery.status != DeliveryStatus::Pending || delivery.attempts_made + 1 != msg.attempt {
        return Ok(DeliverOutcome::Skipped);
    }
    let lease = TimeRange::new(now, now.plus_millis(LEASE_MS));
    if !deps
        .deliveries
        .claim_attempt(&delivery.id, msg.attempt, lease)
        .await?
    {
        return Ok(DeliverOutcome::Skipped);
    }

    let at = deps.clock.now();
    let (sent, endpoint_gone, event_at) = send(deps, &delivery).await?;
    let attempt = Attempt {
        delivery_id: delivery.id.clone(),
        number: msg.attempt,
        at,
        duration_ms: sent.duration_ms,
        succeeded: sent.error.is_none() && Attempt::is_success(sent.status_code),
        status_code: sent.status_code,
        error: sent.error,
        response_body: sent.response_body,
    };
    // The schedule's waits run from the failure, i.e. the end of the attempt.
    let finished = deps.clock.now();
    let mut after = delivery.after_attempt_at(&attempt, finished, &deps.schedule);
    if endpoint_gone {
        // A deleted endpoint never comes back: the delivery ends now (as `failed`, its
        // last attempt `endpoint_unavailable`) instead of retrying for the whole schedule.
        after = after.ended();
    }
    if !deps
        .deliveries
        .record_attempt(&attempt, &after.delivery)
        .await?
    {
        // Someone recorded this attempt number first (our lease expired): theirs stands.
        return Ok(DeliverOutcome::Skipped);
    }
    tracing::info!(
        delivery_id = %delivery.id,
        attempt = attempt.number,
        status_code = attempt.status_code,
        error = ?attempt.error,
        succeeded = attempt.succeeded,
        "webhook attempt"
    );
    // The endpoint's health counts attempts that reached (or tried to reach) it; one made
    // while it was disabled or deleted did not. Best effort: never fails the delivery.
    if attempt.error != Some(AttemptError::EndpointUnavailable) {
        crate::health::observe(
            deps.health.as_ref(),
            &deps.disable_policy,
            &delivery.merchant_id,
            &delivery.endpoint_id,
            attempt.at,
            attempt.succeeded,
            deps.clock.now(),
        )
        .await;
    }
    deps.metrics.emit(Metric::WebhookAttempt {
        result: AttemptResult::of(&attempt),
    });
    if attempt.number == 1 {
        let lag = at.unix_millis().saturating_sub(event_at.unix_millis());
        deps.metrics.emit(Metric::DeliveryLag {
            millis: u64::try_from(lag).unwrap_or(0),
        });
    }
    let next = match after.next {
        Some((number, due_at)) => {
            let next_msg = DeliveryMessage {
                delivery_id: delivery.id.clone(),
                attempt: number,
                due_at,
            };
            // If this enqueue fails, the sweeper finds the overdue delivery and requeues it.
            if let Err(e) = deps
                .queue
                .enqueue(&next_msg, hop_delay_secs(at, due_at))
                .await
            {
                tracing::warn!(delivery_id = %delivery.id, error = %e, "next attempt not queued; the sweeper will");
            }
            Some(number)
        }
        None => None,
    };
    Ok(DeliverOutcome::Attempted {
        number: attempt.number,
        succeeded: attempt.succeeded,
        next,
    })
}

/// Builds the signed request and sends it; beside the outcome, `true` when the endpoint no
/// longer exists, and when the event was created.
async fn send(
    deps: &DeliverDeps,
    delivery: &paygate_domain::webhook::Delivery,
) -> Result<
    (
        paygate_domain::ports::SendOutcome,
        bool,
        paygate_domain::Timestamp,
    ),
    PipelineError,
> {
    let failed = |error| paygate_domain::ports::SendOutcome {
        status_code: None,
        error: Some(error),
        response_body: String::new(),
        duration_ms: 0,
    };
    let Some(event) = deps.outbox.get_event(&delivery.event_id).await? else {
        return Err(PipelineError::Store(paygate_domain::StoreError::Corrupt(
            format!(
                "event {} of delivery {} is missing",
                delivery.event_id, delivery.id
            ),
        )));
    };
    let Some(endpoint) = deps
        .endpoints
        .get_endpoint(&delivery.merchant_id, &delivery.endpoint_id)
        .await?
    else {
        return Ok((
            failed(AttemptError::EndpointUnavailable),
            true,
            event.created_at,
        ));
    };
    if !endpoint.enabled {
        // Disabled may be enabled again: the schedule goes on.
        return Ok((
            failed(AttemptError::EndpointUnavailable),
            false,
            event.created_at,
        ));
    }
    let now = deps.clock.now();
    let secrets = match deps
        .secrets
        .signing_secrets(&endpoint.secret_id, endpoint.secret_version, now)
        .await
    {
        Ok(s) if !s.is_empty() => s,
        _ => return Ok((failed(AttemptError::Secret), false, event.created_at)),
    };
    let body = Envelope::of(&event).to_bytes();
    let headers = crate::sender::signed_headers(
        event.event_type.as_str(),
        delivery.id.as_str(),
        &secrets,
        now.unix_seconds(),
        &body,
    );
    let sent = deps.sender.send(&endpoint.url, &headers, body).await;
    Ok((sent, false, event.created_at))
}

#[cfg(test)]
mod tests;
