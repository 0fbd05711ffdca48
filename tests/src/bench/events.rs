//! Real events of each kind the functions receive: API Gateway HTTP API (payload 2.0) with
//! the Lambda authorizer's context, the authorizer's own request, an SQS batch and a
//! scheduled EventBridge event. Shapes follow `infra/events/*.json`.

use serde_json::{json, Map, Value};

/// The authorizer context every merchant API function reads (`requestContext.authorizer.lambda`).
#[derive(Debug, Clone, Copy)]
pub struct Caller<'a> {
    pub merchant_id: &'a str,
    pub mode: &'a str,
    pub key_id: &'a str,
}

fn request_context(method: &str, route_key: &str, path: &str) -> Map<String, Value> {
    let Value::Object(ctx) = json!({
        "accountId": "123456789012",
        "apiId": "p4yg4t3abc",
        "domainName": "p4yg4t3abc.execute-api.us-east-1.amazonaws.com",
        "domainPrefix": "p4yg4t3abc",
        "http": {
            "method": method,
            "path": path,
            "protocol": "HTTP/1.1",
            "sourceIp": "203.0.113.10",
            "userAgent": "paygate-bench"
        },
        "requestId": "Qx1LocalBench0=",
        "routeKey": route_key,
        "stage": "$default",
        "time": "21/Nov/2026:09:15:30 +0000",
        "timeEpoch": 1_795_252_530_000_u64
    }) else {
        unreachable!("a JSON object literal")
    };
    ctx
}

/// An HTTP API request for `route_key` (e.g. `GET /v1/payments/{id}`) on `path`, with
/// `path_params`, an optional JSON body and the authorizer context of `caller` (`None`: an
/// IAM-authorized admin route, which carries no Lambda authorizer context).
pub fn api_request(
    route_key: &str,
    path: &str,
    path_params: &[(&str, &str)],
    body: Option<&Value>,
    caller: Option<Caller<'_>>,
) -> Value {
    let method = route_key.split(' ').next().unwrap_or("GET");
    let mut ctx = request_context(method, route_key, path);
    if let Some(c) = caller {
        ctx.insert(
            "authorizer".into(),
            json!({ "lambda": { "merchantId": c.merchant_id, "mode": c.mode, "keyId": c.key_id } }),
        );
    }
    let mut headers = json!({
        "accept": "application/json",
        "host": "p4yg4t3abc.execute-api.us-east-1.amazonaws.com",
        "x-forwarded-proto": "https"
    });
    if body.is_some() {
        headers["content-type"] = json!("application/json");
    }
    let params: Map<String, Value> = path_params
        .iter()
        .map(|(k, v)| ((*k).to_owned(), json!(v)))
        .collect();
    let mut ev = json!({
        "version": "2.0",
        "routeKey": route_key,
        "rawPath": path,
        "rawQueryString": "",
        "headers": headers,
        "requestContext": Value::Object(ctx),
        "isBase64Encoded": false
    });
    if !params.is_empty() {
        ev["pathParameters"] = Value::Object(params);
    }
    if let Some(b) = body {
        ev["body"] = json!(b.to_string());
    }
    ev
}

/// The authorizer's request (payload 2.0, simple responses) for a call with `authorization`.
pub fn authorizer_request(route_key: &str, path: &str, authorization: Option<&str>) -> Value {
    let method = route_key.split(' ').next().unwrap_or("GET");
    let mut ev = json!({
        "version": "2.0",
        "type": "REQUEST",
        "routeArn": format!("arn:aws:execute-api:us-east-1:123456789012:p4yg4t3abc/$default/{method}{path}"),
        "routeKey": route_key,
        "rawPath": path,
        "rawQueryString": "",
        "headers": { "accept": "application/json" },
        "requestContext": Value::Object(request_context(method, route_key, path))
    });
    if let Some(a) = authorization {
        ev["headers"]["authorization"] = json!(a);
    }
    ev
}

/// An SQS batch of `bodies` from `queue_arn`, as an event source mapping delivers it.
pub fn sqs_batch(queue_arn: &str, bodies: &[String]) -> Value {
    let records: Vec<Value> = bodies
        .iter()
        .enumerate()
        .map(|(i, body)| {
            json!({
                "messageId": format!("00000000-0000-4000-8000-{i:012}"),
                "receiptHandle": format!("AQEBlocal{i}=="),
                "body": body,
                "attributes": {
                    "ApproximateReceiveCount": "1",
                    "SentTimestamp": "1795251600000",
                    "SenderId": "AROAEXAMPLEROLEID:paygate-local",
                    "ApproximateFirstReceiveTimestamp": "1795251600050"
                },
                "messageAttributes": {},
                "md5OfBody": "00000000000000000000000000000000",
                "eventSource": "aws:sqs",
                "eventSourceARN": queue_arn,
                "awsRegion": "us-east-1"
            })
        })
        .collect();
    json!({ "Records": records })
}

/// The scheduled EventBridge event a `rate(1 minute)` rule sends.
pub fn scheduled(rule: &str) -> Value {
    json!({
        "version": "0",
        "id": "53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa",
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": "123456789012",
        "time": "2026-11-21T09:01:00Z",
        "region": "us-east-1",
        "resources": [format!("arn:aws:events:us-east-1:123456789012:rule/{rule}")],
        "detail": {}
    })
}

/// The status code and JSON body of an HTTP API function's answer
/// (`{"statusCode": …, "body": "…"}`).
pub fn http_answer(answer: &Value) -> (u16, Value) {
    let status = answer["statusCode"].as_u64().unwrap_or(0);
    let body = answer["body"]
        .as_str()
        .and_then(|b| serde_json::from_str(b).ok())
        .unwrap_or(Value::Null);
    (u16::try_from(status).unwrap_or(0), body)
}
