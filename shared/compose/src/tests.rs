//! Every setting read at start-up: a malformed value stops the function's builder with
//! `ConfigError::Malformed` naming it; unset, the default is used.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::sync::Arc;

use crate::{
    system::{RandomIds, SystemClock},
    Build, ConfigError, MoneyOperation, Names, OutboxSweeper, Overrides, PointsInquiry, Reconciler,
    TestCreatePayment, WebhookDeliver, Wiring,
};

/// Every name the builders need, plus `extra`.
fn wiring(extra: &[(&str, &str)]) -> Wiring {
    let mut vars: Vec<(String, String)> = paygate_aws::dynamo::table_names("t-")
        .env_pairs()
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    for (k, v) in [
        ("EVENTS_QUEUE_URL", "http://q/events"),
        ("DELIVERIES_QUEUE_URL", "http://q/deliveries"),
        ("BANK_SECRET_PREFIX", "paygate/t/banks/"),
        (crate::CARD_KEY_SECRET_ENV, "paygate/t/card-key"),
    ] {
        vars.push((k.to_owned(), v.to_owned()));
    }
    vars.extend(
        extra
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    );
    Wiring {
        aws: paygate_aws::Clients::local("http://127.0.0.1:9", "eu-central-1"),
        names: Names::from_map(vars),
        clock: Arc::new(SystemClock),
        ids: Arc::new(RandomIds),
        overrides: Overrides::default(),
    }
}

fn refused<T: Build>(key: &str, value: &str) {
    match T::build(&wiring(&[(key, value)])) {
        Err(ConfigError::Malformed(k)) => assert_eq!(k, key),
        Err(e) => panic!("{key}={value}: {e}"),
        Ok(_) => panic!("{key}={value} was accepted"),
    }
}

#[test]
fn every_setting_defaults_when_unset() {
    MoneyOperation::build(&wiring(&[])).unwrap();
    PointsInquiry::build(&wiring(&[])).unwrap();
    Reconciler::build(&wiring(&[])).unwrap();
    WebhookDeliver::build(&wiring(&[])).unwrap();
    let sweeper = OutboxSweeper::build(&wiring(&[])).unwrap();
    assert_eq!(sweeper.sweep.batch, paygate_webhooks::sweep::BATCH);
    assert_eq!(sweeper.sweep.grace_ms, paygate_webhooks::sweep::GRACE_MS);
    let r = Reconciler::build(&wiring(&[])).unwrap();
    assert_eq!(
        (r.reconciler.limits.batch, r.reconciler.limits.concurrency),
        (100, 8)
    );
}

/// Init builds no SQS or Secrets Manager client: a money operation sends to the events
/// queue only after an approved operation and reads bank credentials only for a real bank,
/// so both wait for their first use (issue 20).
#[test]
fn init_builds_no_deferred_client() {
    let w = wiring(&[]);
    MoneyOperation::build(&w).unwrap();
    PointsInquiry::build(&w).unwrap();
    Reconciler::build(&w).unwrap();
    WebhookDeliver::build(&w).unwrap();
    OutboxSweeper::build(&w).unwrap();
    TestCreatePayment::build(&w).unwrap();
    assert!(!paygate_aws::OnFirstUse::is_built(&w.aws.sqs));
    assert!(!paygate_aws::OnFirstUse::is_built(&w.aws.secrets));
}

#[test]
fn settings_are_read() {
    let sweeper = OutboxSweeper::build(&wiring(&[
        (crate::SWEEP_BATCH_ENV, "50"),
        (crate::SWEEP_GRACE_ENV, "120"),
    ]))
    .unwrap();
    assert_eq!((sweeper.sweep.batch, sweeper.sweep.grace_ms), (50, 120_000));
    let r = Reconciler::build(&wiring(&[
        (crate::RECONCILE_BATCH_ENV, "25"),
        (crate::RECONCILE_CONCURRENCY_ENV, "2"),
    ]))
    .unwrap();
    assert_eq!(
        (r.reconciler.limits.batch, r.reconciler.limits.concurrency),
        (25, 2)
    );
    MoneyOperation::build(&wiring(&[(crate::BANK_TIMEOUT_ENV, "2500")])).unwrap();
}

#[test]
fn a_malformed_setting_stops_the_builder() {
    refused::<MoneyOperation>(crate::BANK_TIMEOUT_ENV, "8s");
    refused::<MoneyOperation>(crate::BANK_TIMEOUT_ENV, "20000");
    refused::<MoneyOperation>(crate::BANK_TIMEOUT_ENV, "50");
    refused::<MoneyOperation>(crate::BANK_CREDENTIALS_CACHE_ENV, "-1");
    refused::<MoneyOperation>(crate::THROTTLE_BURST_ENV, "0");
    refused::<PointsInquiry>(crate::POINTS_THROTTLE_PER_MINUTE_ENV, "many");
    refused::<PointsInquiry>(crate::POINTS_MERCHANT_THROTTLE_PER_MINUTE_ENV, "0");
    refused::<PointsInquiry>(crate::POINTS_CARD_THROTTLE_PER_HOUR_ENV, "-5");
    refused::<Reconciler>(crate::RECONCILE_BATCH_ENV, "0");
    refused::<Reconciler>(crate::RECONCILE_CONCURRENCY_ENV, "x");
    refused::<Reconciler>(crate::RECONCILE_ALARM_AFTER_ENV, "0");
    refused::<WebhookDeliver>(crate::SIGNING_SECRET_CACHE_ENV, "5m");
    refused::<WebhookDeliver>(crate::RETENTION_DAYS_ENV, "3");
    refused::<OutboxSweeper>(crate::SWEEP_BATCH_ENV, "0");
    refused::<OutboxSweeper>(crate::SWEEP_GRACE_ENV, "1.5");
    refused::<OutboxSweeper>(crate::RETENTION_DAYS_ENV, "none");
}

fn out_of_range<T: Build>(vars: &[(&str, &str)]) -> String {
    match T::build(&wiring(vars)) {
        Err(e @ ConfigError::OutOfRange { .. }) => e.to_string(),
        Err(e) => panic!("{vars:?}: {e}"),
        Ok(_) => panic!("{vars:?} was accepted"),
    }
}

#[test]
fn the_stale_threshold_is_read_and_reaches_the_operations() {
    use paygate_domain::StaleAfter;
    let op = MoneyOperation::build(&wiring(&[])).unwrap();
    assert_eq!(op.ops.stale_after, StaleAfter::DEFAULT);
    let ms = |v: &str| StaleAfter::from_millis(v.parse().unwrap()).unwrap();
    let op = MoneyOperation::build(&wiring(&[(crate::STALE_IN_FLIGHT_ENV, "90000")])).unwrap();
    assert_eq!(op.ops.stale_after, ms("90000"));
    let r = Reconciler::build(&wiring(&[(crate::STALE_IN_FLIGHT_ENV, "120000")])).unwrap();
    assert_eq!(r.reconciler.ops.stale_after, ms("120000"));
    // The bounds themselves: just above 3 × 8 s + 10 s, and 10 minutes.
    for ok in ["34001", "600000"] {
        let op = MoneyOperation::build(&wiring(&[(crate::STALE_IN_FLIGHT_ENV, ok)])).unwrap();
        assert_eq!(op.ops.stale_after, ms(ok));
    }
    // Through the dev server's override too.
    let mut w = wiring(&[]);
    w.overrides.stale_after = Some(ms("45000"));
    assert_eq!(
        MoneyOperation::build(&w).unwrap().ops.stale_after,
        ms("45000")
    );
}

#[test]
fn the_pending_grace_is_read_checked_and_reaches_query_and_the_reconciler() {
    use paygate_domain::PendingGrace;
    let key = crate::PENDING_NOT_FOUND_GRACE_ENV;
    let op = MoneyOperation::build(&wiring(&[])).unwrap();
    assert_eq!(op.ops.pending_grace, PendingGrace::DEFAULT);
    assert_eq!(op.ops.pending_grace.millis(), 15 * 60 * 1000);
    let ms = |v: &str| PendingGrace::from_millis(v.parse().unwrap()).unwrap();
    // The bounds: the operations' 3 minutes, and a day.
    for ok in ["180000", "86400000"] {
        let op = MoneyOperation::build(&wiring(&[(key, ok)])).unwrap();
        assert_eq!(op.ops.pending_grace, ms(ok));
        let r = Reconciler::build(&wiring(&[(key, ok)])).unwrap();
        assert_eq!(r.reconciler.ops.pending_grace, ms(ok));
    }
    refused::<MoneyOperation>(key, "0");
    refused::<Reconciler>(key, "15m");
    let e = out_of_range::<MoneyOperation>(&[(key, "179999")]);
    assert!(e.contains(key) && e.contains("at least 180000 ms"), "{e}");
    let e = out_of_range::<Reconciler>(&[(key, "86400001")]);
    assert!(e.contains("at most 86400000 ms"), "{e}");
}

#[test]
fn a_stale_threshold_a_running_operation_could_outlive_stops_the_builder() {
    // Malformed: not a positive whole number of milliseconds.
    refused::<MoneyOperation>(crate::STALE_IN_FLIGHT_ENV, "0");
    refused::<Reconciler>(crate::STALE_IN_FLIGHT_ENV, "60s");
    // Default bank timeout 8 s: three calls, 24 s, plus 10 s.
    let e = out_of_range::<MoneyOperation>(&[(crate::STALE_IN_FLIGHT_ENV, "34000")]);
    assert!(e.contains("PAYGATE_STALE_IN_FLIGHT_MS"), "{e}");
    assert!(e.contains("must exceed 34000 ms"), "{e}");
    out_of_range::<Reconciler>(&[(crate::STALE_IN_FLIGHT_ENV, "20000")]);
    out_of_range::<TestCreatePayment>(&[(crate::STALE_IN_FLIGHT_ENV, "20000")]);
    // At most 10 minutes.
    let e = out_of_range::<MoneyOperation>(&[(crate::STALE_IN_FLIGHT_ENV, "600001")]);
    assert!(e.contains("at most 600000 ms"), "{e}");
    // The floor follows the bank timeout: 9 s calls make it 37 s.
    let slow = |stale: &'static str| {
        [
            (crate::BANK_TIMEOUT_ENV, "9000"),
            (crate::STALE_IN_FLIGHT_ENV, stale),
        ]
    };
    let e = out_of_range::<MoneyOperation>(&slow("37000"));
    assert!(e.contains("must exceed 37000 ms"), "{e}");
    MoneyOperation::build(&wiring(&slow("37001"))).unwrap();
    // Short calls leave a step retry's 24 s budget as the longest an operation runs.
    let fast = [
        (crate::BANK_TIMEOUT_ENV, "1000"),
        (crate::STALE_IN_FLIGHT_ENV, "30000"),
    ];
    let e = out_of_range::<MoneyOperation>(&fast);
    assert!(e.contains("must exceed 34000 ms"), "{e}");
    // The dev server's override is checked like the setting.
    let mut w = wiring(&[]);
    w.overrides.stale_after = paygate_domain::StaleAfter::from_millis(30_000);
    assert!(matches!(
        MoneyOperation::build(&w),
        Err(ConfigError::OutOfRange { .. })
    ));
}
