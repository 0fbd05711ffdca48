//! CloudWatch metrics in the embedded metric format (EMF): one JSON line on stdout per
//! record, which CloudWatch Logs turns into metrics (no API call, no latency). The one place
//! EMF is written: [`EmfRecord`] builds a record (the reconciler's figures use it too) and
//! [`EmfMetrics`] is the [`Metrics`] port's adapter, mapping each [`Metric`] to its record.
//!
//! Namespace [`NAMESPACE`]; every record carries the `Stage` dimension. The metrics, their
//! units and dimension sets:
//!
//! | metric | unit | dimension sets |
//! |---|---|---|
//! | `Operations` | Count | Stage+Operation+Outcome, Stage+Outcome |
//! | `UnknownOutcomes` | Count | Stage, Stage+Operation |
//! | `BankCalls`, `BankErrors` (1 for an error or no answer, else 0) | Count | Stage+Provider, Stage |
//! | `BankLatency` | Milliseconds | Stage+Provider, Stage |
//! | `WebhookAttempts` | Count | Stage+Result, Stage |
//! | `WebhookFailures` (1 unless the attempt succeeded, else 0) | Count | Stage |
//! | `DeliveryLag` (event created → first attempt) | Milliseconds | Stage |
//! | `ThrottledRequests` | Count | Stage+Scope, Stage |
//! | `ThrottleStoreErrors` | Count | Stage+Scope, Stage |

use std::sync::Arc;

use paygate_domain::{
    metrics::{Metric, Metrics, OperationOutcome},
    ports::Clock,
    Timestamp,
};
use serde_json::{json, Map, Value};

/// The namespace of the gateway's own metrics.
pub const NAMESPACE: &str = "paygate";
/// The dimension every record carries.
pub const STAGE: &str = "Stage";

/// Every metric name the gateway emits in [`NAMESPACE`]: [`record`]'s, the reconciler's
/// run figures (`fn_reconciler::emf`) and the daily reconciliation's (`fn_reconciler::daily_emf`). Alarms and the dashboard in `template.yaml` may name
/// only these (a drift test holds them).
pub const NAMES: [&str; 22] = [
    "Operations",
    "UnknownOutcomes",
    "BankCalls",
    "BankErrors",
    "BankLatency",
    "WebhookAttempts",
    "WebhookFailures",
    "DeliveryLag",
    "ThrottledRequests",
    "ThrottleStoreErrors",
    "ReconcileDue",
    "ReconcileSettled",
    "ReconcileDeferred",
    "ReconcileErrors",
    "ReconcileUndecodable",
    "UnsettledOverLimit",
    "ReconciliationAccounts",
    "ReconciliationMismatches",
    "ReconciliationIncomplete",
    "ReconciliationLeft",
    "ExternalOperations",
    "ExternalUnrecordable",
];

/// A CloudWatch unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Count,
    Milliseconds,
}

impl Unit {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Count => "Count",
            Self::Milliseconds => "Milliseconds",
        }
    }
}

/// One EMF record: dimension values and metric values at the root, and one directive per
/// group of metrics that share their dimension sets.
#[derive(Debug, Clone)]
pub struct EmfRecord {
    timestamp: Timestamp,
    root: Map<String, Value>,
    directives: Vec<Value>,
}

impl EmfRecord {
    /// A record at `timestamp` with the `Stage` dimension.
    pub fn new(stage: &str, timestamp: Timestamp) -> Self {
        let mut root = Map::new();
        root.insert(STAGE.into(), Value::from(stage));
        Self {
            timestamp,
            root,
            directives: Vec::new(),
        }
    }

    /// A dimension's value.
    pub fn dimension(mut self, name: &str, value: &str) -> Self {
        self.root.insert(name.into(), Value::from(value));
        self
    }

    /// Metrics (name, unit, value) reported under each of `dimension_sets` (every set starts
    /// with `Stage`; name the other dimensions with [`EmfRecord::dimension`]).
    pub fn metrics(mut self, dimension_sets: &[&[&str]], metrics: &[(&str, Unit, u64)]) -> Self {
        let sets: Vec<Value> = dimension_sets
            .iter()
            .map(|set| {
                let mut names = vec![Value::from(STAGE)];
                names.extend(set.iter().map(|d| Value::from(*d)));
                Value::Array(names)
            })
            .collect();
        let defs: Vec<Value> = metrics
            .iter()
            .map(|(name, unit, _)| json!({"Name": name, "Unit": unit.as_str()}))
            .collect();
        for (name, _, value) in metrics {
            self.root.insert((*name).into(), Value::from(*value));
        }
        self.directives.push(json!({
            "Namespace": NAMESPACE,
            "Dimensions": sets,
            "Metrics": defs,
        }));
        self
    }

    /// The record as one JSON line.
    pub fn to_json(&self) -> String {
        let mut root = self.root.clone();
        root.insert(
            "_aws".into(),
            json!({
                "Timestamp": self.timestamp.unix_millis(),
                "CloudWatchMetrics": self.directives,
            }),
        );
        Value::Object(root).to_string()
    }
}

/// The record of one [`Metric`].
pub fn record(stage: &str, metric: &Metric, now: Timestamp) -> EmfRecord {
    use Unit::{Count, Milliseconds};
    let r = EmfRecord::new(stage, now);
    match metric {
        Metric::Operation { operation, outcome } => {
            let r = r
                .dimension("Operation", operation)
                .dimension("Outcome", outcome.as_str())
                .metrics(
                    &[&["Operation", "Outcome"], &["Outcome"]],
                    &[("Operations", Count, 1)],
                );
            if *outcome == OperationOutcome::Unknown {
                r.metrics(&[&[], &["Operation"]], &[("UnknownOutcomes", Count, 1)])
            } else {
                r
            }
        }
        Metric::BankCall {
            provider,
            outcome,
            millis,
            ..
        } => {
            let failed = matches!(outcome, OperationOutcome::Error | OperationOutcome::Unknown);
            r.dimension("Provider", provider).metrics(
                &[&["Provider"], &[]],
                &[
                    ("BankCalls", Count, 1),
                    ("BankErrors", Count, u64::from(failed)),
                    ("BankLatency", Milliseconds, *millis),
                ],
            )
        }
        Metric::WebhookAttempt { result } => r
            .dimension("Result", result.as_str())
            .metrics(&[&["Result"], &[]], &[("WebhookAttempts", Count, 1)])
            .metrics(
                &[&[]],
                &[(
                    "WebhookFailures",
                    Count,
                    u64::from(*result != paygate_domain::metrics::AttemptResult::Success),
                )],
            ),
        Metric::DeliveryLag { millis } => {
            r.metrics(&[&[]], &[("DeliveryLag", Milliseconds, *millis)])
        }
        Metric::Throttled { scope } => r
            .dimension("Scope", scope.as_str())
            .metrics(&[&["Scope"], &[]], &[("ThrottledRequests", Count, 1)]),
        Metric::ThrottleStoreError { scope } => r
            .dimension("Scope", scope.as_str())
            .metrics(&[&["Scope"], &[]], &[("ThrottleStoreErrors", Count, 1)]),
        Metric::ExternalOperation {
            operation,
            recorded: true,
        } => r
            .dimension("Operation", operation)
            .metrics(&[&["Operation"], &[]], &[("ExternalOperations", Count, 1)]),
        Metric::ExternalOperation {
            recorded: false, ..
        } => r.metrics(&[&[]], &[("ExternalUnrecordable", Count, 1)]),
    }
}

/// Where records go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Standard output, where the Lambda runtime hands them to CloudWatch Logs (deployed).
    Stdout,
    /// The `paygate::metrics` tracing target at DEBUG (the dev server: no EMF lines in the
    /// way of its log unless asked for).
    Log,
}

/// The [`Metrics`] adapter.
pub struct EmfMetrics {
    stage: String,
    clock: Arc<dyn Clock>,
    output: Output,
}

impl EmfMetrics {
    pub fn new(stage: impl Into<String>, clock: Arc<dyn Clock>, output: Output) -> Self {
        Self {
            stage: stage.into(),
            clock,
            output,
        }
    }
}

impl Metrics for EmfMetrics {
    fn emit(&self, metric: Metric) {
        let line = record(&self.stage, &metric, self.clock.now()).to_json();
        match self.output {
            Output::Stdout => println!("{line}"),
            Output::Log => tracing::debug!(target: "paygate::metrics", "{line}"),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use paygate_domain::{metrics::AttemptResult, throttle::Scope};

    use super::*;

    const T: Timestamp = Timestamp::from_unix_millis(1_795_255_200_000);

    fn parsed(m: &Metric) -> Value {
        serde_json::from_str(&record("prod", m, T).to_json()).unwrap()
    }

    /// Each directive's (dimension sets, [(name, unit)]), checking that every dimension and
    /// metric it names has a value at the root, as CloudWatch requires.
    /// (dimension sets, [(metric, unit)]) of one directive.
    type Directive = (Vec<Vec<String>>, Vec<(String, String)>);

    fn directives(v: &Value) -> Vec<Directive> {
        assert_eq!(v["_aws"]["Timestamp"], T.unix_millis());
        assert_eq!(v["Stage"], "prod");
        let strs = |a: &Value| -> Vec<String> {
            a.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap().to_owned())
                .collect()
        };
        v["_aws"]["CloudWatchMetrics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                assert_eq!(d["Namespace"], NAMESPACE);
                let sets: Vec<Vec<String>> = d["Dimensions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(&strs)
                    .collect();
                for set in &sets {
                    assert_eq!(set[0], STAGE);
                    for dim in set {
                        assert!(v[dim].is_string(), "dimension {dim} has a value");
                    }
                }
                let metrics = d["Metrics"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| {
                        let name = m["Name"].as_str().unwrap().to_owned();
                        assert!(v[&name].is_u64(), "metric {name} has a value");
                        (name, m["Unit"].as_str().unwrap().to_owned())
                    })
                    .collect();
                (sets, metrics)
            })
            .collect()
    }

    fn set(dims: &[&str]) -> Vec<String> {
        std::iter::once(STAGE)
            .chain(dims.iter().copied())
            .map(str::to_owned)
            .collect()
    }

    fn m(name: &str, unit: &str) -> (String, String) {
        (name.to_owned(), unit.to_owned())
    }

    #[test]
    fn every_name_a_record_carries_is_in_names() {
        let all = [
            Metric::Operation {
                operation: "capture",
                outcome: OperationOutcome::Unknown,
            },
            Metric::BankCall {
                provider: "posnet",
                operation: "cancel",
                outcome: OperationOutcome::Error,
                millis: 1,
            },
            Metric::WebhookAttempt {
                result: AttemptResult::Failure,
            },
            Metric::DeliveryLag { millis: 1 },
            Metric::Throttled { scope: Scope::Api },
            Metric::ThrottleStoreError { scope: Scope::Api },
            Metric::ExternalOperation {
                operation: "refund",
                recorded: true,
            },
            Metric::ExternalOperation {
                operation: "cancel",
                recorded: false,
            },
        ];
        for m in &all {
            for (_, metrics) in directives(&parsed(m)) {
                for (name, _) in metrics {
                    assert!(NAMES.contains(&name.as_str()), "{name}");
                }
            }
        }
    }

    #[test]
    fn operations_by_kind_and_outcome_and_unknown_outcomes() {
        let v = parsed(&Metric::Operation {
            operation: "refund",
            outcome: OperationOutcome::Unknown,
        });
        assert_eq!(
            (v["Operation"].as_str(), v["Outcome"].as_str()),
            (Some("refund"), Some("unknown"))
        );
        assert_eq!(
            directives(&v),
            vec![
                (
                    vec![set(&["Operation", "Outcome"]), set(&["Outcome"])],
                    vec![m("Operations", "Count")]
                ),
                (
                    vec![set(&[]), set(&["Operation"])],
                    vec![m("UnknownOutcomes", "Count")]
                ),
            ]
        );
        let approved = parsed(&Metric::Operation {
            operation: "capture",
            outcome: OperationOutcome::NotRecorded,
        });
        assert_eq!(approved["Outcome"], "not_recorded");
        assert_eq!(directives(&approved).len(), 1, "no unknown outcome");
    }

    #[test]
    fn bank_calls_carry_the_provider_latency_in_ms_and_an_error_flag() {
        let v = parsed(&Metric::BankCall {
            provider: "nestpay",
            operation: "capture",
            outcome: OperationOutcome::Unknown,
            millis: 812,
        });
        assert_eq!(v["Provider"], "nestpay");
        assert_eq!(
            (v["BankCalls"].as_u64(), v["BankErrors"].as_u64()),
            (Some(1), Some(1))
        );
        assert_eq!(v["BankLatency"], 812);
        assert_eq!(
            directives(&v),
            vec![(
                vec![set(&["Provider"]), set(&[])],
                vec![
                    m("BankCalls", "Count"),
                    m("BankErrors", "Count"),
                    m("BankLatency", "Milliseconds")
                ]
            )]
        );
        let ok = parsed(&Metric::BankCall {
            provider: "garanti",
            operation: "query",
            outcome: OperationOutcome::Declined,
            millis: 3,
        });
        assert_eq!(ok["BankErrors"], 0, "a decline is an answer, not an error");
    }

    #[test]
    fn webhook_attempts_lag_and_throttling() {
        let v = parsed(&Metric::WebhookAttempt {
            result: AttemptResult::Timeout,
        });
        assert_eq!(
            (v["Result"].as_str(), v["WebhookFailures"].as_u64()),
            (Some("timeout"), Some(1))
        );
        assert_eq!(
            directives(&v),
            vec![
                (
                    vec![set(&["Result"]), set(&[])],
                    vec![m("WebhookAttempts", "Count")]
                ),
                (vec![set(&[])], vec![m("WebhookFailures", "Count")]),
            ]
        );
        let ok = parsed(&Metric::WebhookAttempt {
            result: AttemptResult::Success,
        });
        assert_eq!(ok["WebhookFailures"], 0);
        let lag = parsed(&Metric::DeliveryLag { millis: 1500 });
        assert_eq!(
            directives(&lag),
            vec![(vec![set(&[])], vec![m("DeliveryLag", "Milliseconds")])]
        );
        let t = parsed(&Metric::Throttled {
            scope: Scope::Points,
        });
        assert_eq!(t["Scope"], "points");
        assert_eq!(
            directives(&t),
            vec![(
                vec![set(&["Scope"]), set(&[])],
                vec![m("ThrottledRequests", "Count")]
            )]
        );
        let e = parsed(&Metric::ThrottleStoreError {
            scope: Scope::Points,
        });
        assert_eq!(e["Scope"], "points");
        assert_eq!(
            directives(&e),
            vec![(
                vec![set(&["Scope"]), set(&[])],
                vec![m("ThrottleStoreErrors", "Count")]
            )]
        );
    }
}
