//! The stale in-flight threshold is configuration (`PAYGATE_STALE_IN_FLIGHT_MS`): the dev
//! server's functions get it through the compose builders, as the Lambdas do, and judge an
//! operation in flight by it.

use paygate_domain::{
    ports::{Clock, Expectation, PaymentChange, PaymentReader, PaymentWriter},
    PaymentId, StaleAfter, Transaction, TransactionId, TransactionType,
};
use paygate_tests::{expect_error, keys, Stack};
use serde_json::json;

fn key() -> &'static str {
    keys().anatolia_test
}

#[tokio::test]
async fn an_operation_in_flight_turns_unknown_after_the_configured_threshold_only() {
    let stale = StaleAfter::from_millis(90_000).unwrap();
    let stack = Stack::start_with_stale_after("stale", stale).await;
    let id = stack.payment_in(key(), "authorized", 20_000).await;
    // A capture reserved now whose Lambda died before the bank answered.
    let store = stack.server().payments();
    let pid = PaymentId::parse(&id).unwrap();
    let p = store.get_payment(&pid).await.unwrap().unwrap();
    let now = stack.clock.now();
    let planned = p.plan(TransactionType::Capture, None, now, stale).unwrap();
    let tid = TransactionId::parse("txn_staleThreshold1").unwrap();
    let txn = Transaction::pending(
        tid.clone(),
        pid.clone(),
        TransactionType::Capture,
        planned.amount,
        p.currency,
        now,
    );
    store
        .save(PaymentChange {
            payment: p.reserve(planned, tid, now),
            expect: Expectation::over(&p),
            transaction: Some(txn),
            event: None,
        })
        .await
        .unwrap();
    // Past the default's 60 s: still in progress under 90 s.
    stack.clock.advance_millis(61_000);
    let r = stack.op(key(), &id, "cancel", json!({})).await;
    expect_error(&r, 409, "operation_in_progress");
    // Past 90 s: its outcome is unknown, `query` first.
    stack.clock.advance_millis(29_001);
    let r = stack.op(key(), &id, "cancel", json!({})).await;
    expect_error(&r, 409, "operation_outcome_unknown");
}

#[tokio::test]
async fn the_dev_server_refuses_a_threshold_a_running_operation_could_outlive() {
    let moto = paygate_aws::moto::MotoServer::shared().expect("moto server starts");
    let opts = paygate_devserver::Options {
        addr: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        seed: paygate_tests::seed().clone(),
        prefix: paygate_aws::moto::unique_prefix("stalebad"),
        clock: std::sync::Arc::new(paygate_compose::system::SystemClock),
        ids: std::sync::Arc::new(paygate_compose::system::RandomIds),
        webhook: paygate_devserver::WebhookOptions::default(),
        bank_timeout: paygate_devserver::DEFAULT_BANK_TIMEOUT,
        reconcile_every: None,
        throttle: None,
        // Three 8 s bank calls and 10 s: 30 s could judge a running capture stale.
        stale_after: StaleAfter::from_millis(30_000),
    };
    match paygate_devserver::start_on(moto, opts).await {
        Err(paygate_devserver::StartError::Wiring(e)) => {
            assert!(
                matches!(&e, paygate_compose::ConfigError::OutOfRange { key, .. }
                    if key == paygate_compose::STALE_IN_FLIGHT_ENV),
                "{e}"
            );
        }
        Err(e) => panic!("refused for another reason: {e}"),
        Ok(_) => panic!("a 30 s threshold was accepted"),
    }
}
