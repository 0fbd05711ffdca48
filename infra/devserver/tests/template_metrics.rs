//! `template.yaml` against the metrics the code emits: every alarm and dashboard graph on the
//! gateway's namespace names a metric `paygate_aws::metrics` (or the reconciler) emits, with
//! the `Stage` dimension; the operator alarms and the dashboard exist.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use paygate_aws::metrics::{NAMES, NAMESPACE};
use serde_norway::Value;
use support::{resources_of_type, s, template};

/// (metric name, dimension names) of every metric an alarm watches on our namespace.
fn alarm_metrics(alarm: &Value) -> Vec<(String, Vec<String>)> {
    let dims = |d: &Value| -> Vec<String> {
        d.as_sequence()
            .into_iter()
            .flatten()
            .map(|x| s(&x["Name"]))
            .collect()
    };
    let p = &alarm["Properties"];
    let mut out = Vec::new();
    if p["Namespace"].as_str() == Some(NAMESPACE) {
        out.push((s(&p["MetricName"]), dims(&p["Dimensions"])));
    }
    for q in p["Metrics"].as_sequence().into_iter().flatten() {
        let m = &q["MetricStat"]["Metric"];
        if m["Namespace"].as_str() == Some(NAMESPACE) {
            out.push((s(&m["MetricName"]), dims(&m["Dimensions"])));
        }
    }
    out
}

#[test]
fn alarms_watch_only_metrics_the_code_emits() {
    let t = template();
    let mut ours = 0;
    for (id, alarm) in resources_of_type(&t, "AWS::CloudWatch::Alarm") {
        for (name, dims) in alarm_metrics(alarm) {
            ours += 1;
            assert!(
                NAMES.contains(&name.as_str()),
                "{id}: {name} is never emitted"
            );
            // `Stage`, and `Scope` where the code reports one (the throttling metrics).
            match name.as_str() {
                "ThrottledRequests" | "ThrottleStoreErrors" if dims.len() == 2 => {
                    assert_eq!(dims, ["Stage", "Scope"], "{id}: {name}");
                }
                _ => assert_eq!(dims, ["Stage"], "{id}: {name}"),
            }
        }
    }
    assert!(ours >= 6, "only {ours} alarm metrics on {NAMESPACE}");
    for alarm in [
        "UnsettledPaymentsAlarm",
        "UnknownOutcomeBacklogAlarm",
        "BankErrorRateAlarm",
        "WebhookFailureRateAlarm",
        "EventsDLQAlarm",
        "DeliveriesDLQAlarm",
        "ThrottleStoreErrorsAlarm",
        "PointsThrottledAlarm",
    ] {
        assert_eq!(
            t["Resources"][alarm]["Type"].as_str(),
            Some("AWS::CloudWatch::Alarm"),
            "{alarm}"
        );
    }
}

#[test]
fn the_throttling_alarms_watch_store_errors_of_every_scope_and_points_refusals() {
    let t = template();
    let p = &t["Resources"]["ThrottleStoreErrorsAlarm"]["Properties"];
    assert_eq!(s(&p["MetricName"]), "ThrottleStoreErrors");
    assert_eq!(
        p["Dimensions"].as_sequence().map(Vec::len),
        Some(1),
        "every scope"
    );
    let p = &t["Resources"]["PointsThrottledAlarm"]["Properties"];
    assert_eq!(s(&p["MetricName"]), "ThrottledRequests");
    let scope = p["Dimensions"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|d| s(&d["Name"]) == "Scope")
        .map(|d| s(&d["Value"]));
    assert_eq!(
        scope.as_deref(),
        Some(paygate_domain::throttle::Scope::Points.as_str())
    );
}

#[test]
fn the_dashboard_graphs_only_metrics_the_code_emits() {
    let t = template();
    let dashboards = resources_of_type(&t, "AWS::CloudWatch::Dashboard");
    assert_eq!(dashboards.len(), 1);
    let body = match &dashboards[0].1["Properties"]["DashboardBody"] {
        Value::Tagged(tagged) => tagged.value.as_str().unwrap().to_owned(),
        other => panic!("DashboardBody is not a !Sub string: {other:?}"),
    };
    let needle = format!("[\"{NAMESPACE}\", \"");
    let mut graphed = Vec::new();
    for (at, _) in body.match_indices(&needle) {
        let rest = &body[at + needle.len()..];
        let name = &rest[..rest.find('"').unwrap()];
        assert!(
            NAMES.contains(&name),
            "the dashboard graphs {name}, never emitted"
        );
        graphed.push(name.to_owned());
    }
    for must in [
        "Operations",
        "UnknownOutcomes",
        "BankLatency",
        "BankErrors",
        "WebhookAttempts",
        "DeliveryLag",
        "ThrottledRequests",
    ] {
        assert!(graphed.iter().any(|g| g == must), "no graph of {must}");
    }
}
