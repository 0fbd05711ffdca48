//! Every admin write leaves exactly one audit record, whoever calls and however it ends; a
//! write whose record cannot be written first changes nothing; no secret reaches a record;
//! the trail reads newest first in pages.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;

use lambda_http::{
    aws_lambda_events::apigw::{
        ApiGatewayRequestAuthorizer, ApiGatewayRequestAuthorizerIamDescription,
        ApiGatewayV2httpRequestContext,
    },
    request::RequestContext,
    Body, Request, RequestExt, Response,
};
use paygate_domain::{
    audit::AuditOutcome,
    ports::{DeliveryStore, EndpointReader},
    webhook::{Attempt, RetrySchedule},
    DeliveryId, MerchantId,
};
use serde_json::{json, Value};

use super::*;
use crate::admin::{
    fixture::{obj, World, M1, M2},
    http::{handle_deliveries, handle_endpoints},
    routes::{AdminFunction, ROUTES},
};

const ARN: &str = "arn:aws:sts::123456789012:assumed-role/EndpointOperator/alice";

/// A request as API Gateway hands it over: route key, path parameters, the IAM caller and
/// a request id.
fn request(
    route: AdminRoute,
    params: &[(&str, &str)],
    query: &str,
    body: Option<Value>,
) -> Request {
    let mut path = route.path().to_owned();
    for (k, v) in params {
        path = path.replace(&format!("{{{k}}}"), v);
    }
    let req = lambda_http::http::Request::builder()
        .method(route.method())
        .uri(format!("{path}{query}"))
        .header("content-type", "application/json")
        .body(body.map_or(Body::Empty, |v| Body::Text(v.to_string())))
        .unwrap();
    let mut iam = ApiGatewayRequestAuthorizerIamDescription::default();
    iam.user_arn = Some(ARN.into());
    iam.caller_id = Some("AROAEXAMPLE:alice".into());
    let mut authorizer = ApiGatewayRequestAuthorizer::default();
    authorizer.iam = Some(iam);
    let mut ctx = ApiGatewayV2httpRequestContext::default();
    ctx.route_key = Some(route.key());
    ctx.request_id = Some(format!("req-{}", route.key().len()));
    ctx.authorizer = Some(authorizer);
    let params: HashMap<String, String> = params
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    req.with_path_parameters(params)
        .with_request_context(RequestContext::ApiGatewayV2(ctx))
}

async fn call(w: &World, req: Request) -> Response<Body> {
    let route = crate::admin::http::resolve(&req).unwrap().0;
    match route.function() {
        AdminFunction::Endpoints => handle_endpoints(&w.endpoints_deps(), req).await,
        AdminFunction::Deliveries => handle_deliveries(&w.deliveries_deps(), req).await,
    }
}

fn json_of(resp: &Response<Body>) -> Value {
    match resp.body() {
        Body::Text(t) => serde_json::from_str(t).unwrap(),
        other => panic!("not a text body: {other:?}"),
    }
}

/// What each route is called with: its path parameters and body, for a request that
/// succeeds in the world [`prepared`] makes. A new route fails to compile here until it is
/// given one, and then the table test below holds it to the audit rule.
fn sample(route: AdminRoute, ids: &Ids) -> (Vec<(&'static str, String)>, Option<Value>) {
    let m = ("merchantId", M1.to_owned());
    let e = ("endpointId", ids.endpoint.clone());
    let k = ("keyId", ids.key.clone());
    use AdminRoute as R;
    match route {
        R::CreateEndpoint => (
            vec![m],
            Some(
                json!({"url": "https://hooks.example.com/pg?token=s3cr3t", "events": ["*"], "mode": "test", "description": "ops"}),
            ),
        ),
        R::ListEndpoints | R::ListApiKeys | R::ListAudit | R::ListReconciliations => {
            (vec![m], None)
        }
        R::GetEndpoint | R::EndpointHealth | R::ListEndpointDeliveries => (vec![m, e], None),
        R::UpdateEndpoint => (vec![m, e], Some(json!({"enabled": false}))),
        R::DeleteEndpoint => (vec![m, e], None),
        R::RotateSecret => (vec![m, e], Some(json!({"graceSeconds": 60}))),
        R::SendTestEvent => (vec![m, e], Some(json!({}))),
        R::RecoverDeliveries => (vec![m, e], Some(json!({"since": "2026-11-21T08:00:00Z"}))),
        R::GetDelivery => (vec![m, ("deliveryId", ids.delivery.clone())], None),
        R::ResendDelivery => (
            vec![m, ("deliveryId", ids.delivery.clone())],
            Some(json!({})),
        ),
        R::ListEventDeliveries => (vec![m, ("eventId", ids.event.clone())], None),
        R::CreateApiKey => (vec![m], Some(json!({"mode": "live", "name": "till 3"}))),
        R::RollApiKey => (vec![m, k], Some(json!({"expiresInHours": 2}))),
        R::RevokeApiKey => (vec![m, k], None),
        R::GetPayment => (vec![m, ("paymentId", ids.payment.clone())], None),
    }
}

struct Ids {
    endpoint: String,
    delivery: String,
    event: String,
    key: String,
    payment: String,
}

/// M1 with an endpoint, a delivered test event and an API key, made around the handlers
/// (so that nothing is recorded yet).
async fn prepared() -> (World, Ids) {
    let w = World::new();
    let (endpoint, _) = w.create(M1, json!(["*"])).await;
    let d = crate::admin::endpoints::send_test(&w.endpoints_deps(), M1, &endpoint, &obj(json!({})))
        .await
        .unwrap();
    let id = DeliveryId::parse(&d.id).unwrap();
    let before = w.deliveries.get_delivery(&id).await.unwrap().unwrap();
    let a = Attempt {
        delivery_id: id.clone(),
        number: 1,
        at: w.now(),
        duration_ms: 5,
        status_code: Some(200),
        error: None,
        response_body: String::new(),
        succeeded: true,
    };
    let after = before
        .after_attempt(&a, &RetrySchedule::parse("1s").unwrap())
        .delivery;
    assert!(w.deliveries.record_attempt(&a, &after).await.unwrap());
    let key = crate::admin::keys::create(&w.endpoints_deps(), M1, &obj(json!({"mode": "test"})))
        .await
        .unwrap();
    let payment = paygate_domain::Payment::created(
        paygate_domain::payment::CreatedPayment {
            id: paygate_domain::PaymentId::parse("pay_audit").unwrap(),
            merchant_id: MerchantId::parse(M1).unwrap(),
            mode: paygate_domain::Mode::Live,
            account_id: paygate_domain::AccountId::parse("acc_1").unwrap(),
            order_id: "ORD-1".into(),
            currency: paygate_domain::Currency::Try,
            amount: 1_000,
            status: paygate_domain::PaymentStatus::Authorized,
        },
        w.now(),
    );
    w.outbox.insert(payment);
    let ids = Ids {
        endpoint,
        delivery: d.id,
        event: d.event_id,
        key: key.key.id,
        payment: "pay_audit".into(),
    };
    assert!(w.audit.items().is_empty());
    (w, ids)
}

#[tokio::test]
async fn every_admin_write_leaves_exactly_one_record_and_a_read_none() {
    let mut writes = 0;
    for route in ROUTES {
        let (w, ids) = prepared().await;
        let (params, body) = sample(route, &ids);
        let params: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let query = if route == AdminRoute::ListReconciliations {
            "?date=2026-11-26"
        } else {
            ""
        };
        let resp = call(&w, request(route, &params, query, body)).await;
        let status = resp.status().as_u16();
        assert!(
            (200..300).contains(&status),
            "{}: {status} {}",
            route.key(),
            json_of(&resp)
        );
        let records = w.audit.records();
        let Some(action) = route.action() else {
            assert!(
                records.is_empty(),
                "{}: a read recorded {records:?}",
                route.key()
            );
            continue;
        };
        writes += 1;
        assert_eq!(records.len(), 1, "{}: {records:?}", route.key());
        let r = &records[0];
        assert_eq!(r.intent.action, action);
        assert_eq!(r.intent.principal, ARN);
        assert_eq!(r.intent.merchant_id.as_str(), M1);
        assert_eq!(r.intent.request_id, format!("req-{}", route.key().len()));
        assert_eq!(r.intent.at, w.now());
        assert_eq!(
            (r.outcome, r.status),
            (AuditOutcome::Succeeded, Some(status))
        );
        for (k, v) in params.iter().filter(|(k, _)| *k != "merchantId") {
            assert_eq!(
                r.intent.targets.get(*k).map(String::as_str),
                Some(*v),
                "{}",
                route.key()
            );
        }
        assert!(r.intent.mode.is_some(), "{}: no mode in {r:?}", route.key());
    }
    assert_eq!(writes, 10);
}

#[tokio::test]
async fn a_refused_write_is_recorded_with_its_code() {
    let (w, _) = prepared().await;
    let resp = call(
        &w,
        request(
            AdminRoute::UpdateEndpoint,
            &[("merchantId", M2), ("endpointId", "whe_nope")],
            "",
            Some(json!({"enabled": true})),
        ),
    )
    .await;
    assert_eq!(resp.status().as_u16(), 404);
    let records = w.audit.records();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].intent.merchant_id.as_str(), M2);
    assert_eq!(
        (records[0].outcome, records[0].error_code.as_deref()),
        (AuditOutcome::Rejected, Some("not_found"))
    );
}

#[tokio::test]
async fn a_write_whose_record_cannot_be_written_changes_nothing() {
    let w = World::new();
    w.audit.fail_appends(true);
    let resp = call(
        &w,
        request(
            AdminRoute::CreateEndpoint,
            &[("merchantId", M1)],
            "",
            Some(json!({"url": "https://hooks.example.com/pg", "events": ["*"], "mode": "test"})),
        ),
    )
    .await;
    assert_eq!(resp.status().as_u16(), 503);
    assert_eq!(resp.headers()["retry-after"], "1");
    assert_eq!(json_of(&resp)["error"]["code"], "audit_unavailable");
    let m1 = MerchantId::parse(M1).unwrap();
    assert!(w.endpoints.list_endpoints(&m1).await.unwrap().is_empty());
    assert!(w.vault.ids().is_empty());
    // a read does not need the trail
    let resp = call(
        &w,
        request(AdminRoute::ListEndpoints, &[("merchantId", M1)], "", None),
    )
    .await;
    assert_eq!(resp.status().as_u16(), 200);
}

#[tokio::test]
async fn no_secret_reaches_a_record() {
    let w = World::new();
    let made = call(
        &w,
        request(
            AdminRoute::CreateEndpoint,
            &[("merchantId", M1)],
            "",
            Some(json!({"url": "https://hooks.example.com/pg?token=s3cr3t", "events": ["*"], "mode": "test", "description": "call 555", "sk_live_field": 1})),
        ),
    )
    .await;
    assert_eq!(made.status().as_u16(), 400, "an unknown field is refused");
    let made = json_of(
        &call(
            &w,
            request(
                AdminRoute::CreateEndpoint,
                &[("merchantId", M1)],
                "",
                Some(json!({"url": "https://hooks.example.com/pg?token=s3cr3t", "events": ["*"], "mode": "test", "description": "call 555"})),
            ),
        )
        .await,
    );
    let id = made["id"].as_str().unwrap();
    let rotated = json_of(
        &call(
            &w,
            request(
                AdminRoute::RotateSecret,
                &[("merchantId", M1), ("endpointId", id)],
                "",
                None,
            ),
        )
        .await,
    );
    let key = json_of(
        &call(
            &w,
            request(
                AdminRoute::CreateApiKey,
                &[("merchantId", M1)],
                "",
                Some(json!({"mode": "test", "name": "Till"})),
            ),
        )
        .await,
    );
    let text = serde_json::to_string(&w.audit.records()).unwrap();
    for secret in [
        made["secret"].as_str().unwrap(),
        rotated["secret"].as_str().unwrap(),
        key["secret"].as_str().unwrap(),
        "s3cr3t",
        "/pg",
        "call 555",
        "Till",
        "sk_live_field",
    ] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    let records = w.audit.records();
    assert_eq!(records.len(), 4);
    let created = &records[2];
    assert_eq!(created.intent.summary["urlHost"], "hooks.example.com");
    assert_eq!(created.intent.summary["description"], "(given)");
    assert_eq!(created.intent.summary["events"], json!(["*"]));
    assert_eq!(created.intent.targets["endpointId"], id);
    assert_eq!(records[3].intent.summary["otherFields"], 1);
    assert_eq!(
        records[0].intent.targets["keyId"],
        key["id"].as_str().unwrap()
    );
}

#[tokio::test]
async fn the_trail_reads_newest_first_in_pages() {
    let w = World::new();
    for name in ["a", "b", "c"] {
        let resp = call(
            &w,
            request(
                AdminRoute::CreateApiKey,
                &[("merchantId", M1)],
                "",
                Some(json!({"mode": "test", "name": name})),
            ),
        )
        .await;
        assert_eq!(resp.status().as_u16(), 201);
        w.clock.advance_millis(1_000);
    }
    let list = |q: &'static str, m: &'static str| {
        let w = &w;
        async move {
            call(
                w,
                request(AdminRoute::ListAudit, &[("merchantId", m)], q, None),
            )
            .await
        }
    };
    let first = json_of(&list("?limit=2", M1).await);
    assert_eq!(first["data"].as_array().unwrap().len(), 2);
    let at = |v: &Value, i: usize| v["data"][i]["at"].as_str().unwrap().to_owned();
    assert!(at(&first, 0) > at(&first, 1), "{first}");
    assert_eq!(first["data"][0]["outcome"], "succeeded");
    assert_eq!(first["data"][0]["principal"], ARN);
    assert_eq!(first["data"][0]["action"], "api_key.create");
    let cursor = first["nextCursor"].as_str().unwrap();
    let second = call(
        &w,
        request(
            AdminRoute::ListAudit,
            &[("merchantId", M1)],
            &format!("?limit=2&cursor={cursor}"),
            None,
        ),
    )
    .await;
    let second = json_of(&second);
    assert_eq!(second["data"].as_array().unwrap().len(), 1);
    assert!(at(&second, 0) < at(&first, 1));
    assert!(second["nextCursor"].is_null());
    // another merchant's trail is its own; bad queries are 400, an unknown merchant 404
    assert_eq!(json_of(&list("", M2).await)["data"], json!([]));
    for (q, field) in [
        ("?cursor=zz", "cursor"),
        ("?limit=0", "limit"),
        ("?status=failed", "status"),
    ] {
        let resp = list(q, M1).await;
        assert_eq!(resp.status().as_u16(), 400, "{q}");
        assert_eq!(json_of(&resp)["error"]["details"]["field"], field);
    }
    assert_eq!(list("", "mch_nobody").await.status().as_u16(), 404);
    // reads are not recorded
    assert_eq!(w.audit.records().len(), 3);
}
