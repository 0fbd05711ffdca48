//! The throttling counters over moto: shared by every client (one per Lambda instance),
//! per window, with their TTL; and under the faults DynamoDB produces (lost answers,
//! throttling), through the SDK's retries.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use aws_sdk_dynamodb::types::AttributeValue;
use paygate_aws::dynamo::{
    create_tables,
    faults::{client, DynamoFault, FaultPlan},
    table_names, DynamoRateCounter,
};
use paygate_aws::moto::{unique_prefix, MotoServer, REGION};
use paygate_domain::{
    throttle::{Counts, RateCounter, Scope, Window},
    StoreError, Timestamp,
};

/// 2026-11-21T10:00:00.000Z, a whole minute.
const T0: Timestamp = Timestamp::from_unix_millis(1_795_255_200_000);

async fn table(label: &str) -> String {
    let moto = MotoServer::shared().expect("moto server starts");
    let prefix = unique_prefix(label);
    create_tables(&moto.client(), &prefix).await.unwrap();
    table_names(&prefix).throttle
}

#[tokio::test]
async fn every_instance_counts_into_the_same_window() {
    let moto = MotoServer::shared().unwrap();
    let name = table("thr-shared").await;
    // Two "Lambda instances": two clients, two adapters.
    let a = DynamoRateCounter::new(moto.client(), &name);
    let b = DynamoRateCounter::new(moto.client(), &name);
    let w = Window::at("key_a", Scope::Api, T0.plus_millis(5_200));
    assert_eq!(
        a.hit(&w).await.unwrap(),
        Counts {
            second: 1,
            minute: 1
        }
    );
    assert_eq!(
        b.hit(&w).await.unwrap(),
        Counts {
            second: 2,
            minute: 2
        }
    );
    // Another second of the same minute: its own count, the minute's total goes on.
    let later = Window::at("key_a", Scope::Api, T0.plus_millis(6_000));
    assert_eq!(
        a.hit(&later).await.unwrap(),
        Counts {
            second: 1,
            minute: 3
        }
    );
    // Another minute, another key, another scope: fresh counters.
    let next = Window::at("key_a", Scope::Api, T0.plus_millis(60_000));
    assert_eq!(
        b.hit(&next).await.unwrap(),
        Counts {
            second: 1,
            minute: 1
        }
    );
    let other = Window::at("key_b", Scope::Api, T0.plus_millis(5_200));
    assert_eq!(
        a.hit(&other).await.unwrap(),
        Counts {
            second: 1,
            minute: 1
        }
    );
    let points = Window::at("key_a", Scope::Points, T0.plus_millis(5_200));
    assert_eq!(
        a.hit(&points).await.unwrap(),
        Counts {
            second: 1,
            minute: 1
        }
    );
    // The item expires by TTL two minutes after its minute started.
    let item = moto
        .client()
        .get_item()
        .table_name(&name)
        .key("pk", AttributeValue::S(w.id.clone()))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(
        item["expiresAt"],
        AttributeValue::N((T0.unix_seconds() + 120).to_string())
    );
}

#[tokio::test]
async fn a_lost_answer_is_retried_by_the_sdk_and_may_count_twice() {
    let moto = MotoServer::shared().unwrap();
    let name = table("thr-lost").await;
    let plan = FaultPlan::new();
    let faulty = client(&moto.endpoint, REGION, &plan, paygate_aws::retry_config());
    let counter = DynamoRateCounter::new(faulty, &name);
    let w = Window::at("key_a", Scope::Api, T0);
    plan.script("UpdateItem", [Some(DynamoFault::LostAnswer)]);
    // Applied, answer lost, retried and applied again: the request counts twice (strict
    // side), and the caller gets an answer.
    assert_eq!(
        counter.hit(&w).await.unwrap(),
        Counts {
            second: 2,
            minute: 2
        }
    );
    assert_eq!(plan.injected()[&DynamoFault::LostAnswer], 1);
}

#[tokio::test]
async fn throttling_past_the_sdk_retries_is_an_error_the_edge_lets_through() {
    let moto = MotoServer::shared().unwrap();
    let name = table("thr-throttled").await;
    let plan = FaultPlan::new();
    let faulty = client(&moto.endpoint, REGION, &plan, paygate_aws::retry_config());
    let counter = DynamoRateCounter::new(faulty, &name);
    let w = Window::at("key_a", Scope::Api, T0);
    // One throttle: the SDK retries and the call succeeds, counted once.
    plan.script("UpdateItem", [Some(DynamoFault::Throttled)]);
    assert_eq!(
        counter.hit(&w).await.unwrap(),
        Counts {
            second: 1,
            minute: 1
        }
    );
    // Throttled on every attempt: an error (the edge fails open on it).
    plan.script("UpdateItem", [Some(DynamoFault::Throttled); 3]);
    assert!(matches!(
        counter.hit(&w).await,
        Err(StoreError::Unavailable(_))
    ));
    // Nothing was applied meanwhile.
    assert_eq!(
        counter.hit(&w).await.unwrap(),
        Counts {
            second: 2,
            minute: 2
        }
    );
}
