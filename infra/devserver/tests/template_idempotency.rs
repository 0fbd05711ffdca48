//! `template.yaml` against the code, for the tables' TTL and the `Idempotency-Key` records:
//! every table the code gives a TTL attribute has TTL enabled on it (and no other), every
//! merchant POST function but points inquiry (and only those) gets the idempotency table with
//! exactly the calls the adapter makes, and a key's lease outlives the functions that take one.
//!
//! (Split from `template.rs`, which holds the other drift checks; the template helpers are
//! in `support/`.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeSet;

use paygate_aws::dynamo::schema::{IDEMPOTENCY, TABLES};
use serde_norway::Value;
use support::{
    allows, get_att, http_events, intrinsic, resources_of_type, s, statements, template,
    timeout_secs,
};

#[test]
fn tables_with_a_ttl_attribute_have_ttl_enabled_on_it() {
    let t = template();
    for def in TABLES {
        let ttl = &t["Resources"][def.logical_id]["Properties"]["TimeToLiveSpecification"];
        match def.ttl_attribute {
            Some(attr) => {
                assert_eq!(
                    ttl["AttributeName"].as_str(),
                    Some(attr),
                    "{}",
                    def.logical_id
                );
                assert_eq!(ttl["Enabled"].as_bool(), Some(true), "{}", def.logical_id);
            }
            None => assert!(
                ttl.is_null(),
                "{} has a TTL the code does not know",
                def.logical_id
            ),
        }
    }
    assert_eq!(IDEMPOTENCY.ttl_attribute, Some("expiresAt"));
}

/// The functions behind the merchant POST routes but points inquiry: each runs under
/// `Idempotency-Key`.
const IDEMPOTENT_FUNCTIONS: [&str; 5] = [
    "CapturePaymentFunction",
    "CancelPaymentFunction",
    "RefundPaymentFunction",
    "QueryPaymentFunction",
    "TestCreatePaymentFunction",
];

/// Points inquiry takes no part in idempotency (a read; a record would keep a digest of the
/// card): it must not even be able to reach the table.
const POINTS_FUNCTION: &str = "PointsInquiryFunction";

#[test]
fn every_merchant_post_function_and_only_those_reach_the_idempotency_table() {
    let t = template();
    // Every merchant POST route is served by one of them.
    for (function, key, _) in http_events(&t) {
        if key.starts_with("POST /v1/") {
            assert!(
                IDEMPOTENT_FUNCTIONS.contains(&function.as_str()) || function == POINTS_FUNCTION,
                "{key}: {function}"
            );
        }
    }
    let table = get_att(IDEMPOTENCY.logical_id, "Arn");
    let actions = [
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:DeleteItem",
    ];
    for (function, r) in resources_of_type(&t, "AWS::Serverless::Function") {
        let env = &r["Properties"]["Environment"]["Variables"];
        let policy = serde_norway::to_string(&r["Properties"]["Policies"]).unwrap();
        if IDEMPOTENT_FUNCTIONS.contains(&function.as_str()) {
            assert_eq!(
                intrinsic(&env[IDEMPOTENCY.env_var], "Ref").as_deref(),
                Some(IDEMPOTENCY.logical_id),
                "{function}"
            );
            for action in actions {
                assert!(
                    allows(&t, &function, action, &table),
                    "{function}: {action}"
                );
            }
            // Least privilege: exactly those four calls on the table, nothing else.
            let statements: Vec<Value> = statements(&t, &function)
                .into_iter()
                .filter(|st| st["Resource"] == table)
                .collect();
            assert_eq!(statements.len(), 1, "{function}");
            let granted: BTreeSet<String> = statements[0]["Action"]
                .as_sequence()
                .unwrap()
                .iter()
                .map(s)
                .collect();
            let expected: BTreeSet<String> = actions.iter().map(|a| (*a).to_owned()).collect();
            assert_eq!(granted, expected, "{function}");
        } else {
            assert!(env[IDEMPOTENCY.env_var].is_null(), "{function}");
            assert!(!policy.contains(IDEMPOTENCY.logical_id), "{function}");
        }
    }
}

#[test]
fn an_idempotency_lease_outlives_every_function_that_takes_one() {
    // A key whose lease is over may be taken over: its request must be over by then.
    let t = template();
    let lease_secs = u64::try_from(paygate_domain::idempotency::LEASE_MS / 1000).unwrap();
    for f in IDEMPOTENT_FUNCTIONS {
        let timeout = timeout_secs(&t, f);
        assert!(
            timeout < lease_secs,
            "{f}: runs {timeout} s, lease {lease_secs} s"
        );
    }
}
