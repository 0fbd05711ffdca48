//! Webhook endpoints, deliveries, attempts and the outbox port against moto.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test crate: helpers may panic

#[path = "../common/mod.rs"]
mod common;
mod deliveries;
mod endpoints;
mod health;
mod history;
mod outbox;

use std::collections::{HashMap, HashSet};

use aws_sdk_dynamodb::types::AttributeValue;
use common::*;
use paygate_aws::dynamo::unsent_shard;
use paygate_domain::{
    ports::{
        DeliveryAdmin, DeliveryQuery, DeliveryStore, EndpointReader, Expectation, Outbox,
        PaymentChange, PaymentWriter,
    },
    webhook::{
        delivery_id, Attempt, AttemptError, Delivery, DeliveryStatus, EventFilter, RetrySchedule,
        WebhookEndpoint, WebhookEndpointId,
    },
    EventId, EventRecord, EventType, MerchantId, Mode, StoreError, TimeRange, Timestamp,
};

type Item = HashMap<String, AttributeValue>;

const SEC: i64 = 1_000;
const RETENTION_SECS: i64 = 90 * 86_400;

fn endpoint_id(label: &str) -> WebhookEndpointId {
    WebhookEndpointId::parse(&format!("whe_{label}{}", fresh())).unwrap()
}

fn endpoint(merchant: &MerchantId, id: &WebhookEndpointId) -> WebhookEndpoint {
    WebhookEndpoint {
        id: id.clone(),
        merchant_id: merchant.clone(),
        url: "https://merchant.example/hooks".into(),
        events: vec![
            EventFilter::Only(EventType::PaymentCaptured),
            EventFilter::Only(EventType::PaymentRefunded),
        ],
        mode: Mode::Test,
        enabled: true,
        description: "main shop".into(),
        secret_id: format!("paygate/webhooks/{id}"),
        secret_version: 0,
        created_at: T0,
        updated_at: T0,
        disabled_reason: None,
    }
}

/// A new pending delivery of a fresh event to `endpoint`, created (and due) at `at`.
fn delivery(endpoint: &WebhookEndpointId, at: Timestamp) -> Delivery {
    delivery_of(&event_id(), endpoint, at)
}

fn delivery_of(event: &EventId, endpoint: &WebhookEndpointId, at: Timestamp) -> Delivery {
    Delivery {
        id: delivery_id(event, endpoint),
        merchant_id: merchant(),
        endpoint_id: endpoint.clone(),
        event_id: event.clone(),
        event_type: EventType::PaymentCaptured,
        mode: Mode::Test,
        status: DeliveryStatus::Pending,
        attempts_made: 0,
        next_attempt_at: Some(at),
        created_at: at,
        updated_at: at,
        retry_base: 0,
    }
}

fn attempt(d: &Delivery, number: u32, at: Timestamp, status_code: u16) -> Attempt {
    Attempt {
        delivery_id: d.id.clone(),
        number,
        at,
        duration_ms: 120,
        status_code: Some(status_code),
        error: None,
        response_body: format!("answer {number}"),
        succeeded: Attempt::is_success(Some(status_code)),
    }
}

/// Records attempt `attempts_made + 1` of `d` with `status_code`; returns the delivery after.
async fn record(
    env: &Env,
    d: &Delivery,
    at: Timestamp,
    status_code: u16,
    schedule: &RetrySchedule,
) -> Delivery {
    let a = attempt(d, d.attempts_made + 1, at, status_code);
    let after = d.after_attempt(&a, schedule).delivery;
    assert!(env.deliveries.record_attempt(&a, &after).await.unwrap());
    after
}

/// Every item of one delivery's partition, raw.
async fn raw_partition(env: &Env, pk: &str) -> Vec<Item> {
    env.client
        .query()
        .table_name(&env.names.deliveries)
        .key_condition_expression("pk = :pk")
        .expression_attribute_values(":pk", AttributeValue::S(pk.to_owned()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .items
        .unwrap_or_default()
}

fn sk(item: &Item) -> &str {
    match item.get("sk") {
        Some(AttributeValue::S(v)) => v,
        other => panic!("sk is {other:?}"),
    }
}

fn num(item: &Item, name: &str) -> Option<i64> {
    match item.get(name) {
        Some(AttributeValue::N(v)) => Some(v.parse().unwrap()),
        None => None,
        other => panic!("{name} is {other:?}"),
    }
}

// --- endpoints -----------------------------------------------------------------------------
