//! The Lambda side of a queue (feature `consumer`): every record of a batch is parsed and
//! handled concurrently, and the response names the records that failed
//! (`ReportBatchItemFailures`), so SQS redelivers only those — and, after the queue's
//! `maxReceiveCount`, moves them to the dead-letter queue.

use aws_lambda_events::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent};
use futures::future::join_all;
use serde::de::DeserializeOwned;
use tracing::Instrument;

/// Handles every record of `event` as a `T` (its JSON body) with `handle`, which answers
/// whether the record is done. A body that is not a `T` can never succeed: it is logged
/// (as `what`) and fails until it reaches the dead-letter queue.
pub async fn handle_batch<T, F, Fut>(event: SqsEvent, what: &str, handle: F) -> SqsBatchResponse
where
    T: DeserializeOwned,
    F: Fn(T) -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let handle = &handle;
    let results = join_all(event.records.into_iter().map(|record| {
        let message_id = record.message_id.clone().unwrap_or_default();
        let span = tracing::info_span!("sqs_message", %message_id);
        async move {
            let body = record.body.unwrap_or_default();
            let ok = match serde_json::from_str::<T>(&body) {
                Ok(msg) => handle(msg).await,
                Err(e) => {
                    tracing::error!(error = %e, "queue message is not {what}");
                    false
                }
            };
            (message_id, ok)
        }
        .instrument(span)
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
