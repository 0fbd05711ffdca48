//! Endpoint health: counters kept on the endpoint as attempts are recorded (no scan of the
//! history), the success rate of the last 24 hours, and the auto-disable rule.
//!
//! Every recorded attempt (except `endpoint_unavailable`: the endpoint was disabled or
//! deleted, the receiver was never called) updates the endpoint's [`EndpointHealth`]:
//! hourly counters (the last 24 hours, by hour of the attempt), the last success and last
//! failure, and `failing_since`, the first failure after the last success. An endpoint whose
//! attempts have all failed for [`DisablePolicy::disable_after_ms`] (5 days) with at least
//! [`DisablePolicy::min_attempts`] failed attempts in that run is disabled (reason
//! `failing`); at [`DisablePolicy::warn_after_ms`] (3 days) a warning is emitted once. A
//! success ends the run (`failing_since` cleared); re-enabling the endpoint clears it too.
//!
//! The health is written with its `version` as the condition (read, decide here, write if
//! unchanged; a lost race is re-read and re-decided: invariant 1).

use serde::{Deserialize, Serialize};

use crate::time::Timestamp;

/// Why an endpoint is disabled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DisabledReason {
    /// Someone disabled it (PATCH `enabled: false`, or created it disabled).
    Manual,
    /// Disabled automatically: its attempts had all failed for days.
    Failing,
}

impl DisabledReason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Manual => "manual",
            Self::Failing => "failing",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "manual" => Some(Self::Manual),
            "failing" => Some(Self::Failing),
            _ => None,
        }
    }
}

const HOUR_MS: i64 = 3_600_000;
const DAY_MS: i64 = 24 * HOUR_MS;
/// Hours the success rate covers.
pub const WINDOW_HOURS: i64 = 24;

/// Attempts in one clock hour (`hour` = hours since the Unix epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct HourCount {
    pub hour: i64,
    pub attempts: u32,
    pub succeeded: u32,
}

/// An endpoint's health counters.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EndpointHealth {
    /// Bumped by every write; the write's condition (0: never written).
    pub version: u64,
    pub last_success_at: Option<Timestamp>,
    pub last_failure_at: Option<Timestamp>,
    /// The first failed attempt after the last success; `None` while healthy.
    pub failing_since: Option<Timestamp>,
    /// Failed attempts since `failing_since`.
    pub failed_attempts: u32,
    /// When the "failing for 3 days" warning was emitted for the current run.
    pub warned_at: Option<Timestamp>,
    /// Attempts per hour, oldest first, at most [`WINDOW_HOURS`] entries.
    pub hours: Vec<HourCount>,
}

/// When a failing endpoint is warned about and disabled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DisablePolicy {
    pub warn_after_ms: i64,
    pub disable_after_ms: i64,
    /// Failed attempts the run must have before it disables the endpoint.
    pub min_attempts: u32,
}

/// Environment variable: the minimum failed attempts before auto-disable (default 20).
pub const MIN_ATTEMPTS_ENV: &str = "PAYGATE_WEBHOOK_DISABLE_MIN_ATTEMPTS";

impl Default for DisablePolicy {
    /// Warn after 3 days, disable after 5 days and at least 20 failed attempts.
    fn default() -> Self {
        Self {
            warn_after_ms: 3 * DAY_MS,
            disable_after_ms: 5 * DAY_MS,
            min_attempts: 20,
        }
    }
}

/// What recording an attempt calls for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HealthAction {
    /// Nothing beyond the counters.
    Record,
    /// Failing for the warning period (first time in this run): warn.
    Warn,
    /// Failing for the disable period with enough attempts: disable (reason `failing`).
    Disable,
}

fn hour_of(t: Timestamp) -> i64 {
    t.unix_millis().div_euclid(HOUR_MS)
}

impl EndpointHealth {
    /// The health after one more attempt at `at` (the next version). Attempts may be
    /// recorded out of order: an older success does not end a newer failing run, an older
    /// failure does not start one after a newer success.
    pub fn recorded(&self, at: Timestamp, succeeded: bool) -> Self {
        let mut h = self.clone();
        h.version = self.version + 1;
        let hour = hour_of(at);
        match h.hours.iter_mut().find(|c| c.hour == hour) {
            Some(c) => {
                c.attempts = c.attempts.saturating_add(1);
                c.succeeded = c.succeeded.saturating_add(u32::from(succeeded));
            }
            None => {
                h.hours.push(HourCount {
                    hour,
                    attempts: 1,
                    succeeded: u32::from(succeeded),
                });
                h.hours.sort_by_key(|c| c.hour);
            }
        }
        let newest = h.hours.last().map_or(hour, |c| c.hour);
        h.hours.retain(|c| c.hour > newest - WINDOW_HOURS);
        if succeeded {
            h.last_success_at = Some(h.last_success_at.map_or(at, |s| s.max(at)));
            if h.failing_since.is_some_and(|since| at >= since) {
                h.failing_since = None;
                h.failed_attempts = 0;
                h.warned_at = None;
            }
        } else {
            h.last_failure_at = Some(h.last_failure_at.map_or(at, |f| f.max(at)));
            match h.failing_since {
                Some(since) => {
                    h.failed_attempts = h.failed_attempts.saturating_add(1);
                    if at < since {
                        h.failing_since = Some(at);
                    }
                }
                None if self.last_success_at.is_none_or(|s| at > s) => {
                    h.failing_since = Some(at);
                    h.failed_attempts = 1;
                }
                None => {}
            }
        }
        h
    }

    /// Attempts and successes in the last [`WINDOW_HOURS`] clock hours up to `now`'s.
    pub fn window(&self, now: Timestamp) -> (u32, u32) {
        let current = hour_of(now);
        self.hours
            .iter()
            .filter(|c| c.hour <= current && c.hour > current - WINDOW_HOURS)
            .fold((0u32, 0u32), |(a, s), c| {
                (a.saturating_add(c.attempts), s.saturating_add(c.succeeded))
            })
    }

    /// Successes over attempts in the window; `None` without attempts. A ratio for display
    /// (never money), hence the one float division.
    #[allow(clippy::float_arithmetic)]
    pub fn success_rate(&self, now: Timestamp) -> Option<f64> {
        let (attempts, succeeded) = self.window(now);
        (attempts > 0).then(|| f64::from(succeeded) / f64::from(attempts))
    }

    /// What this health calls for at `now` under `policy`.
    pub fn action(&self, now: Timestamp, policy: &DisablePolicy) -> HealthAction {
        let Some(since) = self.failing_since else {
            return HealthAction::Record;
        };
        let failing_ms = now.unix_millis() - since.unix_millis();
        if failing_ms >= policy.disable_after_ms && self.failed_attempts >= policy.min_attempts {
            HealthAction::Disable
        } else if failing_ms >= policy.warn_after_ms && self.warned_at.is_none() {
            HealthAction::Warn
        } else {
            HealthAction::Record
        }
    }

    /// The warning of this run noted at `now`.
    pub fn warned(mut self, now: Timestamp) -> Self {
        self.warned_at = Some(now);
        self
    }

    /// After the endpoint is enabled again: a new run starts (next version). The counters
    /// and last success/failure stay.
    pub fn reset_failing(&self) -> Self {
        let mut h = self.clone();
        h.version = self.version + 1;
        h.failing_since = None;
        h.failed_attempts = 0;
        h.warned_at = None;
        h
    }
}

#[cfg(test)]
#[path = "health_tests.rs"]
mod tests;
