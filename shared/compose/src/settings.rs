//! Settings every area reads: the stage, the metrics sink, and the one parser for numeric
//! settings (a malformed value is an error at start-up, never a silent fallback).

use std::sync::Arc;

use paygate_aws::metrics::{EmfMetrics, Output};
use paygate_domain::metrics::Metrics;

use crate::{ConfigError, Names, Wiring};

/// Environment variable: the stage (`dev`, `prod`, `local`), the metrics' `Stage`
/// dimension (default `dev`).
pub const STAGE_ENV: &str = "STAGE";

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
        let big = Names::from_map([("H", "5000000000")]);
        assert!(matches!(
            positive_u32(&big, "H", 1),
            Err(ConfigError::Malformed(_))
        ));
    }
}
