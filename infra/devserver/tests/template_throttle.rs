//! `template.yaml` against the code for per-API-key throttling: every function behind a
//! merchant route (and only those) gets the throttle table with exactly the one call the
//! counter makes, the limits' parameters default to the code's defaults and reach the
//! functions under the variables the builders read.
//! Also the production posture against floods and deletion: API stage throttling and
//! access logs, reserved concurrency, capped SQS mappings, retained tables, log groups.

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

/// Points inquiry's merchant and card limits reach the points function only, under the
/// variables the builder reads, with the code's defaults; the card key's secret is generated
/// by the stack and only the points function may read it (one action, that secret only).
#[test]
fn the_points_merchant_and_card_limits_and_the_card_key_reach_the_points_function_only() {
    let t = template();
    let d = Limits::default();
    let points = &t["Resources"]["PointsInquiryFunction"]["Properties"]["Environment"]["Variables"];
    for (var, param, default) in [
        (
            paygate_compose::POINTS_MERCHANT_THROTTLE_BURST_ENV,
            "PointsMerchantThrottleBurst",
            d.points_merchant.burst,
        ),
        (
            paygate_compose::POINTS_MERCHANT_THROTTLE_PER_MINUTE_ENV,
            "PointsMerchantThrottlePerMinute",
            d.points_merchant.per_minute,
        ),
        (
            paygate_compose::POINTS_CARD_THROTTLE_PER_MINUTE_ENV,
            "PointsCardThrottlePerMinute",
            d.points_card.per_minute,
        ),
        (
            paygate_compose::POINTS_CARD_THROTTLE_PER_HOUR_ENV,
            "PointsCardThrottlePerHour",
            d.points_card.per_hour,
        ),
    ] {
        assert_eq!(
            intrinsic(&points[var], "Ref").as_deref(),
            Some(param),
            "{var}"
        );
        let p = &t["Parameters"][param];
        assert_eq!(p["Default"].as_u64(), Some(u64::from(default)), "{param}");
        assert_eq!(p["MinValue"].as_u64(), Some(1), "{param}");
    }
    assert_eq!(
        intrinsic(&points[paygate_compose::CARD_KEY_SECRET_ENV], "Ref").as_deref(),
        Some("CardKeySecret")
    );
    let secret = &t["Resources"]["CardKeySecret"];
    assert_eq!(s(&secret["Type"]), "AWS::SecretsManager::Secret");
    let generated = &secret["Properties"]["GenerateSecretString"];
    // At least the 32 bytes the key needs (paygate_domain::throttle::card::MIN_KEY_BYTES).
    assert!(generated["PasswordLength"].as_u64().unwrap() >= 32);
    let secret_ref: Value = serde_norway::from_str("!Ref CardKeySecret").unwrap();
    for (function, _) in resources_of_type(&t, "AWS::Serverless::Function") {
        let on_key: Vec<Value> = statements(&t, &function)
            .into_iter()
            .filter(|st| st["Resource"] == secret_ref)
            .collect();
        let env = &t["Resources"][function.as_str()]["Properties"]["Environment"]["Variables"];
        if function == "PointsInquiryFunction" {
            assert_eq!(on_key.len(), 1, "{function}");
            assert_eq!(s(&on_key[0]["Action"]), "secretsmanager:GetSecretValue");
        } else {
            assert!(on_key.is_empty(), "{function} may read the card key");
            for var in [
                paygate_compose::CARD_KEY_SECRET_ENV,
                paygate_compose::POINTS_CARD_THROTTLE_PER_HOUR_ENV,
            ] {
                assert!(env[var].is_null(), "{function}: {var}");
            }
        }
    }
    // Refusals by a card's limit have their own alarm.
    let alarm = &t["Resources"]["PointsCardThrottledAlarm"]["Properties"];
    assert_eq!(s(&alarm["MetricName"]), "ThrottledRequests");
    assert!(alarm["Dimensions"]
        .as_sequence()
        .unwrap()
        .iter()
        .any(|d| s(&d["Name"]) == "Scope"
            && s(&d["Value"]) == paygate_domain::throttle::Scope::PointsCard.as_str()));
}

/// A parameter's default, which must exist and be at least `min`.
fn default_at_least(t: &Value, param: &str, min: u64) -> u64 {
    let d = t["Parameters"][param]["Default"].as_u64();
    assert!(d.is_some_and(|d| d >= min), "{param}: {d:?}");
    d.unwrap()
}

#[test]
fn a_flood_cannot_starve_the_money_functions_and_every_request_is_logged() {
    let t = template();
    // Stage throttling on every route, and access logs without headers or body.
    let api = &t["Resources"]["PaygateApi"]["Properties"];
    let route = &api["DefaultRouteSettings"];
    for (prop, param) in [
        ("ThrottlingBurstLimit", "ApiThrottleBurstLimit"),
        ("ThrottlingRateLimit", "ApiThrottleRateLimit"),
    ] {
        assert_eq!(intrinsic(&route[prop], "Ref").as_deref(), Some(param));
        default_at_least(&t, param, 1);
    }
    let logs = &api["AccessLogSettings"];
    assert_eq!(logs["DestinationArn"], get_att("ApiAccessLogGroup", "Arn"));
    let format: serde_json::Value = serde_json::from_str(&s(&logs["Format"])).unwrap();
    assert!(format["requestId"].is_string(), "{format}");
    let lower = s(&logs["Format"]).to_lowercase();
    for banned in ["authorization", "header", "body", "querystring"] {
        assert!(!lower.contains(banned), "access log has {banned}");
    }
    let group = &t["Resources"]["ApiAccessLogGroup"];
    assert_eq!(s(&group["Type"]), "AWS::Logs::LogGroup");
    assert_eq!(
        intrinsic(&group["Properties"]["RetentionInDays"], "Ref").as_deref(),
        Some("LogRetentionDays")
    );

    // Reserved concurrency: a floor for the money, points and authorizer functions.
    for (function, param) in [
        ("CapturePaymentFunction", "MoneyReservedConcurrency"),
        ("CancelPaymentFunction", "MoneyReservedConcurrency"),
        ("RefundPaymentFunction", "MoneyReservedConcurrency"),
        ("QueryPaymentFunction", "MoneyReservedConcurrency"),
        ("PointsInquiryFunction", "PointsReservedConcurrency"),
        ("AuthorizerFunction", "AuthorizerReservedConcurrency"),
    ] {
        let p = &t["Resources"][function]["Properties"];
        assert_eq!(
            intrinsic(&p["ReservedConcurrentExecutions"], "Ref").as_deref(),
            Some(param),
            "{function}"
        );
        default_at_least(&t, param, 1);
    }

    // Every SQS mapping is capped (SQS allows 2 at least).
    let mappings = resources_of_type(&t, "AWS::Lambda::EventSourceMapping");
    assert!(!mappings.is_empty());
    for (mapping, r) in mappings {
        let max = &r["Properties"]["ScalingConfig"]["MaximumConcurrency"];
        assert_eq!(
            intrinsic(max, "Ref").as_deref(),
            Some("QueueMaximumConcurrency"),
            "{mapping}"
        );
    }
    default_at_least(&t, "QueueMaximumConcurrency", 2);
    assert_eq!(
        t["Parameters"]["QueueMaximumConcurrency"]["MinValue"].as_u64(),
        Some(2)
    );
}

#[test]
fn every_state_table_is_retained_and_every_function_has_a_log_group_with_retention() {
    let t = template();
    // Throttle counters are the one table that holds nothing worth keeping (TTL of minutes).
    for (table, r) in resources_of_type(&t, "AWS::DynamoDB::Table") {
        if table == THROTTLE.logical_id {
            continue;
        }
        assert_eq!(s(&r["DeletionPolicy"]), "Retain", "{table}");
        assert_eq!(s(&r["UpdateReplacePolicy"]), "Retain", "{table}");
        assert_eq!(
            r["Properties"]["DeletionProtectionEnabled"].as_bool(),
            Some(true),
            "{table}"
        );
    }
    let groups: Vec<(String, &Value)> = resources_of_type(&t, "AWS::Logs::LogGroup");
    for (function, _) in resources_of_type(&t, "AWS::Serverless::Function") {
        let name = format!("/aws/lambda/${{{function}}}");
        let found: Vec<&String> = groups
            .iter()
            .filter(|(_, g)| {
                intrinsic(&g["Properties"]["LogGroupName"], "Sub").as_deref() == Some(&name)
            })
            .map(|(id, g)| {
                assert_eq!(
                    intrinsic(&g["Properties"]["RetentionInDays"], "Ref").as_deref(),
                    Some("LogRetentionDays"),
                    "{id}"
                );
                id
            })
            .collect();
        assert_eq!(found.len(), 1, "{function}: {found:?}");
    }
    default_at_least(&t, "LogRetentionDays", 1);
}
