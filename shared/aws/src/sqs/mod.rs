//! SQS adapters: the events queue (outbox fast path) and the deliveries queue (webhook
//! attempts, with per-message delays of at most 900 s), plus what the local stack needs to
//! create the queues and poll them the way Lambda's event source mappings do.

#[cfg(feature = "consumer")]
pub mod consumer;

use async_trait::async_trait;
use aws_sdk_sqs::types::QueueAttributeName;
use paygate_domain::{
    ports::{DeliveryMessage, DeliveryQueue, EventPublisher},
    webhook::MAX_QUEUE_DELAY_SECS,
    EventRecord, StoreError,
};

/// The SQS client, built on first use ([`crate::OnFirstUse`]).
pub type Client = crate::OnFirstUse<aws_sdk_sqs::Client>;

fn unavailable(op: &str, e: &impl std::fmt::Display) -> StoreError {
    tracing::warn!(op, error = %e, "sqs call failed");
    StoreError::Unavailable(format!("sqs {op} failed"))
}

/// Sends outbox events to the events queue; the body is the event record as JSON.
#[derive(Debug, Clone)]
pub struct SqsEventPublisher {
    client: Client,
    queue_url: String,
}

impl SqsEventPublisher {
    pub fn new(client: Client, queue_url: impl Into<String>) -> Self {
        Self {
            client,
            queue_url: queue_url.into(),
        }
    }
}

#[async_trait]
impl EventPublisher for SqsEventPublisher {
    async fn publish(&self, event: &EventRecord) -> Result<(), StoreError> {
        let body = serde_json::to_string(event).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        self.client
            .send_message()
            .queue_url(&self.queue_url)
            .message_body(body)
            .send()
            .await
            .map_err(|e| unavailable("SendMessage", &e))?;
        Ok(())
    }
}

/// The deliveries queue.
#[derive(Debug, Clone)]
pub struct SqsDeliveryQueue {
    client: Client,
    queue_url: String,
}

impl SqsDeliveryQueue {
    pub fn new(client: Client, queue_url: impl Into<String>) -> Self {
        Self {
            client,
            queue_url: queue_url.into(),
        }
    }
}

#[async_trait]
impl DeliveryQueue for SqsDeliveryQueue {
    async fn enqueue(&self, msg: &DeliveryMessage, delay_secs: i64) -> Result<(), StoreError> {
        let body = serde_json::to_string(msg).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let delay = i32::try_from(delay_secs.clamp(0, MAX_QUEUE_DELAY_SECS)).unwrap_or(0);
        self.client
            .send_message()
            .queue_url(&self.queue_url)
            .message_body(body)
            .delay_seconds(delay)
            .send()
            .await
            .map_err(|e| unavailable("SendMessage", &e))?;
        Ok(())
    }
}

/// One queue of the stack and its dead-letter queue, as in `template.yaml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueDef {
    pub logical_id: &'static str,
    pub dlq_logical_id: &'static str,
    /// Environment variable carrying the queue URL to the functions.
    pub env_var: &'static str,
    pub visibility_timeout_secs: u32,
    pub max_receive_count: u32,
}

pub const EVENTS_QUEUE: QueueDef = QueueDef {
    logical_id: "EventsQueue",
    dlq_logical_id: "EventsDLQ",
    env_var: "EVENTS_QUEUE_URL",
    visibility_timeout_secs: 180,
    max_receive_count: 5,
};

pub const DELIVERIES_QUEUE: QueueDef = QueueDef {
    logical_id: "DeliveriesQueue",
    dlq_logical_id: "DeliveriesDLQ",
    env_var: "DELIVERIES_QUEUE_URL",
    visibility_timeout_secs: 180,
    max_receive_count: 5,
};

pub const QUEUES: &[QueueDef] = &[EVENTS_QUEUE, DELIVERIES_QUEUE];

/// URLs of a local stack's queues.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueUrls {
    pub events: String,
    pub events_dlq: String,
    pub deliveries: String,
    pub deliveries_dlq: String,
}

async fn create_one(
    client: &Client,
    name: &str,
    attrs: Vec<(QueueAttributeName, String)>,
) -> Result<String, StoreError> {
    let mut req = client.create_queue().queue_name(name);
    for (k, v) in attrs {
        req = req.attributes(k, v);
    }
    let out = req
        .send()
        .await
        .map_err(|e| unavailable("CreateQueue", &e))?;
    out.queue_url
        .ok_or_else(|| StoreError::Corrupt("CreateQueue returned no URL".into()))
}

async fn create_pair(
    client: &Client,
    def: &QueueDef,
    prefix: &str,
) -> Result<(String, String), StoreError> {
    let dlq_url = create_one(
        client,
        &format!("{prefix}{}", def.dlq_logical_id),
        vec![(QueueAttributeName::MessageRetentionPeriod, "1209600".into())],
    )
    .await?;
    let arn = client
        .get_queue_attributes()
        .queue_url(&dlq_url)
        .attribute_names(QueueAttributeName::QueueArn)
        .send()
        .await
        .map_err(|e| unavailable("GetQueueAttributes", &e))?
        .attributes
        .and_then(|a| a.get(&QueueAttributeName::QueueArn).cloned())
        .ok_or_else(|| StoreError::Corrupt("no QueueArn".into()))?;
    let redrive = serde_json::json!({
        "deadLetterTargetArn": arn,
        "maxReceiveCount": def.max_receive_count.to_string(),
    })
    .to_string();
    let url = create_one(
        client,
        &format!("{prefix}{}", def.logical_id),
        vec![
            (
                QueueAttributeName::VisibilityTimeout,
                def.visibility_timeout_secs.to_string(),
            ),
            (QueueAttributeName::RedrivePolicy, redrive),
        ],
    )
    .await?;
    Ok((url, dlq_url))
}

/// Creates the stack's queues (each with its DLQ), named `{prefix}{logical_id}`.
pub async fn create_queues(client: &Client, prefix: &str) -> Result<QueueUrls, StoreError> {
    let (events, events_dlq) = create_pair(client, &EVENTS_QUEUE, prefix).await?;
    let (deliveries, deliveries_dlq) = create_pair(client, &DELIVERIES_QUEUE, prefix).await?;
    Ok(QueueUrls {
        events,
        events_dlq,
        deliveries,
        deliveries_dlq,
    })
}

/// A received message: what a Lambda SQS event record carries.
#[derive(Debug, Clone)]
pub struct Received {
    pub message_id: String,
    pub receipt_handle: String,
    pub body: String,
}

/// Receives up to `max` messages, waiting up to `wait_secs` (the local stand-in for an event
/// source mapping). Against the local moto pass 0: it serves one request at a time, so a long
/// poll would stall every other call for its whole wait.
pub async fn receive(
    client: &Client,
    queue_url: &str,
    max: i32,
    wait_secs: i32,
) -> Result<Vec<Received>, StoreError> {
    let out = client
        .receive_message()
        .queue_url(queue_url)
        .max_number_of_messages(max.clamp(1, 10))
        .wait_time_seconds(wait_secs.clamp(0, 20))
        .send()
        .await
        .map_err(|e| unavailable("ReceiveMessage", &e))?;
    Ok(out
        .messages
        .unwrap_or_default()
        .into_iter()
        .filter_map(|m| {
            Some(Received {
                message_id: m.message_id?,
                receipt_handle: m.receipt_handle?,
                body: m.body.unwrap_or_default(),
            })
        })
        .collect())
}

/// Deletes a processed message.
pub async fn delete(
    client: &Client,
    queue_url: &str,
    receipt_handle: &str,
) -> Result<(), StoreError> {
    client
        .delete_message()
        .queue_url(queue_url)
        .receipt_handle(receipt_handle)
        .send()
        .await
        .map_err(|e| unavailable("DeleteMessage", &e))?;
    Ok(())
}

/// Number of messages visible, in flight, or delayed (tests and the banner).
pub async fn depth(client: &Client, queue_url: &str) -> Result<u64, StoreError> {
    let attrs = client
        .get_queue_attributes()
        .queue_url(queue_url)
        .attribute_names(QueueAttributeName::All)
        .send()
        .await
        .map_err(|e| unavailable("GetQueueAttributes", &e))?
        .attributes
        .unwrap_or_default();
    let n = |k: QueueAttributeName| {
        attrs
            .get(&k)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Ok(n(QueueAttributeName::ApproximateNumberOfMessages)
        + n(QueueAttributeName::ApproximateNumberOfMessagesNotVisible)
        + n(QueueAttributeName::ApproximateNumberOfMessagesDelayed))
}
