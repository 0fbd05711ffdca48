//! Events queue consumer: each SQS record is one outbox [`EventRecord`] (the JSON that
//! `paygate_aws::sqs::SqsEventPublisher` sends); it becomes one delivery per subscribed endpoint
//! (`paygate_webhooks::fanout`), each put on the deliveries queue.
//!
//! Records are processed concurrently and fail one by one: a failed record is reported in
//! `batchItemFailures` (the event source has `ReportBatchItemFailures`), so SQS redelivers
//! only it, and after the queue's `maxReceiveCount` it moves to the dead-letter queue.
//! Fanout is idempotent (delivery ids derive from event and endpoint), so a redelivered
//! record never creates a second delivery.

use aws_lambda_events::sqs::{SqsBatchResponse, SqsEvent};
use paygate_aws::sqs::consumer::handle_batch;
use paygate_domain::EventRecord;

/// Dependencies, built once per Lambda instance by `paygate_compose`.
pub use paygate_compose::WebhookFanout as Deps;

/// Fans out every record of the batch; the response names the records that failed.
pub async fn handle(deps: &Deps, event: SqsEvent) -> SqsBatchResponse {
    handle_batch(event, "an event record", |event: EventRecord| {
        process(deps, event)
    })
    .await
}

/// One event; `false` when it must be retried (or, never succeeding, reach the DLQ).
async fn process(deps: &Deps, event: EventRecord) -> bool {
    match paygate_webhooks::fanout(&deps.fanout, &event).await {
        Ok(enqueued) => {
            tracing::info!(event_id = %event.id, enqueued, "event fanned out");
            true
        }
        Err(e) => {
            tracing::warn!(event_id = %event.id, error = %e, "fanout failed; SQS will retry");
            false
        }
    }
}
