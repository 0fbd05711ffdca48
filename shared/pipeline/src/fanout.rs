//! Fanout: one delivery per endpoint of the payment's merchant that is enabled, subscribed
//! to the event's type and of the event's mode. The delivery id is derived from event and
//! endpoint, so processing the same event again creates nothing new.

use std::sync::Arc;

use paygate_domain::{
    ports::{Clock, DeliveryMessage, DeliveryQueue, DeliveryStore, EndpointReader},
    webhook::Delivery,
    EventRecord,
};

use crate::PipelineError;

pub struct FanoutDeps {
    pub endpoints: Arc<dyn EndpointReader>,
    pub deliveries: Arc<dyn DeliveryStore>,
    pub queue: Arc<dyn DeliveryQueue>,
    pub clock: Arc<dyn Clock>,
}

/// Fans one event out; returns the number of deliveries enqueued.
pub async fn fanout(deps: &FanoutDeps, event: &EventRecord) -> Result<usize, PipelineError> {
    let now = deps.clock.now();
    let mut enqueued = 0;
    for endpoint in deps.endpoints.list_endpoints(&event.merchant_id).await? {
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
    Ok(enqueued)
}
