//! Fanout: one delivery per endpoint of the payment's merchant that is enabled, subscribed
//! to the event's type and of the event's mode. The delivery id is derived from event and
//! endpoint, so processing the same event again creates nothing new.
//!
//! Once every delivery of the event exists, the event is marked handed over in the outbox
//! (an event no endpoint wants included). Until then the sweeper keeps re-publishing it, so
//! an event whose fan-out failed until its queue message reached the dead-letter queue is
//! still delivered.
//!
//! An endpoint disabled automatically (its attempts failed for days) still gets the events
//! it is subscribed to recorded, as deliveries that failed at once (attempt 1
//! `endpoint_unavailable`, nothing sent, nothing queued): `recover` delivers them once the
//! endpoint is enabled again, as Svix does. An endpoint disabled by hand gets nothing.

use std::sync::Arc;

use paygate_domain::{
    ports::{Clock, DeliveryMessage, DeliveryQueue, DeliveryStore, EndpointReader, Outbox},
    webhook::Delivery,
    EventRecord,
};

use crate::PipelineError;

pub struct FanoutDeps {
    pub endpoints: Arc<dyn EndpointReader>,
    pub deliveries: Arc<dyn DeliveryStore>,
    pub queue: Arc<dyn DeliveryQueue>,
    /// Where the event is marked handed over once its deliveries exist.
    pub outbox: Arc<dyn Outbox>,
    pub clock: Arc<dyn Clock>,
}

/// Fans one event out; returns the number of deliveries enqueued. On error nothing is
/// marked: the message is retried (and the sweeper re-publishes the event after its grace
/// period), and the retry creates only the deliveries still missing.
pub async fn fanout(deps: &FanoutDeps, event: &EventRecord) -> Result<usize, PipelineError> {
    let now = deps.clock.now();
    let mut enqueued = 0;
    for endpoint in deps.endpoints.list_endpoints(&event.merchant_id).await? {
        if endpoint.holds(event) {
            hold(deps, event, &endpoint, now).await?;
            continue;
        }
        if !endpoint.wants(event) {
            continue;
        }
        let delivery = Delivery::new(event, &endpoint, now);
        // An existing delivery already has its message. If that message was lost (a crash
        // between create and enqueue), the sweeper finds the overdue delivery and requeues it.
        if deps.deliveries.create_delivery(&delivery).await? {
            let msg = DeliveryMessage {
                delivery_id: delivery.id.clone(),
                attempt: 1,
                due_at: now,
            };
            deps.queue.enqueue(&msg, 0).await?;
            enqueued += 1;
        }
    }
    // `false` (marked already: a redelivered message, or an event stored as sent) is fine.
    deps.outbox.mark_sent(&event.id).await?;
    Ok(enqueued)
}

/// Records `event` for an endpoint disabled as failing: the delivery, then its attempt 1
/// as failed, final. Should the second write not happen (a crash), the delivery is left
/// pending and due: the sweeper queues it, and the deliver step records the same
/// `endpoint_unavailable` attempts on the retry schedule (or sends it, once re-enabled).
async fn hold(
    deps: &FanoutDeps,
    event: &EventRecord,
    endpoint: &paygate_domain::webhook::WebhookEndpoint,
    now: paygate_domain::Timestamp,
) -> Result<(), PipelineError> {
    let (created, attempt, failed) = Delivery::held(event, endpoint, now);
    if deps.deliveries.create_delivery(&created).await? {
        deps.deliveries.record_attempt(&attempt, &failed).await?;
        tracing::info!(delivery_id = %created.id, endpoint_id = %endpoint.id,
            "event recorded for an endpoint disabled as failing; recover delivers it");
    }
    Ok(())
}
