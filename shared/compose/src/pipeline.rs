//! The webhook pipeline: fan-out, delivery and the sweeper.

use std::sync::Arc;

use paygate_aws::dynamo::{
    schema::{DELIVERIES, EVENTS, WEBHOOK_ENDPOINTS},
    Client,
};
use paygate_domain::{
    ports::{Clock, WebhookSender},
    webhook::RetrySchedule,
};
use paygate_webhooks::{DeliverDeps, FanoutDeps, SweepDeps};

use crate::{
    adapters::{deliveries, delivery_queue, endpoints, event_publisher, outbox, signing_secrets},
    queue_url, table, ConfigError,
};

/// Environment variable overriding the retry schedule (default: the spec's).
pub const RETRY_SCHEDULE_ENV: &str = "PAYGATE_WEBHOOK_RETRY_SCHEDULE";

/// The retry schedule: `PAYGATE_WEBHOOK_RETRY_SCHEDULE` (e.g. `1s,1s,1s,1s,1s,1s,1s,1s` for
/// a local trial) or the spec's `30s,2m,10m,30m,2h,6h,12h,24h`. A malformed value is an
/// error at start-up, never a silent fallback.
pub fn retry_schedule_from_env() -> Result<RetrySchedule, ConfigError> {
    match std::env::var(RETRY_SCHEDULE_ENV) {
        Ok(v) if !v.trim().is_empty() => {
            RetrySchedule::parse(&v).ok_or(ConfigError(RETRY_SCHEDULE_ENV))
        }
        _ => Ok(RetrySchedule::default()),
    }
}

/// Tables and queues of the webhook pipeline.
pub struct PipelineTables {
    pub events: String,
    pub webhook_endpoints: String,
    pub deliveries: String,
    pub events_queue_url: String,
    pub deliveries_queue_url: String,
}

impl PipelineTables {
    /// Every pipeline function gets all five names; its IAM policy decides what it may use.
    pub fn from_env() -> Result<Self, ConfigError> {
        Ok(Self {
            events: table(&EVENTS)?,
            webhook_endpoints: table(&WEBHOOK_ENDPOINTS)?,
            deliveries: table(&DELIVERIES)?,
            events_queue_url: queue_url(&paygate_aws::sqs::EVENTS_QUEUE)?,
            deliveries_queue_url: queue_url(&paygate_aws::sqs::DELIVERIES_QUEUE)?,
        })
    }
}

pub fn fanout_deps(
    client: &Client,
    sqs: &paygate_aws::sqs::Client,
    t: &PipelineTables,
    clock: Arc<dyn Clock>,
) -> FanoutDeps {
    FanoutDeps {
        endpoints: endpoints(client, &t.webhook_endpoints),
        deliveries: deliveries(client, &t.deliveries),
        queue: delivery_queue(sqs, &t.deliveries_queue_url),
        outbox: outbox(client, &t.events),
        clock,
    }
}

#[allow(clippy::too_many_arguments)]
pub fn deliver_deps(
    client: &Client,
    sqs: &paygate_aws::sqs::Client,
    secrets: &paygate_aws::secrets::Client,
    t: &PipelineTables,
    sender: Arc<dyn WebhookSender>,
    clock: Arc<dyn Clock>,
    schedule: RetrySchedule,
) -> DeliverDeps {
    DeliverDeps {
        deliveries: deliveries(client, &t.deliveries),
        outbox: outbox(client, &t.events),
        endpoints: endpoints(client, &t.webhook_endpoints),
        secrets: signing_secrets(secrets, paygate_aws::secrets::DEFAULT_TTL),
        sender,
        queue: delivery_queue(sqs, &t.deliveries_queue_url),
        clock,
        schedule,
    }
}

/// The sweeper's deps; `grace_ms` is how old an unsent event or overdue delivery must be
/// (`paygate_webhooks::sweep::GRACE_MS` when deployed).
pub fn sweep_deps(
    client: &Client,
    sqs: &paygate_aws::sqs::Client,
    t: &PipelineTables,
    clock: Arc<dyn Clock>,
    grace_ms: i64,
) -> SweepDeps {
    SweepDeps {
        outbox: outbox(client, &t.events),
        publisher: event_publisher(sqs, &t.events_queue_url),
        deliveries: deliveries(client, &t.deliveries),
        queue: delivery_queue(sqs, &t.deliveries_queue_url),
        clock,
        grace_ms,
    }
}
