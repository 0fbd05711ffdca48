//! Settings every area reads: the stage, the metrics sink, and the one parser for numeric
//! settings (a malformed value is an error at start-up, never a silent fallback).

use std::{sync::Arc, time::Duration};

use paygate_aws::metrics::{EmfMetrics, Output};
use paygate_domain::{metrics::Metrics, PendingGrace, StaleAfter};

use crate::{ConfigError, Names, Wiring};

// Every setting of this module is read by `Names` (so the template drift tests see it),
// once, when a function's dependencies are built; a malformed value is `ConfigError`.

/// Environment variable: the stage (`dev`, `prod`, `local`), the metrics' `Stage`
/// dimension (default `dev`).
pub const STAGE_ENV: &str = "STAGE";

/// Environment variable: days that handed-over events and webhook delivery history are kept
/// (DynamoDB TTL); default 90, at least 7 (longer than the webhook retry schedule, whose
/// every attempt and any resend read the event).
pub const RETENTION_DAYS_ENV: &str = "PAYGATE_RETENTION_DAYS";

/// The smallest retention accepted.
pub const MIN_RETENTION_DAYS: u32 = 7;

/// Days events and delivery history are kept (`PAYGATE_RETENTION_DAYS`): read by the
/// functions that write them (the pipeline; admin, which resends them, has `webhooks` too).
#[cfg(feature = "webhooks")]
pub(crate) fn retention_days(names: &Names) -> Result<u32, ConfigError> {
    let default = u32::try_from(paygate_aws::dynamo::schema::DELIVERY_RETENTION_DAYS).unwrap_or(90);
    let days = positive_u32(names, RETENTION_DAYS_ENV, default)?;
    if days < MIN_RETENTION_DAYS {
        return Err(ConfigError::Malformed(RETENTION_DAYS_ENV.to_owned()));
    }
    Ok(days)
}

/// Environment variable: the bound on one bank HTTP call, in milliseconds (default
/// `paygate_bankkit::transport::DEFAULT_TIMEOUT`, 8 s); 100 to 9,000, so three calls fit the
/// money functions' 29 s.
pub const BANK_TIMEOUT_ENV: &str = "PAYGATE_BANK_TIMEOUT_MS";
/// The largest bank timeout accepted (ms).
pub const MAX_BANK_TIMEOUT_MS: u64 = 9_000;
/// Environment variable: seconds bank credentials are reused from Secrets Manager (default
/// 300).
pub const BANK_CREDENTIALS_CACHE_ENV: &str = "PAYGATE_BANK_CREDENTIALS_CACHE_SECS";
/// Environment variable: seconds a webhook signing secret is reused (default
/// `paygate_aws::secrets::DEFAULT_TTL`; a rotation is seen at once anyway, by the endpoint's
/// secret version).
pub const SIGNING_SECRET_CACHE_ENV: &str = "PAYGATE_SIGNING_SECRET_CACHE_SECS";
/// Environment variable: most unsent events, and most overdue deliveries, one sweeper run
/// hands over again (default `paygate_webhooks::sweep::BATCH`, 200).
pub const SWEEP_BATCH_ENV: &str = "PAYGATE_SWEEP_BATCH";
/// Environment variable: seconds an unsent event or overdue delivery waits before the
/// sweeper acts (default `paygate_webhooks::sweep::GRACE_MS`, 60 s).
pub const SWEEP_GRACE_ENV: &str = "PAYGATE_SWEEP_GRACE_SECS";
/// Environment variable: most payments one reconciler run takes (default 100).
pub const RECONCILE_BATCH_ENV: &str = "PAYGATE_RECONCILE_BATCH";
/// Environment variable: payments the reconciler settles at a time (default 8).
pub const RECONCILE_CONCURRENCY_ENV: &str = "PAYGATE_RECONCILE_CONCURRENCY";

/// Environment variable: milliseconds an operation may stay in flight before it counts as
/// stale (its Lambda died between the bank call and the commit), after which `query` and
/// the reconciler settle it from the bank's records; default 60,000. It must exceed the
/// longest an operation can still be running ([`min_stale_in_flight`]) and be at most
/// [`MAX_STALE_IN_FLIGHT_MS`].
pub const STALE_IN_FLIGHT_ENV: &str = "PAYGATE_STALE_IN_FLIGHT_MS";
/// The largest stale in-flight threshold accepted (ms): 10 minutes.
pub const MAX_STALE_IN_FLIGHT_MS: u64 = 600_000;
/// How much longer than an operation's bank calls the stale threshold must be (the
/// reservation before them, the commit after them).
pub const STALE_MARGIN: Duration = Duration::from_secs(10);

/// The shortest stale in-flight threshold that never judges a running operation stale: its
/// bank calls can take `bank_work`, then [`STALE_MARGIN`]; the threshold must exceed this.
pub fn min_stale_in_flight(bank_work: Duration) -> Duration {
    bank_work.saturating_add(STALE_MARGIN)
}

/// The stale in-flight threshold: the override (dev server, tests), else
/// `PAYGATE_STALE_IN_FLIGHT_MS`, else [`StaleAfter::DEFAULT`]; checked against `bank_work`
/// (the longest an operation's bank calls can take with the bank timeout in force).
pub(crate) fn stale_after(w: &Wiring, bank_work: Duration) -> Result<StaleAfter, ConfigError> {
    let stale = match w.overrides.stale_after {
        Some(s) => s,
        None => {
            let default = u64::try_from(StaleAfter::DEFAULT.millis()).unwrap_or(60_000);
            let ms = positive(&w.names, STALE_IN_FLIGHT_ENV, default)?;
            StaleAfter::from_millis(ms)
                .ok_or_else(|| ConfigError::Malformed(STALE_IN_FLIGHT_ENV.to_owned()))?
        }
    };
    check_stale_after(stale, bank_work)
}

/// Environment variable: milliseconds after a `pending` payment's creation before the bank's
/// "no record of this order" fails it — its customer may still be in a 3-D Secure session —
/// read by the functions that finalize pending payments (query, the reconciler); default
/// 900,000 (15 minutes), at least [`MIN_PENDING_NOT_FOUND_GRACE_MS`] and at most
/// [`MAX_PENDING_NOT_FOUND_GRACE_MS`]. A record at the bank finalizes the payment at once
/// whatever it is.
pub const PENDING_NOT_FOUND_GRACE_ENV: &str = "PAYGATE_PENDING_NOT_FOUND_GRACE_MS";
/// The smallest pending grace accepted (ms): an operation's own grace, 3 minutes, which a
/// pending payment never gets less of.
pub const MIN_PENDING_NOT_FOUND_GRACE_MS: u64 = 180_000;
/// The largest pending grace accepted (ms): a day.
pub const MAX_PENDING_NOT_FOUND_GRACE_MS: u64 = 86_400_000;

/// The pending grace (`PAYGATE_PENDING_NOT_FOUND_GRACE_MS`, else [`PendingGrace::DEFAULT`]),
/// within [`MIN_PENDING_NOT_FOUND_GRACE_MS`]..=[`MAX_PENDING_NOT_FOUND_GRACE_MS`].
pub(crate) fn pending_grace(names: &Names) -> Result<PendingGrace, ConfigError> {
    let default = u64::try_from(PendingGrace::DEFAULT.millis()).unwrap_or(900_000);
    let ms = positive(names, PENDING_NOT_FOUND_GRACE_ENV, default)?;
    if !(MIN_PENDING_NOT_FOUND_GRACE_MS..=MAX_PENDING_NOT_FOUND_GRACE_MS).contains(&ms) {
        return Err(ConfigError::OutOfRange {
            key: PENDING_NOT_FOUND_GRACE_ENV.to_owned(),
            reason: format!(
                "{ms} ms; it must be at least {MIN_PENDING_NOT_FOUND_GRACE_MS} ms (an \
                 operation's own grace for late bookings) and at most \
                 {MAX_PENDING_NOT_FOUND_GRACE_MS} ms"
            ),
        });
    }
    PendingGrace::from_millis(ms)
        .ok_or_else(|| ConfigError::Malformed(PENDING_NOT_FOUND_GRACE_ENV.to_owned()))
}

/// `PAYGATE_STALE_IN_FLIGHT_MS` of this process's environment (`None`: unset), for the dev
/// server's `make dev`; its builders check it like the Lambdas' (a malformed value is an
/// error here already).
pub fn stale_after_from_env() -> Result<Option<StaleAfter>, ConfigError> {
    let names = Names::from_env();
    if names.optional(STALE_IN_FLIGHT_ENV).is_none() {
        return Ok(None);
    }
    let ms = positive(&names, STALE_IN_FLIGHT_ENV, 1)?;
    StaleAfter::from_millis(ms)
        .map(Some)
        .ok_or_else(|| ConfigError::Malformed(STALE_IN_FLIGHT_ENV.to_owned()))
}

/// `stale` if it exceeds [`min_stale_in_flight`] of `bank_work` and is at most
/// [`MAX_STALE_IN_FLIGHT_MS`]; else why not, naming the variable.
pub fn check_stale_after(
    stale: StaleAfter,
    bank_work: Duration,
) -> Result<StaleAfter, ConfigError> {
    let min = u64::try_from(min_stale_in_flight(bank_work).as_millis()).unwrap_or(u64::MAX);
    let ms = u64::try_from(stale.millis()).unwrap_or(0);
    if ms <= min || ms > MAX_STALE_IN_FLIGHT_MS {
        return Err(ConfigError::OutOfRange {
            key: STALE_IN_FLIGHT_ENV.to_owned(),
            reason: format!(
                "{ms} ms; it must exceed {min} ms (an operation's bank calls, {} ms with the \
                 bank timeout in force, plus {} s: an operation still running must never \
                 count as stale) and be at most {MAX_STALE_IN_FLIGHT_MS} ms",
                bank_work.as_millis(),
                STALE_MARGIN.as_secs()
            ),
        });
    }
    Ok(stale)
}

/// A duration in whole units of `unit` from `key` (positive), or `default`.
pub(crate) fn duration(
    names: &Names,
    key: &str,
    unit: std::time::Duration,
    default: std::time::Duration,
) -> Result<std::time::Duration, ConfigError> {
    match names.optional(key) {
        None => Ok(default),
        Some(_) => {
            let n = positive_u32(names, key, 1)?;
            Ok(unit * n)
        }
    }
}

/// The bank timeout: the override (dev server, tests), else `PAYGATE_BANK_TIMEOUT_MS`,
/// else `default`; outside 100..=9,000 ms is malformed.
pub(crate) fn bank_timeout(
    w: &Wiring,
    default: std::time::Duration,
) -> Result<std::time::Duration, ConfigError> {
    if let Some(t) = w.overrides.bank_timeout {
        return Ok(t);
    }
    let ms = std::time::Duration::from_millis(1);
    let t = duration(&w.names, BANK_TIMEOUT_ENV, ms, default)?;
    if !(100..=MAX_BANK_TIMEOUT_MS).contains(&u64::try_from(t.as_millis()).unwrap_or(u64::MAX)) {
        return Err(ConfigError::Malformed(BANK_TIMEOUT_ENV.to_owned()));
    }
    Ok(t)
}

/// The stage, for the metrics' `Stage` dimension.
pub(crate) fn stage(w: &Wiring) -> String {
    w.names
        .optional(STAGE_ENV)
        .unwrap_or_else(|| "dev".to_owned())
}

/// Where metrics go: the override (dev server, tests), else CloudWatch EMF on stdout.
pub(crate) fn metrics(w: &Wiring) -> Arc<dyn Metrics> {
    match &w.overrides.metrics {
        Some(m) => m.clone(),
        None => Arc::new(EmfMetrics::new(stage(w), w.clock.clone(), Output::Stdout)),
    }
}

/// A positive whole number from `key`, or `default` when it is not set. Zero, a negative
/// number or anything else is `ConfigError::Malformed`.
pub(crate) fn positive(names: &Names, key: &str, default: u64) -> Result<u64, ConfigError> {
    match names.optional(key) {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| ConfigError::Malformed(key.to_owned())),
    }
}

/// [`positive`], bounded to `u32`.
pub(crate) fn positive_u32(names: &Names, key: &str, default: u32) -> Result<u32, ConfigError> {
    let n = positive(names, key, u64::from(default))?;
    u32::try_from(n).map_err(|_| ConfigError::Malformed(key.to_owned()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn numbers_are_positive_or_refused_and_absent_is_the_default() {
        let names = Names::from_map([
            ("A", "25"),
            ("Z", "0"),
            ("N", "-3"),
            ("X", "2s"),
            ("B", " "),
        ]);
        assert_eq!(positive(&names, "A", 7).unwrap(), 25);
        assert_eq!(positive(&names, "UNSET", 7).unwrap(), 7);
        // Blank counts as unset.
        assert_eq!(positive(&names, "B", 7).unwrap(), 7);
        for bad in ["Z", "N", "X"] {
            assert!(
                matches!(positive(&names, bad, 7), Err(ConfigError::Malformed(k)) if k == bad),
                "{bad}"
            );
        }
        assert_eq!(
            retention_days(&Names::from_map::<&str, &str>([])).unwrap(),
            90
        );
        assert_eq!(
            retention_days(&Names::from_map([(RETENTION_DAYS_ENV, "30")])).unwrap(),
            30
        );
        for bad in ["6", "0", "thirty"] {
            assert!(
                retention_days(&Names::from_map([(RETENTION_DAYS_ENV, bad)])).is_err(),
                "{bad}"
            );
        }
        let secs = std::time::Duration::from_secs(1);
        let d = Names::from_map([("D", "45"), ("Z", "0")]);
        assert_eq!(duration(&d, "D", secs, secs).unwrap(), secs * 45);
        assert_eq!(duration(&d, "UNSET", secs, secs * 7).unwrap(), secs * 7);
        assert!(duration(&d, "Z", secs, secs).is_err());
        let big = Names::from_map([("H", "5000000000")]);
        assert!(matches!(
            positive_u32(&big, "H", 1),
            Err(ConfigError::Malformed(_))
        ));
    }
}
