//! The queues match the shared definitions; their consumers report partial failures and finish
//! within the visibility timeout; the sweeper and the reconciler run on their schedules.

use std::collections::BTreeSet;

use paygate_aws::sqs::{QueueDef, DELIVERIES_QUEUE, EVENTS_QUEUE, QUEUES};

use serde_norway::Value;

use crate::support::{allows, get_att, intrinsic, resources_of_type, s, template, timeout_secs};

#[test]
fn queues_match_the_shared_definitions() {
    let t = template();
    let deployed: BTreeSet<String> = resources_of_type(&t, "AWS::SQS::Queue")
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    let local: BTreeSet<String> = QUEUES
        .iter()
        .flat_map(|q| [q.logical_id.to_owned(), q.dlq_logical_id.to_owned()])
        .collect();
    assert_eq!(
        deployed, local,
        "queues in template.yaml vs paygate_aws::sqs::QUEUES"
    );
    for q in QUEUES {
        let props = &t["Resources"][q.logical_id]["Properties"];
        assert_eq!(
            props["VisibilityTimeout"].as_u64(),
            Some(u64::from(q.visibility_timeout_secs)),
            "{} VisibilityTimeout",
            q.logical_id
        );
        let redrive = &props["RedrivePolicy"];
        assert_eq!(
            redrive["maxReceiveCount"].as_u64(),
            Some(u64::from(q.max_receive_count)),
            "{} maxReceiveCount",
            q.logical_id
        );
        assert_eq!(
            redrive["deadLetterTargetArn"],
            get_att(q.dlq_logical_id, "Arn"),
            "{} dead-letter queue",
            q.logical_id
        );
    }
}

/// The queue each pipeline function consumes.
const CONSUMERS: [(&QueueDef, &str); 2] = [
    (&EVENTS_QUEUE, "WebhookFanoutFunction"),
    (&DELIVERIES_QUEUE, "WebhookDeliverFunction"),
];

#[test]
fn queue_consumers_report_partial_failures_and_finish_within_the_visibility_timeout() {
    let t = template();
    // No SAM `Type: SQS` events: they attach AWSLambdaSQSQueueExecutionRole, which allows
    // ReceiveMessage/DeleteMessage on every queue of the account.
    for (function, r) in resources_of_type(&t, "AWS::Serverless::Function") {
        for (name, e) in r["Properties"]["Events"].as_mapping().into_iter().flatten() {
            assert_ne!(
                e["Type"].as_str(),
                Some("SQS"),
                "{function} event {}: use an AWS::Lambda::EventSourceMapping with a scoped policy",
                s(name)
            );
        }
    }
    let mut found = BTreeSet::new();
    for (id, m) in resources_of_type(&t, "AWS::Lambda::EventSourceMapping") {
        let p = &m["Properties"];
        let queue = intrinsic(&p["EventSourceArn"], "GetAtt")
            .and_then(|a| a.strip_suffix(".Arn").map(str::to_owned))
            .unwrap_or_else(|| panic!("{id}: EventSourceArn is not !GetAtt <Queue>.Arn"));
        let function = intrinsic(&p["FunctionName"], "Ref")
            .unwrap_or_else(|| panic!("{id}: FunctionName is not !Ref <Function>"));
        let types: Vec<String> = p["FunctionResponseTypes"]
            .as_sequence()
            .map(|v| v.iter().map(s).collect())
            .unwrap_or_default();
        assert!(
            types.iter().any(|x| x == "ReportBatchItemFailures"),
            "{id}: without ReportBatchItemFailures one bad record fails (and retries) the whole batch"
        );
        let def = QUEUES
            .iter()
            .find(|q| q.logical_id == queue)
            .unwrap_or_else(|| {
                panic!("{id} consumes {queue}, which is not in paygate_aws::sqs::QUEUES")
            });
        let timeout = timeout_secs(&t, &function);
        assert!(
            timeout < u64::from(def.visibility_timeout_secs),
            "{function} may run {timeout} s, {queue} hides a message for {} s only",
            def.visibility_timeout_secs
        );
        let arn = get_att(&queue, "Arn");
        for action in [
            "sqs:ReceiveMessage",
            "sqs:DeleteMessage",
            "sqs:GetQueueAttributes",
        ] {
            assert!(
                allows(&t, &function, action, &arn),
                "{function} lacks {action} on {queue}"
            );
        }
        assert_eq!(
            m["DependsOn"].as_str(),
            Some(format!("{function}Role").as_str()),
            "{id} must wait for the role that allows it to receive"
        );
        found.insert((queue, function));
    }
    let expected: BTreeSet<(String, String)> = CONSUMERS
        .iter()
        .map(|(q, f)| (q.logical_id.to_owned(), (*f).to_owned()))
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn the_sweeper_runs_every_minute() {
    let t = template();
    let events = t["Resources"]["OutboxSweeperFunction"]["Properties"]["Events"]
        .as_mapping()
        .expect("the sweeper has events");
    let schedules: Vec<String> = events
        .values()
        .filter(|e| e["Type"].as_str() == Some("Schedule"))
        .map(|e| s(&e["Properties"]["Schedule"]))
        .collect();
    assert_eq!(schedules, ["rate(1 minute)"]);
    assert!(timeout_secs(&t, "OutboxSweeperFunction") <= 60);
}

#[test]
fn the_reconciler_runs_every_minute_alone_reads_its_index_and_is_alarmed() {
    let t = template();
    let f = &t["Resources"]["ReconcilerFunction"]["Properties"];
    let schedules: Vec<String> = f["Events"]
        .as_mapping()
        .expect("the reconciler has events")
        .values()
        .filter(|e| e["Type"].as_str() == Some("Schedule"))
        .map(|e| s(&e["Properties"]["Schedule"]))
        .collect();
    assert_eq!(schedules, ["rate(1 minute)", "cron(15 21-23 * * ? *)"]);
    // The nightly schedule names the daily job the function reads.
    let daily = &f["Events"]["DailyReconciliation"]["Properties"];
    let input: serde_json::Value = serde_json::from_str(&s(&daily["Input"])).unwrap();
    assert!(matches!(
        fn_reconciler::Job::of(input),
        Ok(fn_reconciler::Job::Daily(None))
    ));
    for (alarm, metric) in [
        (
            "ReconciliationMismatchAlarm",
            fn_reconciler::MISMATCH_METRIC,
        ),
        (
            "ReconciliationIncompleteAlarm",
            fn_reconciler::INCOMPLETE_METRIC,
        ),
    ] {
        let a = &t["Resources"][alarm]["Properties"];
        assert_eq!(s(&a["Namespace"]), fn_reconciler::METRIC_NAMESPACE);
        assert_eq!(s(&a["MetricName"]), metric);
    }
    assert_eq!(f["ReservedConcurrentExecutions"].as_u64(), Some(1));
    let index: Value = serde_norway::from_str(&format!(
        "!Sub \"${{PaymentsTable.Arn}}/index/{}\"",
        paygate_aws::dynamo::schema::UNSETTLED_INDEX.name
    ))
    .unwrap();
    assert!(allows(&t, "ReconcilerFunction", "dynamodb:Query", &index));
    let table = get_att("PaymentsTable", "Arn");
    assert!(allows(
        &t,
        "ReconcilerFunction",
        "dynamodb:UpdateItem",
        &table
    ));
    let alarm = &t["Resources"]["UnsettledPaymentsAlarm"]["Properties"];
    assert_eq!(s(&alarm["Namespace"]), fn_reconciler::METRIC_NAMESPACE);
    assert_eq!(s(&alarm["MetricName"]), fn_reconciler::OVER_LIMIT_METRIC);
    let env = &f["Environment"]["Variables"];
    assert!(!env[paygate_compose::RECONCILE_ALARM_AFTER_ENV].is_null());
}

#[test]
fn the_deliver_function_gets_the_spec_retry_schedule_by_default() {
    let t = template();
    let env = &t["Resources"]["WebhookDeliverFunction"]["Properties"]["Environment"]["Variables"];
    assert_eq!(
        intrinsic(&env[paygate_compose::RETRY_SCHEDULE_ENV], "Ref").as_deref(),
        Some("WebhookRetrySchedule")
    );
    let default = s(&t["Parameters"]["WebhookRetrySchedule"]["Default"]);
    assert_eq!(default, paygate_domain::webhook::SPEC_SCHEDULE);
    assert_eq!(
        paygate_domain::webhook::RetrySchedule::parse(&default),
        Some(paygate_domain::webhook::RetrySchedule::default())
    );
}

#[test]
fn local_webhook_exemptions_are_not_in_the_template() {
    // The sender's SSRF guard has local-development exemptions; deployed, it is strict.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../template.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    for var in [
        paygate_webhooks::ENV_ALLOW_ADDRS,
        paygate_webhooks::ENV_EXTRA_CA,
    ] {
        assert!(!text.contains(var), "template.yaml mentions {var}");
    }
}
