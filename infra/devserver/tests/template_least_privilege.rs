//! `template.yaml` grants a function only what its code does with a resource: the
//! authorizer may update an API key's `lastUsedAt` and nothing else of it; the test helper
//! may read the bank credentials of test-mode accounts only (secrets tagged
//! `paygate:mode=test`).
//!
//! (The template helpers are in `support/`.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_norway::Value;
use support::{get_att, statements, template};

/// The statements of `function` that allow `action` on `resource`.
fn granting(t: &Value, function: &str, action: &str, resource: &Value) -> Vec<Value> {
    let as_list = |v: &Value| -> Vec<Value> {
        match v.as_sequence() {
            Some(seq) if !matches!(v, Value::Tagged(_)) => seq.clone(),
            _ => vec![v.clone()],
        }
    };
    statements(t, function)
        .into_iter()
        .filter(|st| {
            st["Effect"].as_str() == Some("Allow")
                && as_list(&st["Action"])
                    .iter()
                    .any(|a| a.as_str() == Some(action) || a.as_str() == Some("dynamodb:*"))
                && as_list(&st["Resource"]).contains(resource)
        })
        .collect()
}

fn strings(v: &Value) -> Vec<String> {
    match v.as_sequence() {
        Some(seq) => seq.iter().map(|s| s.as_str().unwrap().to_owned()).collect(),
        None => vec![v.as_str().unwrap().to_owned()],
    }
}

#[test]
fn the_authorizer_updates_only_an_api_keys_last_used_time() {
    let t = template();
    let table = get_att("ApiKeysTable", "Arn");
    // GetItem (find_key) as before
    assert_eq!(
        granting(&t, "AuthorizerFunction", "dynamodb:GetItem", &table).len(),
        1
    );
    // UpdateItem: one statement, limited to the key and lastUsedAt (what
    // paygate_aws::dynamo::DynamoApiKeys::touch_key names), returning nothing
    let updates = granting(&t, "AuthorizerFunction", "dynamodb:UpdateItem", &table);
    assert_eq!(updates.len(), 1, "{updates:?}");
    let condition = &updates[0]["Condition"];
    let mut attrs = strings(&condition["ForAllValues:StringEquals"]["dynamodb:Attributes"]);
    attrs.sort();
    assert_eq!(attrs, ["keyHash", "lastUsedAt"]);
    assert_eq!(
        strings(&condition["StringEqualsIfExists"]["dynamodb:ReturnValues"]),
        ["NONE"]
    );
    // AND nothing else of the table may be written by it
    for action in [
        "dynamodb:PutItem",
        "dynamodb:DeleteItem",
        "dynamodb:BatchWriteItem",
    ] {
        assert!(
            granting(&t, "AuthorizerFunction", action, &table).is_empty(),
            "{action}"
        );
    }
}

#[test]
fn the_test_helper_reads_only_test_mode_bank_credentials() {
    let t = template();
    let reads: Vec<Value> = statements(&t, "TestCreatePaymentFunction")
        .into_iter()
        .filter(|st| {
            st["Effect"].as_str() == Some("Allow")
                && strings(&st["Action"])
                    .iter()
                    .any(|a| a.starts_with("secretsmanager:"))
        })
        .collect();
    assert_eq!(reads.len(), 1, "{reads:?}");
    assert_eq!(
        strings(&reads[0]["Action"]),
        ["secretsmanager:GetSecretValue"]
    );
    assert_eq!(
        reads[0]["Condition"]["StringEquals"]["secretsmanager:ResourceTag/paygate:mode"].as_str(),
        Some("test"),
        "the test helper may read live bank credentials"
    );
}
