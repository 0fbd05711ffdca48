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
use paygate_webhooks::FanoutDeps;

/// Dependencies, built once per Lambda instance.
pub struct Deps {
    pub fanout: FanoutDeps,
}

impl Deps {
    pub async fn from_env() -> Result<Self, paygate_compose::ConfigError> {
        let tables = paygate_compose::PipelineTables::from_env()?;
        let client = paygate_aws::Clients::from_env().await.dynamo;
        let sqs = paygate_aws::Clients::from_env().await.sqs;
        let (clock, _) = paygate_compose::system();
        Ok(Self {
            fanout: paygate_compose::fanout_deps(&client, &sqs, &tables, clock),
        })
    }
}

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
