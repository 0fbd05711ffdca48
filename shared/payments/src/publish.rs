//! The fast path of the outbox: after a state change has committed (its event written in the
//! same transaction), hand the event to the events queue. It is not marked here: an event
//! counts as handed over only once the fan-out has created its deliveries and marked it
//! (`paygate_webhooks::fanout`). A failure here loses nothing: the event stays unmarked and
//! the sweeper publishes it after its grace period.

use std::sync::Arc;

use paygate_domain::{ports::EventPublisher, EventRecord};

pub struct EventSink {
    pub publisher: Arc<dyn EventPublisher>,
}

impl EventSink {
    /// Publishes a committed event; never fails the caller.
    pub async fn after_commit(&self, event: &EventRecord) {
        if let Err(e) = self.publisher.publish(event).await {
            tracing::warn!(event_id = %event.id, error = %e, "event not queued; the sweeper will send it");
        }
    }
}
