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

use std::sync::Arc;

use aws_lambda_events::sqs::{SqsBatchResponse, SqsEvent};
use paygate_aws::sqs::consumer::handle_batch;
use paygate_domain::ports::DeliveryMessage;
use paygate_webhooks::{DeliverDeps, DeliverOutcome};

/// Dependencies, built once per Lambda instance.
pub struct Deps {
    pub deliver: DeliverDeps,
}

/// The function cannot start.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error(transparent)]
    Config(#[from] paygate_compose::ConfigError),
    #[error("webhook sender: {0}")]
    Sender(#[from] paygate_webhooks::ConfigError),
}

impl Deps {
    /// Tables and queues from the environment, the retry schedule from
    /// `PAYGATE_WEBHOOK_RETRY_SCHEDULE` (default: the spec's), and the SSRF-guarded sender
    /// with the strict egress policy (the deployed template sets no exemption).
    pub async fn from_env() -> Result<Self, InitError> {
        let tables = paygate_compose::PipelineTables::from_env()?;
        let schedule = paygate_compose::retry_schedule_from_env()?;
        let sender = Arc::new(paygate_webhooks::HttpSender::new(
            paygate_webhooks::SenderConfig::from_env()?,
        )?);
        let client = paygate_aws::Clients::from_env().await.dynamo;
        let sqs = paygate_aws::Clients::from_env().await.sqs;
        let secrets = paygate_aws::Clients::from_env().await.secrets;
        let (clock, _) = paygate_compose::system();
        Ok(Self {
            deliver: paygate_compose::deliver_deps(
                &client, &sqs, &secrets, &tables, sender, clock, schedule,
            ),
        })
    }
}

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
