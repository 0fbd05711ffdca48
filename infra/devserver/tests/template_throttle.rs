//! `template.yaml` against the code for per-API-key throttling: every function behind a
//! merchant route (and only those) gets the throttle table with exactly the one call the
//! counter makes, the limits' parameters default to the code's defaults and reach the
//! functions under the variables the builders read.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeSet;

use paygate_aws::dynamo::schema::THROTTLE;
use paygate_domain::throttle::Limits;
use serde_norway::Value;
use support::{get_att, http_events, intrinsic, resources_of_type, s, statements, template};

#[test]
fn every_merchant_route_function_and_only_those_count_in_the_throttle_table() {
    let t = template();
    let merchant: BTreeSet<String> = http_events(&t)
        .into_iter()
        .filter(|(_, key, _)| key.contains(" /v1/"))
        .map(|(function, _, _)| function)
        .collect();
    assert_eq!(merchant.len(), 7, "{merchant:?}");
    let table = get_att(THROTTLE.logical_id, "Arn");
    for (function, r) in resources_of_type(&t, "AWS::Serverless::Function") {
        let env = &r["Properties"]["Environment"]["Variables"];
        let on_table: Vec<Value> = statements(&t, &function)
            .into_iter()
            .filter(|st| st["Resource"] == table)
            .collect();
        if merchant.contains(&function) {
            assert_eq!(
                intrinsic(&env[THROTTLE.env_var], "Ref").as_deref(),
                Some(THROTTLE.logical_id),
                "{function}"
            );
            // Least privilege: one statement, UpdateItem only.
            assert_eq!(on_table.len(), 1, "{function}");
            assert_eq!(
                s(&on_table[0]["Action"]),
                "dynamodb:UpdateItem",
                "{function}"
            );
            assert_eq!(s(&on_table[0]["Effect"]), "Allow", "{function}");
        } else {
            assert!(env[THROTTLE.env_var].is_null(), "{function}");
            assert!(on_table.is_empty(), "{function}");
        }
    }
}

#[test]
fn the_limit_parameters_default_to_the_code_and_reach_every_function() {
    let t = template();
    let d = Limits::default();
    let globals = &t["Globals"]["Function"]["Environment"]["Variables"];
    for (var, param, default) in [
        (
            paygate_compose::THROTTLE_BURST_ENV,
            "ThrottleBurst",
            d.api.burst,
        ),
        (
            paygate_compose::THROTTLE_PER_MINUTE_ENV,
            "ThrottlePerMinute",
            d.api.per_minute,
        ),
        (
            paygate_compose::POINTS_THROTTLE_BURST_ENV,
            "PointsThrottleBurst",
            d.points.burst,
        ),
        (
            paygate_compose::POINTS_THROTTLE_PER_MINUTE_ENV,
            "PointsThrottlePerMinute",
            d.points.per_minute,
        ),
    ] {
        assert_eq!(
            intrinsic(&globals[var], "Ref").as_deref(),
            Some(param),
            "{var}"
        );
        let p = &t["Parameters"][param];
        assert_eq!(p["Default"].as_u64(), Some(u64::from(default)), "{param}");
        assert_eq!(p["MinValue"].as_u64(), Some(1), "{param}");
    }
}
