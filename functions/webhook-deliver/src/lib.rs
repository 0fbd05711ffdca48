//! Deliveries queue consumer: each SQS record is one [`DeliveryMessage`] ("make attempt
//! `attempt` of `deliveryId` once `dueAt` has come"); `paygate_webhooks::deliver` signs and
//! posts it (at most 10 s), records the attempt and enqueues the next one when it failed.
//!
//! Records are processed concurrently (a batch of slow endpoints takes one attempt's time,
//! not ten) and fail one by one through `batchItemFailures` (the event source has
//! `ReportBatchItemFailures`). A failed record is a store or queue failure: the attempt
//! outcome itself (a 500, a time-out) is recorded and retried on the spec's schedule, never
//! through SQS redelivery. A redelivered message never makes a second attempt of the same
//! number (lease + conditional record in the pipeline).

use aws_lambda_events::sqs::{SqsBatchResponse, SqsEvent};
use paygate_aws::sqs::consumer::handle_batch;
use paygate_domain::ports::DeliveryMessage;
use paygate_webhooks::DeliverOutcome;

/// Dependencies, built once per Lambda instance by `paygate_compose`.
pub use paygate_compose::WebhookDeliver as Deps;

/// Delivers every record of the batch; the response names the records that failed.
pub async fn handle(deps: &Deps, event: SqsEvent) -> SqsBatchResponse {
    handle_batch(event, "a delivery message", |msg: DeliveryMessage| {
        process(deps, msg)
    })
    .await
}

/// One message; `false` when it must be retried (or, never succeeding, reach the DLQ).
async fn process(deps: &Deps, msg: DeliveryMessage) -> bool {
    match paygate_webhooks::deliver(&deps.deliver, &msg).await {
        Ok(outcome) => {
            if let DeliverOutcome::Rescheduled { delay_secs } = outcome {
                tracing::debug!(delivery_id = %msg.delivery_id, delay_secs, "not due yet");
            }
            true
        }
        Err(e) => {
            tracing::warn!(
                delivery_id = %msg.delivery_id,
                attempt = msg.attempt,
                error = %e,
                "delivery step failed; SQS will retry"
            );
            false
        }
    }
}
