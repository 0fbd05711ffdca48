//! The local stack and `template.yaml` cannot drift: the tables the dev server creates come
//! from `paygate_aws::dynamo::schema::TABLES`, the queues from `paygate_aws::sqs::QUEUES`, the routes
//! it serves are `router::ROUTE_KEYS`, and this test holds them equal to what the template
//! deploys. It also checks the wiring the functions rely on at init and under SQS.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

/// The queues, their consumers and the schedules.
#[path = "template/queues.rs"]
mod queues;
mod support;

use std::collections::BTreeSet;

use paygate_aws::dynamo::schema::{TableDef, DELIVERIES, EVENTS, TABLES, WEBHOOK_ENDPOINTS};
use paygate_aws::sqs::{DELIVERIES_QUEUE, EVENTS_QUEUE, QUEUES};
use serde_norway::Value;
use support::{allows, get_att, http_events, intrinsic, resources_of_type, s, template};

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
