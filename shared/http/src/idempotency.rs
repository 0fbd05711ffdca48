//! `Idempotency-Key` on the merchant POST routes: one wrapper, [`idempotent`], around each
//! handler. The decisions are the domain's (`paygate_domain::idempotency`); this is the HTTP
//! side: reading and checking the header, the request's fingerprint, running the handler at
//! most once per key, and storing or replaying its answer.
//!
//! Without the header a request runs as before. With it:
//! - a key that is not 1 to 255 printable ASCII characters: 400 `invalid_idempotency_key`;
//! - the key is free: the handler runs under a lock on the key, and its answer is stored
//!   (or the key released, for answers that say "retry": see `stores_answer`);
//! - the key holds the same request's answer: that answer again (status and body), with
//!   `Idempotent-Replayed: true`, and the handler does not run;
//! - the key was used for another request (path or body differ): 422
//!   `idempotency_key_reused`;
//! - the key's first request is still running: 409 `idempotency_key_in_use`.
//!
//! Store faults are handled conservatively: if the key cannot be taken (or it is unknown
//! whether it was), the handler does not run (500 `internal_error`, retry is safe); if the
//! answer cannot be stored, it is still returned and the key stays locked until its lease is
//! over, after which a retry runs again (the payment's own reservation and state keep money
//! from moving twice).

use paygate_domain::error::code;
use std::{future::Future, sync::Arc};

use lambda_http::{
    http::{HeaderValue, StatusCode},
    Body, Request, Response,
};
use paygate_domain::{
    idempotency::{
        decide, stores_answer, BeginOutcome, Decision, Fingerprint, IdempotencyKey,
        IdempotencyRecord, IdempotencyStore, ScopedKey, StoredResponse,
    },
    ports::{Clock, IdGenerator},
};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::{context::principal, error::ApiError};

/// The request header carrying the key.
pub const IDEMPOTENCY_KEY_HEADER: &str = "idempotency-key";
/// The response header that marks a replayed answer.
pub const IDEMPOTENT_REPLAYED_HEADER: &str = "idempotent-replayed";

/// How many times a request tries to take a key that keeps changing under it (expired or
/// lease-over records another request takes first) before answering "in use".
const BEGIN_ATTEMPTS: usize = 3;

/// What the wrapper needs: the records, the clock (expiry and leases) and ids (the lock's
/// owner token).
#[derive(Clone)]
pub struct Idempotency {
    pub store: Arc<dyn IdempotencyStore>,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdGenerator>,
}

/// Runs `handler` (a future, so nothing of it runs unless it is awaited) for `req` under the
/// request's `Idempotency-Key`, if it has one. See the module documentation.
pub async fn idempotent<F>(idem: &Idempotency, req: &Request, handler: F) -> Response<Body>
where
    F: Future<Output = Response<Body>>,
{
    let mut values = req.headers().get_all(IDEMPOTENCY_KEY_HEADER).iter();
    let Some(value) = values.next() else {
        return handler.await;
    };
    // A request without a merchant has no scope: the handler answers 401.
    let Ok(who) = principal(req) else {
        return handler.await;
    };
    let key = match (IdempotencyKey::parse(value.as_bytes()), values.next()) {
        (Ok(key), None) => key,
        _ => return invalid_key().into_response(),
    };
    let key = ScopedKey {
        merchant_id: who.merchant_id,
        mode: who.mode,
        key,
    };
    let fingerprint = request_fingerprint(req);
    let owner = idem.ids.opaque();
    if let Err(answer) = acquire(idem, &key, &fingerprint, &owner).await {
        return answer;
    }
    let resp = handler.await;
    settle(idem, &key, &owner, &resp).await;
    resp
}

/// Takes the key for this request, or the answer to give instead.
async fn acquire(
    idem: &Idempotency,
    key: &ScopedKey,
    fingerprint: &Fingerprint,
    owner: &str,
) -> Result<(), Response<Body>> {
    for _ in 0..BEGIN_ATTEMPTS {
        let now = idem.clock.now();
        let lock = IdempotencyRecord::lock(key.clone(), fingerprint.clone(), owner.to_owned(), now);
        let existing = match idem.store.begin(&lock, now).await {
            Ok(BeginOutcome::Acquired) => return Ok(()),
            Ok(BeginOutcome::Existing(record)) => record,
            Err(e) => {
                // The lock may or may not have been written: read it back.
                tracing::warn!(merchant_id = %key.merchant_id, error = %e, "taking an idempotency key failed");
                match idem.store.get(key).await {
                    Ok(Some(record)) => record,
                    Ok(None) => continue,
                    Err(e) => {
                        tracing::error!(merchant_id = %key.merchant_id, error = %e, "idempotency store unavailable; the request is not run");
                        return Err(ApiError::internal().into_response());
                    }
                }
            }
        };
        match decide(&existing, fingerprint, owner, now) {
            Decision::Owned => return Ok(()),
            Decision::Replay(stored) => return Err(replay(stored)),
            Decision::Mismatch => return Err(key_reused().into_response()),
            Decision::InUse => return Err(key_in_use().into_response()),
            Decision::Retake => {}
        }
    }
    Err(key_in_use().into_response())
}

/// Stores the answer for replay, or releases the key; failures are logged, never turned
/// into another answer.
async fn settle(idem: &Idempotency, key: &ScopedKey, owner: &str, resp: &Response<Body>) {
    let status = resp.status().as_u16();
    let body = match resp.body() {
        Body::Empty => Some(String::new()),
        Body::Text(t) => Some(t.clone()),
        Body::Binary(b) => String::from_utf8(b.clone()).ok(),
        _ => None,
    };
    let stored = body.filter(|b| stores_answer(status, error_code(b).as_deref()));
    let (what, result) = match stored {
        Some(body) => (
            "storing the answer",
            idem.store
                .complete(key, owner, &StoredResponse { status, body })
                .await,
        ),
        None => ("releasing the key", idem.store.release(key, owner).await),
    };
    match result {
        Ok(true) => {}
        Ok(false) => {
            tracing::warn!(merchant_id = %key.merchant_id, status, "{what}: the idempotency key is no longer this request's");
        }
        Err(e) => {
            tracing::error!(merchant_id = %key.merchant_id, status, error = %e, "{what} failed; the key stays locked until its lease is over");
        }
    }
}

/// `error.code` of an error envelope.
fn error_code(body: &str) -> Option<String> {
    let v: Value = serde_json::from_str(body).ok()?;
    v.get("error")?.get("code")?.as_str().map(str::to_owned)
}

/// The first answer again, marked as replayed.
fn replay(stored: StoredResponse) -> Response<Body> {
    let mut resp = Response::new(Body::Text(stored.body));
    *resp.status_mut() =
        StatusCode::from_u16(stored.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = resp.headers_mut();
    headers.insert("content-type", HeaderValue::from_static("application/json"));
    headers.insert(IDEMPOTENT_REPLAYED_HEADER, HeaderValue::from_static("true"));
    resp
}

/// 400 `invalid_idempotency_key`.
pub fn invalid_key() -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        code::INVALID_IDEMPOTENCY_KEY,
        "The Idempotency-Key header must be one value of 1 to 255 printable ASCII characters.",
    )
    .with_details(json!({ "header": "Idempotency-Key" }))
}

/// 422 `idempotency_key_reused`.
pub fn key_reused() -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        code::IDEMPOTENCY_KEY_REUSED,
        "This Idempotency-Key was already used for another request (another path or body). A key can only be reused with the exact same request; send a new request with a new key.",
    )
    .with_details(json!({ "header": "Idempotency-Key" }))
}

/// 409 `idempotency_key_in_use`.
pub fn key_in_use() -> ApiError {
    ApiError::new(
        StatusCode::CONFLICT,
        code::IDEMPOTENCY_KEY_IN_USE,
        "A request with this Idempotency-Key is still being processed. This request was not run; retry it shortly to get the first request's answer.",
    )
    .with_details(json!({ "header": "Idempotency-Key" }))
}

/// The request's fingerprint: method, path and body.
pub fn request_fingerprint(req: &Request) -> Fingerprint {
    let body: &[u8] = match req.body() {
        Body::Text(t) => t.as_bytes(),
        Body::Binary(b) => b,
        _ => b"",
    };
    fingerprint(req.method().as_str(), req.uri().path(), body)
}

/// SHA-256 (hex) of method, path and body. A JSON body counts by its value, so whitespace
/// and key order do not matter; an empty body is `{}` (as the handlers read it); any other
/// body counts byte for byte.
pub fn fingerprint(method: &str, path: &str, body: &[u8]) -> Fingerprint {
    let canonical = if body.iter().all(u8::is_ascii_whitespace) {
        "json:{}".to_owned()
    } else {
        match serde_json::from_slice::<Value>(body) {
            Ok(v) => {
                let mut out = String::from("json:");
                canonical_json(&v, &mut out);
                out
            }
            Err(_) => format!("raw:{}", hex::encode(body)),
        }
    };
    let mut h = Sha256::new();
    for part in [method.to_ascii_uppercase().as_str(), path, &canonical] {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part.as_bytes());
    }
    Fingerprint::new(hex::encode(h.finalize()))
}

/// Compact JSON with object keys sorted, whatever order the map keeps them in.
fn canonical_json(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical_json(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical_json(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests;
