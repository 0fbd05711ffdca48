//! The audit trail at the admin edge (issue 21, item 5): every admin write (each route with
//! [`AdminRoute::action`]) is recorded around its handler by [`around`], whichever handler
//! it is, and `GET …/audit` reads a merchant's trail ([`list`]).
//!
//! Order: the record's intent (who, what, when, merchant, mode, request id) is written
//! **before** the handler runs; if it cannot be written the request is answered 503
//! `audit_unavailable` and the handler never runs, so nothing is ever changed unrecorded.
//! Then the result (status, error code, the ids the answer created) is written; if that
//! fails the change stands, the failure is logged with the record's id, and the record reads
//! outcome `unknown` (the access log holds the status under the same request id).
//!
//! No secret reaches a record: the summary keeps the names of the known fields a body gave
//! and only the values that are safe (mode, enabled, events, the URL's host, time bounds,
//! durations), checked for their shape; of an answer only `id`, `eventId` and `mode` are
//! read, never a signing secret or an API key.

use std::{collections::BTreeMap, collections::HashMap, future::Future, sync::Arc};

use lambda_http::{http::StatusCode, request::RequestContext, Body, Request, RequestExt, Response};
use paygate_domain::{
    audit::{
        entry_key, new_audit_id, AuditIntent, AuditItem, AuditLog, AuditPart, AuditRecord,
        AuditResult,
    },
    error::code,
    ids::ApiKeyId,
    ports::{ApiKeyAdmin, Clock, DeliveryStore, EndpointReader, IdGenerator},
    webhook::{DeliveryId, EventFilter, WebhookEndpointId},
    MerchantId, Mode, Timestamp,
};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::admin::{input::HistoryQuery, merchant, routes::AdminRoute, store_error};
use crate::ApiError;

/// The principal recorded when the request carries no IAM identity (never the case behind
/// API Gateway's IAM authorization).
pub const UNKNOWN_PRINCIPAL: &str = "unknown";

/// What both admin functions record with.
#[derive(Clone)]
pub struct Audit {
    pub log: Arc<dyn AuditLog>,
    /// Record ids (`aud_…`).
    pub ids: Arc<dyn IdGenerator>,
}

/// Who called, as API Gateway's IAM authorization tells (`requestContext.authorizer.iam`):
/// the principal's ARN (`userArn`; failing that `callerId`), and the request id.
pub fn caller(req: &Request) -> (String, Option<String>) {
    let Some(RequestContext::ApiGatewayV2(ctx)) = req.request_context_ref() else {
        return (UNKNOWN_PRINCIPAL.to_owned(), None);
    };
    let iam = ctx.authorizer.as_ref().and_then(|a| a.iam.as_ref());
    let principal = iam
        .and_then(|i| i.user_arn.clone().or_else(|| i.caller_id.clone()))
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| UNKNOWN_PRINCIPAL.to_owned());
    (principal, ctx.request_id.clone().filter(|r| !r.is_empty()))
}

/// 503 `audit_unavailable`: the record could not be written, so nothing was done.
fn audit_unavailable() -> Response<Body> {
    let mut resp = ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        code::AUDIT_UNAVAILABLE,
        "The audit record of this change could not be written, so nothing was changed. Retry.",
    )
    .into_response();
    resp.headers_mut().insert(
        lambda_http::http::header::RETRY_AFTER,
        lambda_http::http::HeaderValue::from_static("1"),
    );
    resp
}

fn json_of(body: &Body) -> Option<Map<String, Value>> {
    let bytes: &[u8] = match body {
        Body::Text(t) => t.as_bytes(),
        Body::Binary(b) => b,
        _ => return None,
    };
    match serde_json::from_slice(bytes) {
        Ok(Value::Object(m)) => Some(m),
        _ => None,
    }
}

/// A safe value of a body field, or `None` when its value is not kept.
fn safe_value(name: &str, v: &Value) -> Option<Value> {
    let kept = match name {
        "mode" => v.as_str().and_then(Mode::parse).is_some(),
        "enabled" => v.is_boolean(),
        "graceSeconds" | "expiresInHours" => v.is_i64(),
        "since" | "until" => v.as_str().and_then(Timestamp::parse_iso8601).is_some(),
        "events" => v.as_array().is_some_and(|a| {
            a.len() <= 16
                && a.iter()
                    .all(|e| e.as_str().and_then(EventFilter::parse).is_some())
        }),
        _ => false,
    };
    kept.then(|| v.clone())
}

/// The summary of a request body: each known field it gave, with its value when safe,
/// `"(given)"` otherwise (a description, a name, a value of the wrong shape); a URL by its
/// host only; other fields counted, never named.
pub fn summarize(body: Option<&Map<String, Value>>) -> BTreeMap<String, Value> {
    const KNOWN: [&str; 10] = [
        "url",
        "events",
        "mode",
        "description",
        "enabled",
        "graceSeconds",
        "name",
        "expiresInHours",
        "since",
        "until",
    ];
    let mut out = BTreeMap::new();
    let Some(body) = body else {
        return out;
    };
    let mut others = 0u32;
    for (k, v) in body {
        if !KNOWN.contains(&k.as_str()) {
            others += 1;
            continue;
        }
        let kept = if k == "url" {
            v.as_str()
                .and_then(|u| url::Url::parse(u).ok())
                .and_then(|u| u.host_str().map(|h| Value::String(h.to_owned())))
                .map(|h| ("urlHost".to_owned(), h))
        } else {
            safe_value(k, v).map(|v| (k.clone(), v))
        };
        match kept {
            Some((name, value)) => out.insert(name, value),
            None => out.insert(k.clone(), Value::String("(given)".into())),
        };
    }
    if others > 0 {
        out.insert("otherFields".into(), Value::from(others));
    }
    out
}

/// The ids an answer created, by route.
fn answer_targets(route: AdminRoute, answer: &Map<String, Value>) -> BTreeMap<String, String> {
    let names: &[(&str, &str)] = match route {
        AdminRoute::CreateEndpoint => &[("id", "endpointId")],
        AdminRoute::CreateApiKey => &[("id", "keyId")],
        AdminRoute::RollApiKey => &[("id", "newKeyId")],
        AdminRoute::SendTestEvent => &[("id", "deliveryId"), ("eventId", "eventId")],
        _ => &[],
    };
    names
        .iter()
        .filter_map(|(field, target)| {
            answer
                .get(*field)
                .and_then(Value::as_str)
                .filter(|v| {
                    v.len() <= 80 && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                })
                .map(|v| ((*target).to_owned(), v.to_owned()))
        })
        .collect()
}

/// Where the mode of a write's target is read when its body does not name one (a delete,
/// rotation, revoke, resend or recover, and any refused write, answer without it).
#[derive(Clone, Copy)]
pub struct Targets<'a> {
    pub endpoints: &'a dyn EndpointReader,
    pub keys: Option<&'a dyn ApiKeyAdmin>,
    pub deliveries: Option<&'a dyn DeliveryStore>,
}

/// The mode of the endpoint, key or delivery the path names, if it is the merchant's and
/// can be read (a failed read is logged; the write goes on).
async fn target_mode(
    targets: Targets<'_>,
    merchant_id: &MerchantId,
    params: &HashMap<String, String>,
) -> Option<Mode> {
    let param = |name: &str| params.get(name).map(String::as_str);
    let found: Result<Option<Mode>, paygate_domain::StoreError> =
        if let Some(id) = param("endpointId").and_then(|v| WebhookEndpointId::parse(v).ok()) {
            targets
                .endpoints
                .get_endpoint(merchant_id, &id)
                .await
                .map(|e| e.map(|e| e.mode))
        } else if let (Some(keys), Some(id)) = (
            targets.keys,
            param("keyId").and_then(|v| ApiKeyId::parse(v).ok()),
        ) {
            keys.get_key(merchant_id, &id)
                .await
                .map(|k| k.map(|k| k.mode))
        } else if let (Some(deliveries), Some(id)) = (
            targets.deliveries,
            param("deliveryId").and_then(|v| DeliveryId::parse(v).ok()),
        ) {
            deliveries
                .get_delivery(&id)
                .await
                .map(|d| d.filter(|d| &d.merchant_id == merchant_id).map(|d| d.mode))
        } else {
            Ok(None)
        };
    found.unwrap_or_else(|e| {
        tracing::warn!(error = %e, "target not read for the audit record's mode");
        None
    })
}

/// Runs `act`, the handler of `route`; a write is recorded around it (see the module
/// documentation). A read, or a path whose merchant id does not parse (404: no merchant has
/// it, nothing can change), runs unrecorded.
pub async fn around<F, Fut>(
    audit: &Audit,
    clock: &dyn Clock,
    lookup: Targets<'_>,
    route: AdminRoute,
    params: &HashMap<String, String>,
    req: Request,
    act: F,
) -> Response<Body>
where
    F: FnOnce(Request) -> Fut,
    Fut: Future<Output = Response<Body>>,
{
    // The handlers' futures are large (every route's in one match): kept on the heap so
    // that wrapping them does not grow the caller's stack.
    let Some(action) = route.action() else {
        return Box::pin(act(req)).await;
    };
    let raw_merchant = params.get("merchantId").map(String::as_str).unwrap_or("");
    let Ok(merchant_id) = MerchantId::parse(raw_merchant) else {
        return Box::pin(act(req)).await;
    };
    let (principal, request_id) = caller(&req);
    let at = clock.now();
    let id = new_audit_id(audit.ids.as_ref());
    let request_id = request_id.unwrap_or_else(|| id.clone());
    let body = json_of(req.body());
    let targets: BTreeMap<String, String> = ["endpointId", "deliveryId", "keyId"]
        .iter()
        .filter_map(|n| params.get(*n).map(|v| ((*n).to_owned(), v.clone())))
        .collect();
    let mode = match body
        .as_ref()
        .and_then(|b| b.get("mode"))
        .and_then(Value::as_str)
        .and_then(Mode::parse)
    {
        Some(mode) => Some(mode),
        // Else the target's, read before it changes.
        None => target_mode(lookup, &merchant_id, params).await,
    };
    let entry = entry_key(at, &id);
    let intent = AuditItem {
        merchant_id: merchant_id.clone(),
        entry: entry.clone(),
        part: AuditPart::Intent(AuditIntent {
            id: id.clone(),
            merchant_id: merchant_id.clone(),
            at,
            principal: principal.clone(),
            action: action.to_owned(),
            targets,
            summary: summarize(body.as_ref()),
            mode,
            request_id: request_id.clone(),
        }),
    };
    if let Err(e) = audit.log.append(&intent).await {
        tracing::error!(
            audit_id = %id, principal = %principal, action, merchant_id = %merchant_id,
            request_id = %request_id, error = %e,
            "admin write refused: its audit record could not be written"
        );
        return audit_unavailable();
    }

    let resp = Box::pin(act(req)).await;

    let status = resp.status().as_u16();
    let answer = json_of(resp.body()).unwrap_or_default();
    let error_code = answer
        .get("error")
        .and_then(|e| e.get("code"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let result = AuditItem {
        merchant_id: merchant_id.clone(),
        entry,
        part: AuditPart::Result(AuditResult {
            at: clock.now(),
            status,
            error_code,
            mode: answer
                .get("mode")
                .and_then(Value::as_str)
                .and_then(Mode::parse),
            targets: answer_targets(route, &answer),
        }),
    };
    if let Err(e) = audit.log.append(&result).await {
        tracing::error!(
            audit_id = %id, status, error = %e,
            "admin write done but its audit result not recorded: the record reads outcome unknown"
        );
    }
    tracing::info!(
        audit_id = %id, principal = %principal, action, merchant_id = %merchant_id,
        request_id = %request_id, status, "admin write"
    );
    resp
}

/// `GET …/audit`: a page of the merchant's records.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditPage {
    pub data: Vec<AuditRecord>,
    /// The next page's cursor (`?cursor=`); `null` on the last page.
    pub next_cursor: Option<String>,
}

/// `GET …/audit?limit=1..100&cursor=…`: the merchant's audit records, newest first
/// (`limit` defaults to 20, as the delivery history's).
pub async fn list(
    merchants: &dyn paygate_domain::ports::MerchantDirectory,
    log: &dyn AuditLog,
    merchant_raw: &str,
    query: Option<&str>,
) -> Result<AuditPage, ApiError> {
    let merchant_id = merchant(merchants, merchant_raw).await?;
    if query.is_some_and(|q| url::form_urlencoded::parse(q.as_bytes()).any(|(k, _)| k == "status"))
    {
        return Err(ApiError::invalid(
            "status",
            "is not a known query parameter",
        ));
    }
    let q = HistoryQuery::from_query(query)?;
    let page = log
        .list(&merchant_id, q.store_query().limit, q.cursor.as_deref())
        .await
        .map_err(store_error)?;
    Ok(AuditPage {
        data: page.items,
        next_cursor: page.next_cursor,
    })
}

#[cfg(test)]
#[path = "audit_tests.rs"]
mod tests;
