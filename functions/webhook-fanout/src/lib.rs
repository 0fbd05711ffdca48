//! Events queue consumer: each SQS record is one outbox [`EventRecord`] (the JSON that
//! `paygate_sqs::SqsEventPublisher` sends); it becomes one delivery per subscribed endpoint
//! (`paygate_pipeline::fanout`), each put on the deliveries queue.
//!
//! Records are processed concurrently and fail one by one: a failed record is reported in
//! `batchItemFailures` (the event source has `ReportBatchItemFailures`), so SQS redelivers
//! only it, and after the queue's `maxReceiveCount` it moves to the dead-letter queue.
//! Fanout is idempotent (delivery ids derive from event and endpoint), so a redelivered
//! record never creates a second delivery.

use aws_lambda_events::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent, SqsMessage};
use futures::future::join_all;
use paygate_domain::EventRecord;
use paygate_pipeline::FanoutDeps;
use tracing::Instrument;

/// Dependencies, built once per Lambda instance.
pub struct Deps {
    pub fanout: FanoutDeps,
}

impl Deps {
    pub async fn from_env() -> Result<Self, paygate_compose::ConfigError> {
        let tables = paygate_compose::PipelineTables::from_env()?;
        let client = paygate_dynamo::client_from_env().await;
        let sqs = paygate_sqs::client_from_env().await;
        let (clock, _) = paygate_compose::system();
        Ok(Self {
            fanout: paygate_compose::fanout_deps(&client, &sqs, &tables, clock),
        })
    }
}

/// Fans out every record of the batch; the response names the records that failed.
pub async fn handle(deps: &Deps, event: SqsEvent) -> SqsBatchResponse {
    let results = join_all(event.records.into_iter().map(|record| {
        let message_id = record.message_id.clone().unwrap_or_default();
        let span = tracing::info_span!("sqs_message", %message_id);
        async move { (message_id, process(deps, record).await) }.instrument(span)
    }))
    .await;
    let mut response = SqsBatchResponse::default();
    // An empty id (SQS always sends one) makes Lambda retry the whole batch: nothing is lost.
    response.batch_item_failures = results
        .into_iter()
        .filter(|(_, ok)| !ok)
        .map(|(message_id, _)| {
            let mut failure = BatchItemFailure::default();
            failure.item_identifier = message_id;
            failure
        })
        .collect();
    response
}

/// One record; `false` when it must be retried (or, never succeeding, reach the DLQ).
async fn process(deps: &Deps, record: SqsMessage) -> bool {
    let body = record.body.unwrap_or_default();
    let event: EventRecord = match serde_json::from_str(&body) {
        Ok(e) => e,
        Err(e) => {
            // No retry can fix it; it fails until SQS moves it to the dead-letter queue.
            tracing::error!(error = %e, "events queue message is not an event record");
            return false;
        }
    };
    match paygate_pipeline::fanout(&deps.fanout, &event).await {
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
