//! The local stack and `template.yaml` cannot drift: the tables the dev server creates come
//! from `paygate_aws::dynamo::schema::TABLES`, the queues from `paygate_aws::sqs::QUEUES`, the routes
//! it serves are `router::ROUTE_KEYS`, and this test holds them equal to what the template
//! deploys. It also checks the wiring the functions rely on at init and under SQS.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;

use paygate_aws::dynamo::schema::{TableDef, DELIVERIES, EVENTS, TABLES, WEBHOOK_ENDPOINTS};
use paygate_aws::sqs::{QueueDef, DELIVERIES_QUEUE, EVENTS_QUEUE, QUEUES};
use serde_norway::Value;

fn template() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../template.yaml");
    serde_norway::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn s(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_owned()
}

/// The operand of an intrinsic in short form (`!Ref X` -> `X` for tag `Ref`).
fn intrinsic(v: &Value, tag: &str) -> Option<String> {
    match v {
        Value::Tagged(t) if t.tag == tag => t.value.as_str().map(str::to_owned),
        _ => None,
    }
}

fn resources_of_type<'a>(t: &'a Value, ty: &str) -> Vec<(String, &'a Value)> {
    t["Resources"]
        .as_mapping()
        .unwrap()
        .iter()
        .filter(|(_, r)| r["Type"].as_str() == Some(ty))
        .map(|(k, r)| (s(k), r))
        .collect()
}

/// A function's timeout: its own, else the Globals one.
fn timeout_secs(t: &Value, function: &str) -> u64 {
    let own = &t["Resources"][function]["Properties"]["Timeout"];
    own.as_u64()
        .or_else(|| t["Globals"]["Function"]["Timeout"].as_u64())
        .unwrap_or_else(|| panic!("{function} has no timeout"))
}

/// Whether one of the function's inline policy statements allows `action` on `resource`.
fn allows(t: &Value, function: &str, action: &str, resource: &Value) -> bool {
    let as_list = |v: &Value| -> Vec<Value> {
        match v.as_sequence() {
            Some(seq) if !matches!(v, Value::Tagged(_)) => seq.clone(),
            _ => vec![v.clone()],
        }
    };
    t["Resources"][function]["Properties"]["Policies"]
        .as_sequence()
        .into_iter()
        .flatten()
        .flat_map(|p| p["Statement"].as_sequence().cloned().unwrap_or_default())
        .any(|st| {
            st["Effect"].as_str() == Some("Allow")
                && as_list(&st["Action"])
                    .iter()
                    .any(|a| a.as_str() == Some(action))
                && as_list(&st["Resource"]).contains(resource)
        })
}

fn get_att(resource: &str, attr: &str) -> Value {
    serde_norway::from_str(&format!("!GetAtt {resource}.{attr}")).unwrap()
}

fn keys(schema: &Value) -> (String, Option<String>) {
    let mut hash = String::new();
    let mut range = None;
    for k in schema.as_sequence().unwrap() {
        match k["KeyType"].as_str() {
            Some("HASH") => hash = s(&k["AttributeName"]),
            Some("RANGE") => range = Some(s(&k["AttributeName"])),
            other => panic!("unexpected KeyType {other:?}"),
        }
    }
    (hash, range)
}

#[test]
fn tables_match_the_shared_definitions() {
    let t = template();
    let resources = t["Resources"].as_mapping().unwrap();
    let deployed: BTreeSet<String> = resources
        .iter()
        .filter(|(_, r)| r["Type"].as_str() == Some("AWS::DynamoDB::Table"))
        .map(|(k, _)| s(k))
        .collect();
    let local: BTreeSet<String> = TABLES.iter().map(|d| d.logical_id.to_owned()).collect();
    assert_eq!(
        deployed, local,
        "tables in template.yaml vs paygate_aws::dynamo::schema::TABLES"
    );

    for def in TABLES {
        let props = &t["Resources"][def.logical_id]["Properties"];
        assert_eq!(
            props["BillingMode"].as_str(),
            Some("PAY_PER_REQUEST"),
            "{}",
            def.logical_id
        );
        assert_eq!(
            keys(&props["KeySchema"]),
            (def.hash_key.to_owned(), def.range_key.map(str::to_owned)),
            "{} key schema",
            def.logical_id
        );
        let attrs: BTreeSet<(String, String)> = props["AttributeDefinitions"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|a| (s(&a["AttributeName"]), s(&a["AttributeType"])))
            .collect();
        let expected: BTreeSet<(String, String)> = def
            .key_attributes()
            .into_iter()
            .map(|a| (a.to_owned(), "S".to_owned()))
            .collect();
        assert_eq!(attrs, expected, "{} attribute definitions", def.logical_id);
        let gsis: Vec<(String, (String, Option<String>))> = props["GlobalSecondaryIndexes"]
            .as_sequence()
            .map(|v| {
                v.iter()
                    .map(|g| {
                        assert_eq!(g["Projection"]["ProjectionType"].as_str(), Some("ALL"));
                        (s(&g["IndexName"]), keys(&g["KeySchema"]))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let expected: Vec<(String, (String, Option<String>))> = def
            .gsis
            .iter()
            .map(|g| {
                (
                    g.name.to_owned(),
                    (g.hash_key.to_owned(), g.range_key.map(str::to_owned)),
                )
            })
            .collect();
        assert_eq!(gsis, expected, "{} GSIs", def.logical_id);
    }
}

#[test]
fn routes_match_the_dev_server() {
    let t = template();
    let mut deployed = BTreeSet::new();
    for (_, r) in t["Resources"].as_mapping().unwrap() {
        if r["Type"].as_str() != Some("AWS::Serverless::Function") {
            continue;
        }
        if let Some(events) = r["Properties"]["Events"].as_mapping() {
            for (_, e) in events {
                if e["Type"].as_str() == Some("HttpApi") {
                    let p = &e["Properties"];
                    deployed.insert(format!("{} {}", s(&p["Method"]), s(&p["Path"])));
                }
            }
        }
    }
    let mut local: BTreeSet<String> = paygate_devserver::router::ROUTE_KEYS
        .iter()
        .map(|k| (*k).to_owned())
        .collect();
    local.extend(paygate_devserver::admin::route_keys());
    assert_eq!(deployed, local);
}

/// Every HttpApi event: (function, "METHOD /path", its `Auth.Authorizer` if any).
fn http_events(t: &Value) -> Vec<(String, String, Option<String>)> {
    let mut out = Vec::new();
    for (function, r) in resources_of_type(t, "AWS::Serverless::Function") {
        for (_, e) in r["Properties"]["Events"].as_mapping().into_iter().flatten() {
            if e["Type"].as_str() == Some("HttpApi") {
                let p = &e["Properties"];
                out.push((
                    function.clone(),
                    format!("{} {}", s(&p["Method"]), s(&p["Path"])),
                    p["Auth"]["Authorizer"].as_str().map(str::to_owned),
                ));
            }
        }
    }
    out
}

#[test]
fn admin_routes_use_iam_authorization_and_their_own_function() {
    let t = template();
    assert_eq!(
        t["Resources"]["PaygateApi"]["Properties"]["Auth"]["EnableIamAuthorizer"].as_bool(),
        Some(true),
        "the HttpApi must enable the AWS_IAM authorizer"
    );
    let events = http_events(&t);
    let mut admin_seen = 0;
    for (function, key, authorizer) in &events {
        match paygate_http::admin::AdminRoute::from_key(key) {
            Some(route) => {
                admin_seen += 1;
                assert_eq!(authorizer.as_deref(), Some("AWS_IAM"), "{key}");
                assert_eq!(function, route.function().logical_id(), "{key}");
            }
            None => {
                // Merchant routes keep the API-key authorizer (the default).
                assert_eq!(authorizer, &None, "{key}");
                assert!(!key.contains("/admin/"), "{key}");
            }
        }
    }
    assert_eq!(admin_seen, paygate_http::admin::ROUTES.len());
}

#[test]
fn admin_functions_touch_only_their_resources() {
    let t = template();
    let webhooks_secrets: Value = serde_norway::from_str(
        r#"!Sub "arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:paygate/${Stage}/webhooks/*""#,
    )
    .unwrap();
    let e = "AdminEndpointsFunction";
    for action in [
        "secretsmanager:CreateSecret",
        "secretsmanager:GetSecretValue",
        "secretsmanager:PutSecretValue",
        "secretsmanager:DeleteSecret",
    ] {
        assert!(
            allows(&t, e, action, &webhooks_secrets),
            "{e} lacks {action}"
        );
    }
    for (action, table) in [
        ("dynamodb:PutItem", "WebhookEndpointsTable"),
        ("dynamodb:DeleteItem", "WebhookEndpointsTable"),
        ("dynamodb:Query", "WebhookEndpointsTable"),
        ("dynamodb:PutItem", "EventsTable"),
        ("dynamodb:PutItem", "DeliveriesTable"),
        ("dynamodb:Query", "PosAccountsTable"),
        ("sqs:SendMessage", "DeliveriesQueue"),
        // Settings updates and a re-enable's health reset are UpdateItems.
        ("dynamodb:UpdateItem", "WebhookEndpointsTable"),
        // API keys: issue (conditional put), roll and revoke (conditional updates).
        ("dynamodb:PutItem", "ApiKeysTable"),
        ("dynamodb:UpdateItem", "ApiKeysTable"),
        ("dynamodb:GetItem", "ApiKeysTable"),
    ] {
        assert!(
            allows(&t, e, action, &get_att(table, "Arn")),
            "{e}: {action} on {table}"
        );
    }
    let by_merchant: Value =
        serde_norway::from_str("!Sub \"${ApiKeysTable.Arn}/index/byMerchant\"").unwrap();
    assert!(
        allows(&t, e, "dynamodb:Query", &by_merchant),
        "{e}: Query on byMerchant"
    );
    // The deliver function writes endpoint health (and the auto-disable); the authorizer
    // writes lastUsedAt.
    assert!(allows(
        &t,
        "WebhookDeliverFunction",
        "dynamodb:UpdateItem",
        &get_att("WebhookEndpointsTable", "Arn")
    ));
    assert!(allows(
        &t,
        "AuthorizerFunction",
        "dynamodb:UpdateItem",
        &get_att("ApiKeysTable", "Arn")
    ));
    let d = "AdminDeliveriesFunction";
    for (action, table) in [
        ("dynamodb:GetItem", "DeliveriesTable"),
        ("dynamodb:UpdateItem", "DeliveriesTable"),
        ("dynamodb:GetItem", "EventsTable"),
        ("dynamodb:GetItem", "WebhookEndpointsTable"),
        ("sqs:SendMessage", "DeliveriesQueue"),
    ] {
        assert!(
            allows(&t, d, action, &get_att(table, "Arn")),
            "{d}: {action} on {table}"
        );
    }
    for index in ["byEndpoint", "byEvent", "pendingByEndpoint"] {
        let arn: Value =
            serde_norway::from_str(&format!("!Sub \"${{DeliveriesTable.Arn}}/index/{index}\""))
                .unwrap();
        assert!(
            allows(&t, d, "dynamodb:Query", &arn),
            "{d}: Query on {index}"
        );
    }
    // The deliveries side reads history: no secrets, no endpoint or event writes; its one
    // PutItem is the audit trail's.
    let text = serde_norway::to_string(&t["Resources"][d]["Properties"]["Policies"]).unwrap();
    for never in ["secretsmanager", "DeleteItem"] {
        assert!(!text.contains(never), "{d} policy mentions {never}");
    }
    assert_eq!(
        text.matches("PutItem").count(),
        1,
        "{d}: PutItem only on AuditTable"
    );
    // The audit trail is append-only: both admin functions PutItem, admin-endpoints also
    // Queries (GET .../audit); nobody may update or delete an item of it.
    let audit = get_att("AuditTable", "Arn");
    for (function, action, allowed) in [
        (e, "dynamodb:PutItem", true),
        (e, "dynamodb:Query", true),
        (d, "dynamodb:PutItem", true),
        (d, "dynamodb:Query", false),
    ] {
        assert_eq!(
            allows(&t, function, action, &audit),
            allowed,
            "{function}: {action} on AuditTable"
        );
    }
    for (name, _) in resources_of_type(&t, "AWS::Serverless::Function") {
        for action in [
            "dynamodb:UpdateItem",
            "dynamodb:DeleteItem",
            "dynamodb:BatchWriteItem",
        ] {
            assert!(
                !allows(&t, &name, action, &audit),
                "{name} may {action} on AuditTable"
            );
        }
    }
    let table = &t["Resources"]["AuditTable"];
    assert_eq!(table["DeletionPolicy"].as_str(), Some("Retain"));
    assert_eq!(
        table["Properties"]["DeletionProtectionEnabled"].as_bool(),
        Some(true)
    );
    assert_eq!(
        table["Properties"]["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"]
            .as_bool(),
        Some(true)
    );
    let deny = &table["Properties"]["ResourcePolicy"]["PolicyDocument"]["Statement"][0];
    assert_eq!(deny["Effect"].as_str(), Some("Deny"));
    let denied = serde_norway::to_string(&deny["Action"]).unwrap();
    for action in ["UpdateItem", "DeleteItem", "BatchWriteItem"] {
        assert!(
            denied.contains(action),
            "the resource policy lets {action} through"
        );
    }
    // Both are served with the same secret naming the deliver function reads.
    let prefix = &t["Resources"][e]["Properties"]["Environment"]["Variables"]
        [paygate_http::admin::SECRET_PREFIX_ENV];
    assert_eq!(
        intrinsic(prefix, "Sub").as_deref(),
        Some("paygate/${Stage}/webhooks/")
    );
    assert_eq!(
        intrinsic(&t["Outputs"]["WebhookSecretPrefix"]["Value"], "Sub").as_deref(),
        Some("paygate/${Stage}/webhooks/")
    );
}

#[test]
fn every_function_gets_the_table_variables_it_reads() {
    // Each function's compose builder reads these; a missing variable fails at init in AWS.
    let t = template();
    // Fan-out and deliver (paygate_compose::WebhookFanout, WebhookDeliver).
    let pipeline: &[&str] = &[
        EVENTS.env_var,
        WEBHOOK_ENDPOINTS.env_var,
        DELIVERIES.env_var,
        DELIVERIES_QUEUE.env_var,
    ];
    // The sweeper (paygate_compose::OutboxSweeper): both queues, no endpoints.
    let sweeper: &[&str] = &[
        EVENTS.env_var,
        DELIVERIES.env_var,
        EVENTS_QUEUE.env_var,
        DELIVERIES_QUEUE.env_var,
    ];
    // The admin builders (paygate_compose::AdminEndpoints, AdminDeliveries) read these.
    let admin: &[&str] = &[
        WEBHOOK_ENDPOINTS.env_var,
        DELIVERIES.env_var,
        EVENTS.env_var,
        paygate_aws::dynamo::schema::POS_ACCOUNTS.env_var,
        DELIVERIES_QUEUE.env_var,
        paygate_aws::dynamo::schema::AUDIT.env_var,
    ];
    let needs: [(&str, &[&str]); 14] = [
        ("AuthorizerFunction", &["API_KEYS_TABLE"]),
        (
            "CapturePaymentFunction",
            &[
                "IDEMPOTENCY_TABLE",
                "PAYMENTS_TABLE",
                "EVENTS_TABLE",
                "POS_ACCOUNTS_TABLE",
                "SIMBANK_TABLE",
                "EVENTS_QUEUE_URL",
                "BANK_SECRET_PREFIX",
            ],
        ),
        (
            "CancelPaymentFunction",
            &[
                "IDEMPOTENCY_TABLE",
                "PAYMENTS_TABLE",
                "EVENTS_TABLE",
                "POS_ACCOUNTS_TABLE",
                "SIMBANK_TABLE",
                "EVENTS_QUEUE_URL",
                "BANK_SECRET_PREFIX",
            ],
        ),
        (
            "RefundPaymentFunction",
            &[
                "IDEMPOTENCY_TABLE",
                "PAYMENTS_TABLE",
                "EVENTS_TABLE",
                "POS_ACCOUNTS_TABLE",
                "SIMBANK_TABLE",
                "EVENTS_QUEUE_URL",
                "BANK_SECRET_PREFIX",
            ],
        ),
        (
            "QueryPaymentFunction",
            &[
                "IDEMPOTENCY_TABLE",
                "PAYMENTS_TABLE",
                "EVENTS_TABLE",
                "POS_ACCOUNTS_TABLE",
                "SIMBANK_TABLE",
                "EVENTS_QUEUE_URL",
                "BANK_SECRET_PREFIX",
            ],
        ),
        (
            "ReconcilerFunction",
            &[
                "PAYMENTS_TABLE",
                "EVENTS_TABLE",
                "POS_ACCOUNTS_TABLE",
                "SIMBANK_TABLE",
                "EVENTS_QUEUE_URL",
                "BANK_SECRET_PREFIX",
            ],
        ),
        ("GetPaymentFunction", &["PAYMENTS_TABLE"]),
        (
            "PointsInquiryFunction",
            &[
                "POS_ACCOUNTS_TABLE",
                "BINS_TABLE",
                "SIMBANK_TABLE",
                "BANK_SECRET_PREFIX",
            ],
        ),
        (
            "TestCreatePaymentFunction",
            &[
                "IDEMPOTENCY_TABLE",
                "PAYMENTS_TABLE",
                "POS_ACCOUNTS_TABLE",
                "SIMBANK_TABLE",
                "BANK_SECRET_PREFIX",
            ],
        ),
        // What each pipeline function reads (template_rehearsal.rs: no more).
        ("WebhookFanoutFunction", pipeline),
        ("WebhookDeliverFunction", pipeline),
        ("OutboxSweeperFunction", sweeper),
        (
            "AdminEndpointsFunction",
            &[admin, &["API_KEYS_TABLE"]].concat(),
        ),
        ("AdminDeliveriesFunction", admin),
    ];
    for (function, vars) in needs {
        let env = &t["Resources"][function]["Properties"]["Environment"]["Variables"];
        for var in vars {
            assert!(!env[*var].is_null(), "{function} lacks {var}");
        }
    }
    let env = &t["Resources"]["AdminEndpointsFunction"]["Properties"]["Environment"]["Variables"];
    assert!(!env[paygate_http::admin::SECRET_PREFIX_ENV].is_null());
}

#[test]
fn table_and_queue_variables_name_their_own_resource() {
    // EVENTS_TABLE must be !Ref EventsTable, EVENTS_QUEUE_URL !Ref EventsQueue, and so on.
    let t = template();
    let mut by_var: Vec<(&str, &str)> = TABLES
        .iter()
        .map(|d: &TableDef| (d.env_var, d.logical_id))
        .collect();
    by_var.extend(QUEUES.iter().map(|q| (q.env_var, q.logical_id)));
    let mut checked = 0;
    for (function, r) in resources_of_type(&t, "AWS::Serverless::Function") {
        let env = &r["Properties"]["Environment"]["Variables"];
        for (var, logical_id) in &by_var {
            if env[*var].is_null() {
                continue;
            }
            assert_eq!(
                intrinsic(&env[*var], "Ref").as_deref(),
                Some(*logical_id),
                "{function}: {var}"
            );
            checked += 1;
        }
    }
    assert!(checked > 15, "only {checked} variables found");
}

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
    assert_eq!(schedules, ["rate(1 minute)"]);
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

#[test]
fn bank_calling_functions_outlive_three_bank_calls_inside_api_gateways_limit() {
    // An operation makes at most three bank calls; API Gateway gives an integration 30 s.
    let t = template();
    let per_call = paygate_bankkit::transport::DEFAULT_TIMEOUT.as_secs();
    for f in [
        "CapturePaymentFunction",
        "CancelPaymentFunction",
        "RefundPaymentFunction",
        "QueryPaymentFunction",
        "PointsInquiryFunction",
        "TestCreatePaymentFunction",
    ] {
        let timeout = t["Resources"][f]["Properties"]["Timeout"]
            .as_u64()
            .unwrap_or_else(|| panic!("{f} sets its own Timeout"));
        assert!(
            timeout > 3 * per_call,
            "{f}: {timeout} s for three {per_call} s bank calls"
        );
        assert!(timeout < 30, "{f}: {timeout} s is past API Gateway's 30 s");
    }
}
