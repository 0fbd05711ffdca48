//! When an operation in flight counts as stale: its Lambda died between the bank call and
//! the commit, so its outcome is unknown and `query` (or the reconciler) settles it from the
//! bank's records. The threshold is configuration (`PAYGATE_STALE_IN_FLIGHT_MS`, read and
//! checked once by `paygate_compose`), handed as a value to every decision that needs it.

use crate::time::Timestamp;

/// How long an operation may stay in flight before it counts as stale (positive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StaleAfter(i64);

impl StaleAfter {
    /// The template's default (`StaleInFlightMs`): 60 s.
    pub const DEFAULT: StaleAfter = StaleAfter(60_000);

    /// `ms` milliseconds; `None` for zero or more than `i64` holds.
    pub fn from_millis(ms: u64) -> Option<StaleAfter> {
        i64::try_from(ms).ok().filter(|ms| *ms > 0).map(StaleAfter)
    }

    pub fn millis(self) -> i64 {
        self.0
    }

    /// Whether an operation started at `started_at` is stale at `now`: more than the
    /// threshold has passed.
    pub fn is_stale(self, started_at: Timestamp, now: Timestamp) -> bool {
        now.unix_millis().saturating_sub(started_at.unix_millis()) > self.0
    }

    /// The first millisecond at which an operation started at `started_at` is stale.
    pub fn stale_at(self, started_at: Timestamp) -> Timestamp {
        started_at.plus_millis(self.0.saturating_add(1))
    }
}

impl Default for StaleAfter {
    fn default() -> Self {
        Self::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const T0: Timestamp = Timestamp::from_unix_millis(1_795_000_000_000);

    #[test]
    fn stale_strictly_after_the_threshold_from_the_first_stale_millisecond() {
        let s = StaleAfter::from_millis(90_000).unwrap();
        assert_eq!(s.millis(), 90_000);
        assert!(!s.is_stale(T0, T0));
        assert!(!s.is_stale(T0, T0.plus_millis(90_000)));
        assert!(s.is_stale(T0, T0.plus_millis(90_001)));
        assert_eq!(s.stale_at(T0), T0.plus_millis(90_001));
        assert!(s.is_stale(T0, s.stale_at(T0)));
        // A clock behind the start is not stale.
        assert!(!s.is_stale(T0, T0.plus_millis(-5)));
    }

    #[test]
    fn only_a_positive_threshold_exists() {
        assert_eq!(StaleAfter::from_millis(0), None);
        assert_eq!(StaleAfter::from_millis(u64::MAX), None);
        assert_eq!(StaleAfter::default(), StaleAfter::DEFAULT);
        assert_eq!(StaleAfter::DEFAULT.millis(), 60_000);
    }
}
