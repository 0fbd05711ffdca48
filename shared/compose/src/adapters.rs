//! The adapters, each built in one place: a client (DynamoDB, SQS or Secrets Manager) and
//! the name of its table, queue or TTL.

use std::{sync::Arc, time::Duration};

use paygate_aws::{
    dynamo::{Client, DynamoAccounts, DynamoDeliveries, DynamoEndpoints, DynamoEvents},
    secrets::SecretsManagerSigning,
    sqs::{SqsDeliveryQueue, SqsEventPublisher},
};

/// The outbox: the events table, keeping handed-over events for `retention_days`.
pub fn outbox(
    client: &Client,
    events_table: &str,
    retention_days: u32,
) -> Arc<dyn paygate_domain::ports::Outbox> {
    events(client, events_table, retention_days)
}

/// The events table (the outbox), for the ports that also write it.
pub(crate) fn events(
    client: &Client,
    events_table: &str,
    retention_days: u32,
) -> Arc<DynamoEvents> {
    Arc::new(DynamoEvents::new(client.clone(), events_table).with_retention_days(retention_days))
}

/// The POS accounts table (also the directory of merchants).
#[allow(dead_code)] // not every feature set uses every adapter
pub(crate) fn accounts(client: &Client, pos_accounts_table: &str) -> Arc<DynamoAccounts> {
    Arc::new(DynamoAccounts::new(client.clone(), pos_accounts_table))
}

/// The webhook endpoints table.
#[allow(dead_code)]
pub(crate) fn endpoints(client: &Client, webhook_endpoints_table: &str) -> Arc<DynamoEndpoints> {
    Arc::new(DynamoEndpoints::new(
        client.clone(),
        webhook_endpoints_table,
    ))
}

/// The deliveries table, keeping history for `retention_days`.
#[allow(dead_code)]
pub(crate) fn deliveries(
    client: &Client,
    deliveries_table: &str,
    retention_days: u32,
) -> Arc<DynamoDeliveries> {
    Arc::new(
        DynamoDeliveries::new(client.clone(), deliveries_table).with_retention_days(retention_days),
    )
}

/// The events queue, as a publisher.
#[allow(dead_code)]
pub(crate) fn event_publisher(
    sqs: &paygate_aws::sqs::Client,
    events_queue_url: &str,
) -> Arc<SqsEventPublisher> {
    Arc::new(SqsEventPublisher::new(sqs.clone(), events_queue_url))
}

/// The deliveries queue.
#[allow(dead_code)]
pub(crate) fn delivery_queue(
    sqs: &paygate_aws::sqs::Client,
    deliveries_queue_url: &str,
) -> Arc<SqsDeliveryQueue> {
    Arc::new(SqsDeliveryQueue::new(sqs.clone(), deliveries_queue_url))
}

/// Webhook signing secrets in Secrets Manager, cached for `ttl` (zero: uncached).
#[allow(dead_code)]
pub(crate) fn signing_secrets(
    secrets: &paygate_aws::secrets::Client,
    ttl: Duration,
) -> Arc<SecretsManagerSigning> {
    Arc::new(SecretsManagerSigning::new(secrets.clone(), ttl))
}
