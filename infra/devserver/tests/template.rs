//! The local stack and `template.yaml` cannot drift: the tables the dev server creates come
//! from `paygate_dynamo::schema::TABLES`, the routes it serves are `router::ROUTE_KEYS`, and
//! this test holds both equal to what the template deploys.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;

use paygate_dynamo::schema::TABLES;
use serde_norway::Value;

fn template() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../template.yaml");
    serde_norway::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn s(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_owned()
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
        "tables in template.yaml vs paygate_dynamo::schema::TABLES"
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
    let local: BTreeSet<String> = paygate_devserver::router::ROUTE_KEYS
        .iter()
        .map(|k| (*k).to_owned())
        .collect();
    assert_eq!(deployed, local);
}

#[test]
fn every_function_gets_the_table_variables_it_reads() {
    // Each function's Deps::from_env reads these; a missing variable fails at init in AWS.
    let t = template();
    let needs: [(&str, &[&str]); 8] = [
        ("AuthorizerFunction", &["API_KEYS_TABLE"]),
        (
            "CapturePaymentFunction",
            &[
                "PAYMENTS_TABLE",
                "EVENTS_TABLE",
                "POS_ACCOUNTS_TABLE",
                "SIMBANK_TABLE",
                "EVENTS_QUEUE_URL",
            ],
        ),
        (
            "CancelPaymentFunction",
            &[
                "PAYMENTS_TABLE",
                "EVENTS_TABLE",
                "POS_ACCOUNTS_TABLE",
                "SIMBANK_TABLE",
                "EVENTS_QUEUE_URL",
            ],
        ),
        (
            "RefundPaymentFunction",
            &[
                "PAYMENTS_TABLE",
                "EVENTS_TABLE",
                "POS_ACCOUNTS_TABLE",
                "SIMBANK_TABLE",
                "EVENTS_QUEUE_URL",
            ],
        ),
        (
            "QueryPaymentFunction",
            &[
                "PAYMENTS_TABLE",
                "EVENTS_TABLE",
                "POS_ACCOUNTS_TABLE",
                "SIMBANK_TABLE",
                "EVENTS_QUEUE_URL",
            ],
        ),
        ("GetPaymentFunction", &["PAYMENTS_TABLE"]),
        (
            "PointsInquiryFunction",
            &["POS_ACCOUNTS_TABLE", "BINS_TABLE", "SIMBANK_TABLE"],
        ),
        (
            "TestCreatePaymentFunction",
            &["PAYMENTS_TABLE", "POS_ACCOUNTS_TABLE", "SIMBANK_TABLE"],
        ),
    ];
    for (function, vars) in needs {
        let env = &t["Resources"][function]["Properties"]["Environment"]["Variables"];
        for var in vars {
            assert!(!env[*var].is_null(), "{function} lacks {var}");
        }
    }
}
