//! The fast path of the outbox: after a state change has committed (its event written in the
//! same transaction), hand the event to the events queue and mark it sent. A failure here
//! loses nothing: the event stays unsent and the sweeper sends it.

use std::sync::Arc;

use paygate_domain::{
    ports::{EventPublisher, Outbox},
    EventRecord,
};

pub struct EventSink {
    pub publisher: Arc<dyn EventPublisher>,
    pub outbox: Arc<dyn Outbox>,
}

impl EventSink {
    /// Publishes a committed event; never fails the caller.
    pub async fn after_commit(&self, event: &EventRecord) {
        if let Err(e) = self.publisher.publish(event).await {
            tracing::warn!(event_id = %event.id, error = %e, "event not queued; the sweeper will send it");
            return;
        }
        if let Err(e) = self.outbox.mark_sent(&event.id).await {
            // Sent but not marked: the sweeper sends it again (same id; receivers dedupe).
            tracing::warn!(event_id = %event.id, error = %e, "event queued but not marked sent");
        }
    }
}
