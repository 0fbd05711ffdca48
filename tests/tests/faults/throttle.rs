//! The throttling edge over the DynamoDB counters with faults injected under the SDK: a lost
//! answer still decides (the request may count twice), a counter store that keeps failing
//! lets requests through (fail open, within the instance's gate) with the
//! `ThrottleStoreErrors` metric, and refuses points inquiries (fail closed: 503), a flood of
//! them refused in memory without reaching the store.

use std::sync::Arc;

use lambda_http::{
    aws_lambda_events::apigw::{ApiGatewayRequestAuthorizer, ApiGatewayV2httpRequestContext},
    request::RequestContext,
    Body, Request, RequestExt, Response,
};
use paygate_aws::dynamo::{
    create_tables,
    faults::{client, DynamoFault, FaultPlan},
    table_names, DynamoRateCounter,
};
use paygate_aws::moto::{unique_prefix, MotoServer, REGION};
use paygate_domain::{
    ids::ApiKeyId,
    metrics::Metric,
    testkit::{ManualClock, RecordingMetrics},
    throttle::{Limits, RateLimit},
    MerchantId, Mode,
};
use paygate_http::{context::principal_fields, throttle::Scope, throttled, Throttle};
use paygate_payments::Principal;

use crate::T0;

async fn edge(label: &str) -> (Throttle, FaultPlan, Arc<RecordingMetrics>, Arc<ManualClock>) {
    let moto = MotoServer::shared().expect("moto server starts");
    let prefix = unique_prefix(label);
    create_tables(&moto.client(), &prefix).await.unwrap();
    let plan = FaultPlan::new();
    let faulty = client(&moto.endpoint, REGION, &plan, paygate_aws::retry_config());
    let metrics = Arc::new(RecordingMetrics::new());
    let clock = Arc::new(ManualClock::at(T0.plus_millis(100)));
    let throttle = Throttle {
        counter: Arc::new(DynamoRateCounter::new(
            faulty,
            table_names(&prefix).throttle,
        )),
        limits: Limits {
            api: RateLimit::new(2, 100).unwrap(),
            points: RateLimit::new(1, 100).unwrap(),
            ..paygate_tests::GENEROUS_LIMITS
        },
        clock: clock.clone(),
        metrics: metrics.clone(),
        gate: Arc::default(),
    };
    (throttle, plan, metrics, clock)
}

fn request() -> Request {
    let req = lambda_http::http::Request::builder()
        .method("GET")
        .uri("/v1/payments/pay_1")
        .body(Body::Empty)
        .unwrap();
    let mut auth = ApiGatewayRequestAuthorizer::default();
    auth.fields = principal_fields(&Ok(Principal {
        merchant_id: MerchantId::parse("mch_f").unwrap(),
        mode: Mode::Test,
        key_id: ApiKeyId::parse("key_f").unwrap(),
    }));
    let mut ctx = ApiGatewayV2httpRequestContext::default();
    ctx.authorizer = Some(auth);
    req.with_request_context(RequestContext::ApiGatewayV2(ctx))
}

async fn call(t: &Throttle) -> u16 {
    call_in(t, Scope::Api).await
}

/// A request in `scope`; its handler must not run when the answer is not 200.
async fn call_in(t: &Throttle, scope: Scope) -> u16 {
    let ok = async { Response::new(Body::Empty) };
    throttled(t, scope, &request(), ok).await.status().as_u16()
}

#[tokio::test]
async fn a_lost_counter_answer_still_decides_and_may_count_twice() {
    let (t, plan, metrics, _) = edge("thr-edge-lost").await;
    plan.script("UpdateItem", [Some(DynamoFault::LostAnswer)]);
    // Counted twice (2 of a burst of 2): still allowed.
    assert_eq!(call(&t).await, 200);
    // The next one is over the burst.
    assert_eq!(call(&t).await, 429);
    assert_eq!(metrics.all(), vec![Metric::Throttled { scope: Scope::Api }]);
}

#[tokio::test]
async fn a_counter_store_that_keeps_failing_lets_requests_through_with_a_metric() {
    let (t, plan, metrics, clock) = edge("thr-edge-down").await;
    // Every attempt of the SDK throttled, then 500s: three requests (a second apart, within
    // the instance's gate), none counted.
    plan.script("UpdateItem", [Some(DynamoFault::Throttled); 3]);
    plan.script("UpdateItem", [Some(DynamoFault::ServerError); 6]);
    for _ in 0..3 {
        assert_eq!(call(&t).await, 200, "fail open");
        clock.advance_millis(1_000);
    }
    assert_eq!(
        metrics.all(),
        vec![Metric::ThrottleStoreError { scope: Scope::Api }; 3]
    );
    // Back: counting starts from what was applied (nothing).
    assert_eq!(call(&t).await, 200);
    assert_eq!(call(&t).await, 200);
    assert_eq!(call(&t).await, 429);
}

#[tokio::test]
async fn a_points_flood_while_the_counters_fail_is_refused_and_mostly_never_reaches_them() {
    let (t, plan, metrics, clock) = edge("thr-edge-points").await;
    plan.script("UpdateItem", [Some(DynamoFault::ServerError); 60]);
    // A burst of 1: the first of the flood tries the store (3 attempts), fails closed; the
    // rest is refused in memory.
    let answers = futures::future::join_all((0..100).map(|_| call_in(&t, Scope::Points))).await;
    assert_eq!(answers.iter().filter(|a| **a == 503).count(), 1);
    assert_eq!(answers.iter().filter(|a| **a == 429).count(), 99);
    assert_eq!(plan.injected()[&DynamoFault::ServerError], 3);
    let store_errors = |m: &[Metric]| {
        m.iter()
            .filter(|m| {
                **m == Metric::ThrottleStoreError {
                    scope: Scope::Points,
                }
            })
            .count()
    };
    assert_eq!(store_errors(&metrics.all()), 1);
    // A second later one more tries, and is refused again: still nothing let through.
    clock.advance_millis(1_000);
    assert_eq!(call_in(&t, Scope::Points).await, 503);
    assert_eq!(plan.injected()[&DynamoFault::ServerError], 6);
    // The other routes of the same key fail open meanwhile.
    assert_eq!(call(&t).await, 200);
}
