//! Every setting read at start-up: a malformed value stops the function's builder with
//! `ConfigError::Malformed` naming it; unset, the default is used.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::sync::Arc;

use crate::{
    system::{RandomIds, SystemClock},
    Build, ConfigError, MoneyOperation, Names, OutboxSweeper, Overrides, PointsInquiry, Reconciler,
    WebhookDeliver, Wiring,
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
    refused::<Reconciler>(crate::RECONCILE_BATCH_ENV, "0");
    refused::<Reconciler>(crate::RECONCILE_CONCURRENCY_ENV, "x");
    refused::<Reconciler>(crate::RECONCILE_ALARM_AFTER_ENV, "0");
    refused::<WebhookDeliver>(crate::SIGNING_SECRET_CACHE_ENV, "5m");
    refused::<WebhookDeliver>(crate::RETENTION_DAYS_ENV, "3");
    refused::<OutboxSweeper>(crate::SWEEP_BATCH_ENV, "0");
    refused::<OutboxSweeper>(crate::SWEEP_GRACE_ENV, "1.5");
    refused::<OutboxSweeper>(crate::RETENTION_DAYS_ENV, "none");
}
