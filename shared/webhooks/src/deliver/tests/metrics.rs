//! What a delivery attempt reports: its result, and for the first attempt the delay since
//! the event was created.

use paygate_domain::{
    metrics::{AttemptResult, Metric},
    testkit::RecordingMetrics,
};

use super::*;

#[tokio::test]
async fn each_attempt_reports_its_result_and_the_first_one_the_delivery_lag() {
    let w = world();
    w.endpoint("whe_a", &["*"], Mode::Test);
    w.sender.push_status(500);
    let ev = w.event(EventType::PaymentCaptured).await;
    // The fan-out and the first attempt come 1.5 s after the event.
    w.clock.advance_millis(1_500);
    fanout(&w.fanout_deps(), &ev).await.unwrap();
    let metrics = Arc::new(RecordingMetrics::new());
    let deps = DeliverDeps {
        metrics: metrics.clone(),
        ..w.deliver_deps(RetrySchedule::default())
    };
    w.run_queue(&deps).await;
    assert_eq!(
        metrics.all(),
        [
            Metric::WebhookAttempt {
                result: AttemptResult::Failure
            },
            Metric::DeliveryLag { millis: 1_500 },
            Metric::WebhookAttempt {
                result: AttemptResult::Success
            },
        ]
    );
}

#[test]
fn attempt_results_follow_the_recorded_attempt() {
    let attempt = |succeeded, status_code, error| paygate_domain::webhook::Attempt {
        delivery_id: paygate_domain::DeliveryId::parse("dlv_1").unwrap(),
        number: 1,
        at: T0,
        duration_ms: 0,
        status_code,
        error,
        succeeded,
        response_body: String::new(),
    };
    for (a, want) in [
        (attempt(true, Some(204), None), AttemptResult::Success),
        (attempt(false, Some(500), None), AttemptResult::Failure),
        (
            attempt(false, None, Some(AttemptError::Timeout)),
            AttemptResult::Timeout,
        ),
        (
            attempt(false, None, Some(AttemptError::Dns)),
            AttemptResult::Connection,
        ),
        (
            attempt(false, None, Some(AttemptError::Blocked)),
            AttemptResult::Connection,
        ),
        (
            attempt(false, None, Some(AttemptError::EndpointUnavailable)),
            AttemptResult::Unavailable,
        ),
    ] {
        assert_eq!(AttemptResult::of(&a), want, "{a:?}");
    }
}
