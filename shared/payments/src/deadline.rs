//! The time a request has left, and what a money movement needs of it.
//!
//! A Lambda is stopped at its deadline whatever it is doing. A bank call must therefore not
//! start unless the time left covers the bank's whole budget and the write of its answer
//! ([`Deadline::covers_bank_call`]); the write itself stops retrying in time to answer
//! ([`Deadline::commit_until`]). What is cut short anyway (a function killed all the same) is
//! safe: the key stays bound to its transaction and the reconciler settles the operation.

use std::time::Duration;

use tokio::time::Instant;

/// What the write of a bank's answer needs at least: one attempt and its read-back, each
/// bounded by the SDK's timeouts (`paygate_aws::timeout_config`), and the answer back.
pub const COMMIT_RESERVE: Duration = Duration::from_secs(3);

/// What is kept back from the deadline to answer the merchant after the last write attempt.
pub const ANSWER_RESERVE: Duration = Duration::from_millis(1_000);

/// The instant a request must be answered by (its function's deadline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    at: Instant,
}

impl Deadline {
    /// `remaining` from now.
    pub fn after(remaining: Duration) -> Self {
        Self {
            at: Instant::now() + remaining,
        }
    }

    /// From a Lambda context's deadline (epoch milliseconds) read at `now_ms`.
    pub fn from_epoch_millis(deadline_ms: u64, now_ms: i64) -> Self {
        let left = i64::try_from(deadline_ms)
            .unwrap_or(i64::MAX)
            .saturating_sub(now_ms)
            .max(0);
        Self::after(Duration::from_millis(u64::try_from(left).unwrap_or(0)))
    }

    pub fn remaining(&self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }

    /// Whether a bank call with `bank_budget` may start: the time left covers it and the write
    /// of its answer.
    pub fn covers_bank_call(&self, bank_budget: Duration) -> bool {
        self.remaining() >= bank_budget + COMMIT_RESERVE
    }

    /// Until when the write of a bank's answer may start another attempt.
    pub fn commit_until(&self) -> Instant {
        self.at
            .checked_sub(ANSWER_RESERVE + COMMIT_RESERVE / 2)
            .unwrap_or(self.at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_bank_call_starts_only_with_its_budget_and_the_commit_left() {
        let d = Deadline::after(Duration::from_secs(29));
        assert!(d.covers_bank_call(Duration::from_secs(24)));
        tokio::time::advance(Duration::from_millis(2_500)).await;
        assert!(!d.covers_bank_call(Duration::from_secs(24)));
        assert!(d.commit_until() < d.at);
        let past = Deadline::from_epoch_millis(1_000, 5_000);
        assert_eq!(past.remaining(), Duration::ZERO);
        assert!(!past.covers_bank_call(Duration::ZERO));
    }
}
