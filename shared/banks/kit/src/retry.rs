//! The bounded retry of a step that must complete once an earlier step has moved money
//! (e.g. releasing a pre-authorization's hold after its capture was reversed).
//!
//! Every retry must fit the bank-calling function's budget: a call is bounded by the
//! transport's time-out (8 s by default) and the function by 29 s, so a retry is only
//! started when a status read plus the step itself (two calls) still fit before
//! [`StepRetry::budget`] has passed since the operation began.

use std::{
    future::Future,
    time::{Duration, Instant},
};

use paygate_domain::BankOutcome;

/// How often, how patiently and for how long a step is retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepRetry {
    /// Attempts of the step after the first one.
    pub retries: u32,
    /// Wait before the first retry; doubled before each further one.
    pub backoff: Duration,
    /// The whole operation (first call to last answer) must end within this.
    pub budget: Duration,
}

impl Default for StepRetry {
    /// Three retries, 200 ms backoff, 24 s budget (three 8 s calls; the function has 29 s).
    fn default() -> Self {
        Self {
            retries: 3,
            backoff: Duration::from_millis(200),
            budget: Duration::from_secs(24),
        }
    }
}

impl StepRetry {
    /// No retry at all.
    pub fn none() -> Self {
        Self {
            retries: 0,
            ..Self::default()
        }
    }

    /// The wait before retry number `retry` (1-based), or `None` when that retry is not
    /// allowed: attempts used up, or a status read and the step (`2 × call_timeout`) would
    /// no longer fit the budget after waiting.
    pub fn wait_before(
        &self,
        retry: u32,
        started: Instant,
        call_timeout: Duration,
    ) -> Option<Duration> {
        if retry == 0 || retry > self.retries {
            return None;
        }
        let wait = self.backoff.saturating_mul(1u32 << (retry - 1).min(16));
        let needed = started
            .elapsed()
            .saturating_add(wait)
            .saturating_add(call_timeout.saturating_mul(2));
        (needed <= self.budget).then_some(wait)
    }

    /// Waits before retry number `retry`; `false` (without waiting) when it is not allowed.
    pub async fn pause(&self, retry: u32, started: Instant, call_timeout: Duration) -> bool {
        match self.wait_before(retry, started, call_timeout) {
            Some(wait) => {
                tokio::time::sleep(wait).await;
                true
            }
            None => false,
        }
    }
}

/// What a fresh read of the order says about a second step being retried.
pub enum Recheck<T> {
    /// The step has taken effect meanwhile: this is the operation's outcome.
    Done(BankOutcome),
    /// Send the step again, against this target.
    Again(T),
    /// Nothing could be read: send it again against the same target.
    Unread,
    /// The order changed under the step: the outcome is unknown, for this reason.
    Changed(&'static str),
}

impl StepRetry {
    /// Sends `step` until the bank approves it, within the retry budget. Between tries,
    /// `recheck` reads the order, since the last try may have gone through unseen. `None`
    /// when the budget ran out without an approval (the caller says what is unconfirmed).
    pub async fn finish_step<T, S, SF, R, RF>(
        &self,
        call_timeout: Duration,
        started: Instant,
        mut target: T,
        mut step: S,
        mut recheck: R,
    ) -> Option<BankOutcome>
    where
        T: Clone,
        S: FnMut(T) -> SF,
        SF: Future<Output = BankOutcome>,
        R: FnMut() -> RF,
        RF: Future<Output = Recheck<T>>,
    {
        let mut retry = 0;
        loop {
            let outcome = step(target.clone()).await;
            if matches!(outcome, BankOutcome::Approved { .. }) {
                return Some(outcome);
            }
            retry += 1;
            if !self.pause(retry, started, call_timeout).await {
                return None;
            }
            match recheck().await {
                Recheck::Done(outcome) => return Some(outcome),
                Recheck::Again(t) => target = t,
                Recheck::Unread => {}
                Recheck::Changed(reason) => {
                    return Some(BankOutcome::Unknown {
                        reason: reason.to_owned(),
                    })
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_are_bounded_by_count_and_budget() {
        let r = StepRetry {
            retries: 3,
            backoff: Duration::from_millis(100),
            budget: Duration::from_secs(24),
        };
        let now = Instant::now();
        let t = Duration::from_secs(8);
        assert_eq!(r.wait_before(1, now, t), Some(Duration::from_millis(100)));
        assert_eq!(r.wait_before(3, now, t), Some(Duration::from_millis(400)));
        assert_eq!(r.wait_before(4, now, t), None, "attempts used up");
        assert_eq!(r.wait_before(0, now, t), None);
        // Two more 12 s calls would not fit 24 s.
        assert_eq!(r.wait_before(1, now, Duration::from_secs(12)), None);
        assert_eq!(StepRetry::none().wait_before(1, now, t), None);
        let d = StepRetry::default();
        assert!(d.budget < Duration::from_secs(29) && d.backoff < Duration::from_secs(1));
    }
}
