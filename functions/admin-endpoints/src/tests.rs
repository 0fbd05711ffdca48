//! The function routes on the route key (and, without one, on method and path), reads the
//! path parameters and the body, and answers in the envelope.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::{collections::HashMap, sync::Arc};

use lambda_http::{
    aws_lambda_events::apigw::ApiGatewayV2httpRequestContext, request::RequestContext, Body,
    RequestExt,
};
use paygate_domain::testkit::{
    ManualClock, MemoryAccounts, MemoryDeliveries, MemoryEndpoints, MemoryPayments, MemoryQueue,
    SeqIds, T0,
};
use paygate_domain::{AccountId, MerchantId, OperationSet, PosAccount};
use serde_json::{json, Value};

use super::*;

fn deps() -> Deps {
    let accounts = MemoryAccounts::default();
    accounts.insert(PosAccount {
        id: AccountId::parse("acc_1").unwrap(),
        merchant_id: MerchantId::parse("mch_one").unwrap(),
        provider_code: "simulator".into(),
        bank_code: "0064".into(),
        bank_name: "Bank".into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: paygate_domain::Mode::Test,
    });
    let endpoints = Arc::new(MemoryEndpoints::default());
    Deps {
        admin: paygate_http::admin::EndpointsDeps {
            merchants: Arc::new(accounts),
            endpoints: endpoints.clone(),
            deliveries: Arc::new(MemoryDeliveries::default()),
            outbox: Arc::new(MemoryPayments::default()),
            queue: Arc::new(MemoryQueue::default()),
            secrets: Arc::new(paygate_http::admin::testing::MemoryVault::default()),
            clock: Arc::new(ManualClock::at(T0)),
            ids: Arc::new(SeqIds::default()),
            egress: paygate_webhooks::EgressPolicy::strict(),
            secret_prefix: "paygate/test/webhooks/".into(),
            health: endpoints.clone(),
            keys: Arc::new(paygate_domain::testkit::MemoryKeys::default()),
            audit: paygate_http::admin::Audit {
                log: Arc::new(paygate_domain::testkit::MemoryAudit::default()),
                ids: Arc::new(SeqIds::default()),
            },
        },
    }
}

/// A request as API Gateway hands it over: route key and path parameters set.
fn request(route: &str, path: &str, params: &[(&str, &str)], body: Option<Value>) -> Request {
    let (method, _) = route.split_once(' ').unwrap();
    let mut b = lambda_http::http::Request::builder()
        .method(method)
        .uri(path);
    if body.is_some() {
        b = b.header("content-type", "application/json");
    }
    let req = b
        .body(body.map_or(Body::Empty, |v| Body::Text(v.to_string())))
        .unwrap();
    let mut ctx = ApiGatewayV2httpRequestContext::default();
    ctx.route_key = Some(route.to_owned());
    let params: HashMap<String, String> = params
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    req.with_path_parameters(params)
        .with_request_context(RequestContext::ApiGatewayV2(ctx))
}

fn json_of(resp: &Response<Body>) -> Value {
    match resp.body() {
        Body::Text(t) => serde_json::from_str(t).unwrap(),
        other => panic!("not a text body: {other:?}"),
    }
}

const CREATE: &str = "POST /admin/v1/merchants/{merchantId}/webhook-endpoints";
const LIST: &str = "GET /admin/v1/merchants/{merchantId}/webhook-endpoints";

#[tokio::test]
async fn create_answers_201_with_the_secret_and_list_never_shows_it() {
    let d = deps();
    let created = handle(
        &d,
        request(
            CREATE,
            "/admin/v1/merchants/mch_one/webhook-endpoints",
            &[("merchantId", "mch_one")],
            Some(json!({"url": "https://a.example.com/h", "events": ["*"], "mode": "test"})),
        ),
    )
    .await;
    assert_eq!(created.status(), 201);
    let body = json_of(&created);
    let secret = body["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_"));
    assert_eq!(body["enabled"], json!(true));

    let listed = handle(
        &d,
        request(
            LIST,
            "/admin/v1/merchants/mch_one/webhook-endpoints",
            &[("merchantId", "mch_one")],
            None,
        ),
    )
    .await;
    assert_eq!(listed.status(), 200);
    let text = serde_json::to_string(&json_of(&listed)).unwrap();
    assert!(text.contains(body["id"].as_str().unwrap()));
    assert!(!text.contains(&secret) && !text.contains("secret"));
}

#[tokio::test]
async fn without_a_route_key_the_method_and_path_decide() {
    let d = deps();
    let req = lambda_http::http::Request::builder()
        .method("GET")
        .uri("/admin/v1/merchants/mch_one/webhook-endpoints/whe_missing")
        .body(Body::Empty)
        .unwrap();
    let resp = handle(&d, req).await;
    assert_eq!(resp.status(), 404);
    assert_eq!(
        json_of(&resp)["error"]["message"],
        json!("No such webhook endpoint.")
    );
}

#[tokio::test]
async fn other_routes_bodies_and_merchants_are_refused_in_the_envelope() {
    let d = deps();
    // a route of the deliveries function
    let resp = handle(
        &d,
        request(
            "GET /admin/v1/merchants/{merchantId}/deliveries/{deliveryId}",
            "/admin/v1/merchants/mch_one/deliveries/dlv_1",
            &[("merchantId", "mch_one"), ("deliveryId", "dlv_1")],
            None,
        ),
    )
    .await;
    assert_eq!(
        (
            resp.status().as_u16(),
            json_of(&resp)["error"]["message"].clone()
        ),
        (404, json!("No such route."))
    );
    // a body that is not JSON
    let mut req = request(
        CREATE,
        "/admin/v1/merchants/mch_one/webhook-endpoints",
        &[("merchantId", "mch_one")],
        None,
    );
    *req.body_mut() = Body::Text("url=x".into());
    req.headers_mut().insert(
        "content-type",
        "application/x-www-form-urlencoded".parse().unwrap(),
    );
    assert_eq!(handle(&d, req).await.status(), 415);
    // an unknown merchant
    let resp = handle(
        &d,
        request(
            LIST,
            "/admin/v1/merchants/mch_zzz/webhook-endpoints",
            &[("merchantId", "mch_zzz")],
            None,
        ),
    )
    .await;
    assert_eq!(resp.status(), 404);
    assert_eq!(json_of(&resp)["error"]["code"], json!("not_found"));
}
