//! How long a `pending` payment the bank has no record of stays pending: its customer may
//! still be in a 3-D Secure session, which can outlast the grace an operation gets
//! ([`super::NOT_FOUND_GRACE_MS`]). The grace is configuration
//! (`PAYGATE_PENDING_NOT_FOUND_GRACE_MS`, read and checked once by `paygate_compose`), handed
//! as a value to [`super::Payment::finalize_pending`]. A definite record at the bank
//! (approved, declined, a pre-authorization, …) finalizes the payment at once whatever it
//! is.

use crate::time::Timestamp;

/// How long after a pending payment's creation "no record at the bank" is believed
/// (positive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PendingGrace(i64);

impl PendingGrace {
    /// The template's default (`PendingNotFoundGraceMs`): 15 minutes.
    pub const DEFAULT: PendingGrace = PendingGrace(15 * 60 * 1000);

    /// `ms` milliseconds; `None` for zero or more than `i64` holds.
    pub fn from_millis(ms: u64) -> Option<PendingGrace> {
        i64::try_from(ms)
            .ok()
            .filter(|ms| *ms > 0)
            .map(PendingGrace)
    }

    pub fn millis(self) -> i64 {
        self.0
    }

    /// Whether, at `now`, the grace of a payment created at `created_at` has passed, so
    /// that "no record" means the payment never reached the bank.
    pub fn has_passed(self, created_at: Timestamp, now: Timestamp) -> bool {
        now.unix_millis().saturating_sub(created_at.unix_millis()) >= self.0
    }
}

impl Default for PendingGrace {
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
    fn passed_from_the_first_millisecond_after_the_grace_and_only_positive() {
        let g = PendingGrace::from_millis(600_000).unwrap();
        assert_eq!(g.millis(), 600_000);
        assert!(!g.has_passed(T0, T0.plus_millis(599_999)));
        assert!(g.has_passed(T0, T0.plus_millis(600_000)));
        assert!(!g.has_passed(T0, T0.plus_millis(-5)), "a clock behind");
        assert_eq!(PendingGrace::from_millis(0), None);
        assert_eq!(PendingGrace::from_millis(u64::MAX), None);
        assert_eq!(PendingGrace::default().millis(), 15 * 60 * 1000);
    }
}
