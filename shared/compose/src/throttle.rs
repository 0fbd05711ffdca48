//! Per-API-key throttling of the merchant routes (`paygate_http::throttle`): the shared
//! counters (the throttle table) and the limits, from the environment with defaults.

use std::sync::Arc;

use paygate_aws::dynamo::{schema::THROTTLE, DynamoRateCounter};
use paygate_domain::throttle::{
    lease::{lease_size, Leased},
    CardLimit, Limits, RateLimit,
};
use paygate_http::Throttle;

use crate::{
    settings::{metrics, positive_u32},
    ConfigError, Names, Wiring,
};

/// Environment variable: most requests of one API key in one clock second (every merchant
/// route but points inquiry); default 50.
pub const THROTTLE_BURST_ENV: &str = "PAYGATE_THROTTLE_BURST";
/// Environment variable: most requests of one API key in one clock minute; default 1200.
pub const THROTTLE_PER_MINUTE_ENV: &str = "PAYGATE_THROTTLE_PER_MINUTE";
/// Environment variable: most points inquiries of one API key in one clock second;
/// default 2.
pub const POINTS_THROTTLE_BURST_ENV: &str = "PAYGATE_POINTS_THROTTLE_BURST";
/// Environment variable: most points inquiries of one API key in one clock minute;
/// default 20.
pub const POINTS_THROTTLE_PER_MINUTE_ENV: &str = "PAYGATE_POINTS_THROTTLE_PER_MINUTE";

/// Environment variable: most points inquiries of one merchant (all its keys of one mode)
/// in one clock second; default 20.
pub const POINTS_MERCHANT_THROTTLE_BURST_ENV: &str = "PAYGATE_POINTS_MERCHANT_THROTTLE_BURST";
/// Environment variable: most points inquiries of one merchant in one clock minute;
/// default 600.
pub const POINTS_MERCHANT_THROTTLE_PER_MINUTE_ENV: &str =
    "PAYGATE_POINTS_MERCHANT_THROTTLE_PER_MINUTE";
/// Environment variable: most points inquiries of one card (every merchant) in one clock
/// minute; default 5.
pub const POINTS_CARD_THROTTLE_PER_MINUTE_ENV: &str = "PAYGATE_POINTS_CARD_THROTTLE_PER_MINUTE";
/// Environment variable: most points inquiries of one card (every merchant) in one clock
/// hour; default 20.
pub const POINTS_CARD_THROTTLE_PER_HOUR_ENV: &str = "PAYGATE_POINTS_CARD_THROTTLE_PER_HOUR";

/// The limits of this process's environment (the dev server's `make dev`).
pub fn throttle_limits_from_env() -> Result<Limits, ConfigError> {
    limits_from(&Names::from_env())
}

/// The limits from `names`, each figure defaulting to `Limits::default()`'s.
pub fn limits_from(names: &Names) -> Result<Limits, ConfigError> {
    let d = Limits::default();
    let limit = |burst_key: &str, minute_key: &str, default: RateLimit| {
        let burst = positive_u32(names, burst_key, default.burst)?;
        let per_minute = positive_u32(names, minute_key, default.per_minute)?;
        RateLimit::new(burst, per_minute).ok_or_else(|| ConfigError::Malformed(burst_key.into()))
    };
    let card_minute = positive_u32(
        names,
        POINTS_CARD_THROTTLE_PER_MINUTE_ENV,
        d.points_card.per_minute,
    )?;
    let card_hour = positive_u32(
        names,
        POINTS_CARD_THROTTLE_PER_HOUR_ENV,
        d.points_card.per_hour,
    )?;
    Ok(Limits {
        api: limit(THROTTLE_BURST_ENV, THROTTLE_PER_MINUTE_ENV, d.api)?,
        points: limit(
            POINTS_THROTTLE_BURST_ENV,
            POINTS_THROTTLE_PER_MINUTE_ENV,
            d.points,
        )?,
        points_merchant: limit(
            POINTS_MERCHANT_THROTTLE_BURST_ENV,
            POINTS_MERCHANT_THROTTLE_PER_MINUTE_ENV,
            d.points_merchant,
        )?,
        points_card: CardLimit::new(card_minute, card_hour)
            .ok_or_else(|| ConfigError::Malformed(POINTS_CARD_THROTTLE_PER_MINUTE_ENV.into()))?,
    })
}

/// What every merchant route runs behind.
pub(crate) fn throttle(w: &Wiring) -> Result<Throttle, ConfigError> {
    let limits = match w.overrides.throttle_limits {
        Some(l) => l,
        None => limits_from(&w.names)?,
    };
    // The API scope leases batches of its minute (one write per batch per instance); points
    // inquiry and any other scope count request by request (paygate_domain::throttle::lease).
    let counter = Arc::new(DynamoRateCounter::new(
        w.aws.dynamo.clone(),
        w.names.table(&THROTTLE)?,
    ));
    Ok(Throttle {
        counter: Arc::new(Leased::new(counter, lease_size(limits.api))),
        limits,
        clock: w.clock.clone(),
        metrics: metrics(w),
        // Built once per function instance: the in-process gate lives as long as it.
        gate: Arc::default(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn limits_default_and_are_read_and_checked() {
        assert_eq!(
            limits_from(&Names::from_map::<&str, &str>([])).unwrap(),
            Limits::default()
        );
        let set = Names::from_map([
            (THROTTLE_BURST_ENV, "10"),
            (THROTTLE_PER_MINUTE_ENV, "100"),
            (POINTS_THROTTLE_BURST_ENV, "1"),
            (POINTS_THROTTLE_PER_MINUTE_ENV, "5"),
            (POINTS_MERCHANT_THROTTLE_BURST_ENV, "3"),
            (POINTS_MERCHANT_THROTTLE_PER_MINUTE_ENV, "30"),
            (POINTS_CARD_THROTTLE_PER_MINUTE_ENV, "2"),
            (POINTS_CARD_THROTTLE_PER_HOUR_ENV, "7"),
        ]);
        assert_eq!(
            limits_from(&set).unwrap(),
            Limits {
                api: RateLimit::new(10, 100).unwrap(),
                points: RateLimit::new(1, 5).unwrap(),
                points_merchant: RateLimit::new(3, 30).unwrap(),
                points_card: CardLimit::new(2, 7).unwrap(),
            }
        );
        for (key, bad) in [
            (THROTTLE_BURST_ENV, "0"),
            (THROTTLE_PER_MINUTE_ENV, "lots"),
            (POINTS_THROTTLE_BURST_ENV, "-1"),
            (POINTS_THROTTLE_PER_MINUTE_ENV, "1.5"),
            (POINTS_MERCHANT_THROTTLE_BURST_ENV, "0"),
            (POINTS_CARD_THROTTLE_PER_MINUTE_ENV, "0"),
            (POINTS_CARD_THROTTLE_PER_HOUR_ENV, "x"),
        ] {
            let names = Names::from_map([(key, bad)]);
            assert!(
                matches!(limits_from(&names), Err(ConfigError::Malformed(k)) if k == key),
                "{key}={bad}"
            );
        }
    }
}
