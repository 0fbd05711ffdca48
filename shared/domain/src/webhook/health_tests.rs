use proptest::prelude::*;

use super::*;

const T0: Timestamp = Timestamp::from_unix_millis(1_795_251_600_000);
const MIN: i64 = 60_000;

fn at(ms: i64) -> Timestamp {
    T0.plus_millis(ms)
}

fn failing_for(days: i64, attempts: u32) -> EndpointHealth {
    let mut h = EndpointHealth::default();
    let step = days * DAY_MS / i64::from(attempts.max(1));
    for i in 0..attempts {
        h = h.recorded(at(i64::from(i) * step), false);
    }
    h
}

#[test]
fn a_failure_starts_a_run_and_a_success_ends_it() {
    let h = EndpointHealth::default().recorded(at(0), false);
    assert_eq!(h.failing_since, Some(at(0)));
    assert_eq!(h.failed_attempts, 1);
    assert_eq!(h.version, 1);
    let h = h.recorded(at(MIN), false);
    assert_eq!(h.failing_since, Some(at(0)));
    assert_eq!(h.failed_attempts, 2);
    let h = h.recorded(at(2 * MIN), true);
    assert_eq!(h.failing_since, None);
    assert_eq!(h.failed_attempts, 0);
    assert_eq!(h.last_success_at, Some(at(2 * MIN)));
    assert_eq!(h.last_failure_at, Some(at(MIN)));
    assert_eq!(h.version, 3);
}

#[test]
fn out_of_order_attempts_do_not_flip_the_run() {
    // A success recorded late, older than the run, does not end it.
    let h = EndpointHealth::default()
        .recorded(at(10 * MIN), false)
        .recorded(at(MIN), true);
    assert_eq!(h.failing_since, Some(at(10 * MIN)));
    // A failure older than the last success does not start a run.
    let h = EndpointHealth::default()
        .recorded(at(10 * MIN), true)
        .recorded(at(MIN), false);
    assert_eq!(h.failing_since, None);
    assert_eq!(h.last_success_at, Some(at(10 * MIN)));
}

#[test]
fn the_window_covers_the_last_24_clock_hours() {
    let mut h = EndpointHealth::default();
    h = h.recorded(at(0), true);
    h = h.recorded(at(0), false);
    h = h.recorded(at(HOUR_MS), true);
    assert_eq!(h.window(at(HOUR_MS)), (3, 2));
    assert_eq!(h.success_rate(at(HOUR_MS)), Some(2.0 / 3.0));
    // 24 hours after the first hour it has left the window.
    assert_eq!(h.window(at(24 * HOUR_MS)), (1, 1));
    assert_eq!(h.success_rate(at(26 * HOUR_MS)), None);
    assert_eq!(EndpointHealth::default().success_rate(T0), None);
}

#[test]
fn old_hours_are_dropped_as_new_ones_come() {
    let mut h = EndpointHealth::default();
    for i in 0..100 {
        h = h.recorded(at(i * HOUR_MS), false);
    }
    assert_eq!(h.hours.len(), WINDOW_HOURS as usize);
    assert_eq!(h.window(at(99 * HOUR_MS)), (24, 0));
}

#[test]
fn warns_at_three_days_once_and_disables_at_five_with_enough_attempts() {
    let p = DisablePolicy::default();
    let h = failing_for(3, 30);
    assert_eq!(h.action(at(2 * DAY_MS), &p), HealthAction::Record);
    assert_eq!(h.action(at(3 * DAY_MS), &p), HealthAction::Warn);
    let warned = h.clone().warned(at(3 * DAY_MS));
    assert_eq!(warned.action(at(4 * DAY_MS), &p), HealthAction::Record);
    assert_eq!(warned.action(at(5 * DAY_MS), &p), HealthAction::Disable);
    // Five days but too few attempts: a warning, no disable.
    let few = failing_for(5, 5);
    assert_eq!(few.action(at(5 * DAY_MS), &p), HealthAction::Warn);
    assert_eq!(
        few.warned(at(5 * DAY_MS)).action(at(6 * DAY_MS), &p),
        HealthAction::Record
    );
    // The minimum is configurable.
    let lenient = DisablePolicy {
        min_attempts: 5,
        ..p
    };
    assert_eq!(
        failing_for(5, 5).action(at(5 * DAY_MS), &lenient),
        HealthAction::Disable
    );
}

#[test]
fn a_success_or_a_reenable_starts_over() {
    let p = DisablePolicy::default();
    let h = failing_for(5, 40).warned(at(3 * DAY_MS));
    let after = h.recorded(at(5 * DAY_MS), true);
    assert_eq!(after.action(at(6 * DAY_MS), &p), HealthAction::Record);
    assert_eq!(after.warned_at, None);
    let reset = h.reset_failing();
    assert_eq!(reset.failing_since, None);
    assert_eq!(reset.failed_attempts, 0);
    assert_eq!(reset.version, h.version + 1);
    assert_eq!(reset.hours, h.hours);
    assert_eq!(reset.action(at(9 * DAY_MS), &p), HealthAction::Record);
}

#[test]
fn reasons_round_trip() {
    for r in [DisabledReason::Manual, DisabledReason::Failing] {
        assert_eq!(DisabledReason::parse(r.as_str()), Some(r));
        assert_eq!(
            serde_json::to_value(r).unwrap(),
            serde_json::json!(r.as_str())
        );
    }
    assert_eq!(DisabledReason::parse("other"), None);
}

proptest! {
    /// Whatever the order and outcomes: the window never counts more successes than
    /// attempts, every attempt inside the window is counted, the version counts writes, and
    /// an endpoint with a success after every failure is never failing.
    #[test]
    fn counters_stay_consistent(attempts in prop::collection::vec((0i64..48 * 60, any::<bool>()), 1..60)) {
        let mut h = EndpointHealth::default();
        for (minute, ok) in &attempts {
            h = h.recorded(at(minute * MIN), *ok);
        }
        prop_assert_eq!(h.version, attempts.len() as u64);
        let now = at(48 * 60 * MIN);
        let (n, s) = h.window(now);
        prop_assert!(s <= n);
        prop_assert!(h.hours.len() <= WINDOW_HOURS as usize);
        let newest_hour = attempts.iter().map(|(m, _)| hour_of(at(m * MIN))).max().unwrap();
        let expected = attempts
            .iter()
            .filter(|(m, _)| {
                let hr = hour_of(at(m * MIN));
                hr > hour_of(now) - WINDOW_HOURS && hr > newest_hour - WINDOW_HOURS
            })
            .count() as u32;
        prop_assert_eq!(n, expected);
        if let Some(rate) = h.success_rate(now) {
            prop_assert!((0.0..=1.0).contains(&rate));
        }
        let latest_ok = attempts.iter().filter(|(_, ok)| *ok).map(|(m, _)| *m).max();
        let latest_fail = attempts.iter().filter(|(_, ok)| !*ok).map(|(m, _)| *m).max();
        if let (Some(ok), Some(fail)) = (latest_ok, latest_fail) {
            if ok > fail {
                prop_assert_eq!(h.failing_since, None);
            }
        }
        if latest_ok.is_none() {
            prop_assert!(h.failing_since.is_some());
            prop_assert_eq!(h.failed_attempts as usize, attempts.len());
        }
    }
}
