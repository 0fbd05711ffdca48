//! `template.yaml` against the code for the stale in-flight threshold: the `StaleInFlightMs`
//! parameter defaults to the code's default, its bounds are the code's at the default bank
//! timeout, and it reaches exactly the functions that write payments (every write decides a
//! payment's `reconcileAt` from it), under the variable the builders read.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use paygate_aws::dynamo::schema::PAYMENTS;
use paygate_domain::StaleAfter;
use support::{allows, get_att, intrinsic, resources_of_type, template};

#[test]
fn the_parameter_defaults_to_the_code_and_is_bounded_like_the_builders() {
    let t = template();
    let p = &t["Parameters"]["StaleInFlightMs"];
    assert_eq!(p["Type"].as_str(), Some("Number"));
    assert_eq!(
        p["Default"].as_i64(),
        Some(StaleAfter::DEFAULT.millis()),
        "default"
    );
    // The template sets no bank timeout: the functions run with the default, and the
    // threshold must exceed what that allows an operation.
    let min = paygate_compose::min_stale_in_flight(paygate_compose::bank_work(
        paygate_bankkit::transport::DEFAULT_TIMEOUT,
    ));
    assert_eq!(
        p["MinValue"].as_u64(),
        Some(u64::try_from(min.as_millis()).unwrap() + 1),
        "MinValue"
    );
    assert_eq!(
        p["MaxValue"].as_u64(),
        Some(paygate_compose::MAX_STALE_IN_FLIGHT_MS),
        "MaxValue"
    );
    for ms in [
        p["MinValue"].as_u64().unwrap(),
        p["MaxValue"].as_u64().unwrap(),
    ] {
        let stale = StaleAfter::from_millis(ms).unwrap();
        let work = paygate_compose::bank_work(paygate_bankkit::transport::DEFAULT_TIMEOUT);
        paygate_compose::check_stale_after(stale, work).unwrap();
    }
}

#[test]
fn every_function_that_writes_payments_and_only_those_gets_the_threshold() {
    let t = template();
    let table = get_att(PAYMENTS.logical_id, "Arn");
    let mut writers = Vec::new();
    for (function, r) in resources_of_type(&t, "AWS::Serverless::Function") {
        let env = &r["Properties"]["Environment"]["Variables"];
        let var = &env[paygate_compose::STALE_IN_FLIGHT_ENV];
        if allows(&t, &function, "dynamodb:PutItem", &table) {
            assert_eq!(
                intrinsic(var, "Ref").as_deref(),
                Some("StaleInFlightMs"),
                "{function}"
            );
            writers.push(function);
        } else {
            assert!(var.is_null(), "{function} writes no payment");
        }
    }
    writers.sort();
    assert_eq!(
        writers,
        [
            "CancelPaymentFunction",
            "CapturePaymentFunction",
            "QueryPaymentFunction",
            "ReconcilerFunction",
            "RefundPaymentFunction",
            "TestCreatePaymentFunction",
        ]
    );
    // Not a global: the other functions never read it.
    assert!(t["Globals"]["Function"]["Environment"]["Variables"]
        [paygate_compose::STALE_IN_FLIGHT_ENV]
        .is_null());
}

#[test]
fn the_pending_grace_defaults_to_the_code_and_reaches_the_functions_that_finalize() {
    let t = template();
    let p = &t["Parameters"]["PendingNotFoundGraceMs"];
    assert_eq!(p["Type"].as_str(), Some("Number"));
    assert_eq!(
        p["Default"].as_i64(),
        Some(paygate_domain::PendingGrace::DEFAULT.millis())
    );
    assert_eq!(
        p["MinValue"].as_u64(),
        Some(paygate_compose::MIN_PENDING_NOT_FOUND_GRACE_MS)
    );
    assert_eq!(
        p["MaxValue"].as_u64(),
        Some(paygate_compose::MAX_PENDING_NOT_FOUND_GRACE_MS)
    );
    let mut given = Vec::new();
    for (function, r) in resources_of_type(&t, "AWS::Serverless::Function") {
        let var = &r["Properties"]["Environment"]["Variables"]
            [paygate_compose::PENDING_NOT_FOUND_GRACE_ENV];
        if !var.is_null() {
            assert_eq!(
                intrinsic(var, "Ref").as_deref(),
                Some("PendingNotFoundGraceMs"),
                "{function}"
            );
            given.push(function);
        }
    }
    given.sort();
    // The functions that finalize pending payments (query and the reconciler); the other
    // money functions build with the default and never use it.
    assert_eq!(given, ["QueryPaymentFunction", "ReconcilerFunction"]);
}
