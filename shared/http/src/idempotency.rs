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
//! - the key started a money movement that has no stored answer yet (its request is still
//!   running, or ended — answer lost, Lambda killed — before storing one): the answer comes
//!   from that transaction ([`idempotent_operation`]'s `bound`): `409` while it is pending or
//!   unknown (the key kept), its settled answer once it is settled (stored, and sent with
//!   `Idempotent-Replayed: true`). The handler never runs again for that key.
//!
//! Store faults are handled conservatively: if the key cannot be taken (or it is unknown
//! whether it was), the handler does not run (500 `internal_error`, retry is safe); if the
//! answer cannot be stored, it is still returned and the key stays locked until its lease is
//! over. After that a retry runs again only if the first request never reserved anything: a
//! keyed reservation binds the key to its transaction in the same atomic write
//! (`paygate_domain::idempotency::KeyClaim`), and a bound key is never released or taken over.

use paygate_domain::error::code;
use std::{future::Future, sync::Arc};

use lambda_http::{
    http::{HeaderValue, StatusCode},
    Body, Request, Response,
};
use paygate_domain::{
    idempotency::{
        decide, stores_answer, BeginOutcome, Binding, Decision, Fingerprint, IdempotencyKey,
        IdempotencyRecord, IdempotencyStore, KeyClaim, ScopedKey, StoredResponse,
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
/// request's `Idempotency-Key`, if it has one. For routes that move no money (nothing binds
/// their keys). See the module documentation.
pub async fn idempotent<F>(idem: &Idempotency, req: &Request, handler: F) -> Response<Body>
where
    F: Future<Output = Response<Body>>,
{
    idempotent_operation(
        idem,
        req,
        |_| handler,
        |_| async { BoundAnswer::Open(ApiError::internal().into_response()) },
    )
    .await
}

/// The answer to a request whose key is bound to the transaction its first request reserved.
#[derive(Debug)]
pub enum BoundAnswer {
    /// The transaction is settled: its answer, stored on the key and replayed from now on.
    Settled(Response<Body>),
    /// It is not settled yet (pending at the bank, or its outcome unknown): this answer,
    /// nothing stored, the key kept.
    Open(Response<Body>),
}

/// Runs a money-moving `handler` for `req` under the request's `Idempotency-Key`, if it has
/// one. `handler` gets the claim its reservation must bind the key with (`None` without a
/// key); a later request with a key bound to a reservation is answered by `bound` from that
/// transaction, and `handler` does not run. See the module documentation.
pub async fn idempotent_operation<F, Fut, B, BFut>(
    idem: &Idempotency,
    req: &Request,
    handler: F,
    bound: B,
) -> Response<Body>
where
    F: FnOnce(Option<KeyClaim>) -> Fut,
    Fut: Future<Output = Response<Body>>,
    B: FnOnce(Binding) -> BFut,
    BFut: Future<Output = BoundAnswer>,
{
    let mut values = req.headers().get_all(IDEMPOTENCY_KEY_HEADER).iter();
    let Some(value) = values.next() else {
        return handler(None).await;
    };
    // A request without a merchant has no scope: the handler answers 401.
    let Ok(who) = principal(req) else {
        return handler(None).await;
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
    match acquire(idem, &key, &fingerprint, &owner).await {
        Taken::Run => {}
        Taken::Answer(answer) => return answer,
        Taken::Bound(binding) => {
            return answer_bound(idem, &key, &binding, bound(binding.clone()).await).await;
        }
    }
    let claim = KeyClaim {
        key: key.clone(),
        owner: owner.clone(),
    };
    let resp = handler(Some(claim)).await;
    settle(idem, &key, &owner, &resp).await;
    resp
}

/// Marks (as a response extension) an answer that leaves its operation unsettled — the
/// bank's outcome unknown, or not recorded yet — so it is not stored as the key's answer:
/// the key stays bound to the operation and a retry gets its settled answer later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsettled;

/// Marks (as a response extension) an answer the operation's commit already stored on the
/// key, in its own write (`paygate_payments::KeyAnswering`): the wrapper writes nothing more
/// for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnswerStored;

/// What taking a key came to.
enum Taken {
    /// The key is this request's: run.
    Run,
    /// Answer this instead of running.
    Answer(Response<Body>),
    /// The key is bound to a reservation: answer from it.
    Bound(Binding),
}

/// Takes the key for this request, or says what to answer instead.
async fn acquire(
    idem: &Idempotency,
    key: &ScopedKey,
    fingerprint: &Fingerprint,
    owner: &str,
) -> Taken {
    for _ in 0..BEGIN_ATTEMPTS {
        let now = idem.clock.now();
        let lock = IdempotencyRecord::lock(key.clone(), fingerprint.clone(), owner.to_owned(), now);
        let existing = match idem.store.begin(&lock, now).await {
            Ok(BeginOutcome::Acquired) => return Taken::Run,
            Ok(BeginOutcome::Existing(record)) => record,
            Err(e) => {
                // The lock may or may not have been written: read it back.
                tracing::warn!(merchant_id = %key.merchant_id, error = %e, "taking an idempotency key failed");
                match idem.store.get(key).await {
                    Ok(Some(record)) => record,
                    Ok(None) => continue,
                    Err(e) => {
                        tracing::error!(merchant_id = %key.merchant_id, error = %e, "idempotency store unavailable; the request is not run");
                        return Taken::Answer(ApiError::internal().into_response());
                    }
                }
            }
        };
        match decide(&existing, fingerprint, owner, now) {
            Decision::Owned => return Taken::Run,
            Decision::Replay(stored) => return Taken::Answer(replay(stored)),
            Decision::Mismatch => return Taken::Answer(key_reused().into_response()),
            Decision::InUse => return Taken::Answer(key_in_use().into_response()),
            Decision::Bound(binding) => return Taken::Bound(binding),
            Decision::Retake => {}
        }
    }
    Taken::Answer(key_in_use().into_response())
}

/// Answers from the transaction a key is bound to; a settled answer is stored on the key
/// (whoever holds its lock) and marked replayed.
async fn answer_bound(
    idem: &Idempotency,
    key: &ScopedKey,
    binding: &Binding,
    answer: BoundAnswer,
) -> Response<Body> {
    let mut resp = match answer {
        BoundAnswer::Open(resp) => return resp,
        BoundAnswer::Settled(resp) => resp,
    };
    let stored = match resp.body() {
        Body::Text(t) => Some(StoredResponse {
            status: resp.status().as_u16(),
            body: t.clone(),
        }),
        _ => None,
    };
    if let Some(stored) = stored {
        match idem
            .store
            .complete_bound(key, &binding.transaction_id, &stored)
            .await
        {
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(merchant_id = %key.merchant_id, transaction_id = %binding.transaction_id,
                    error = %e, "storing a bound key's settled answer failed; it is read again next time");
            }
        }
    }
    resp.headers_mut()
        .insert(IDEMPOTENT_REPLAYED_HEADER, HeaderValue::from_static("true"));
    resp
}

/// What is stored on the key for `resp`: its status and body, unless it leaves its
/// operation unsettled or is an answer that releases the key (`stores_answer`).
pub fn stored_answer(resp: &Response<Body>) -> Option<StoredResponse> {
    let status = resp.status().as_u16();
    let body = match resp.body() {
        Body::Empty => Some(String::new()),
        Body::Text(t) => Some(t.clone()),
        Body::Binary(b) => String::from_utf8(b.clone()).ok(),
        _ => None,
    };
    let unsettled = resp.extensions().get::<Unsettled>().is_some();
    body.filter(|b| !unsettled && stores_answer(status, error_code(b).as_deref()))
        .map(|body| StoredResponse { status, body })
}

/// Stores the answer for replay, or releases the key; failures are logged, never turned
/// into another answer. Nothing to do when the operation's commit stored it
/// ([`AnswerStored`]).
async fn settle(idem: &Idempotency, key: &ScopedKey, owner: &str, resp: &Response<Body>) {
    if resp.extensions().get::<AnswerStored>().is_some() {
        return;
    }
    let status = resp.status().as_u16();
    let (what, result) = match stored_answer(resp) {
        Some(stored) => (
            "storing the answer",
            idem.store.complete(key, owner, &stored).await,
        ),
        None => ("releasing the key", idem.store.release(key, owner).await),
    };
    match result {
        Ok(true) => {}
        Ok(false) => {
            // Not ours any more, or (a release) bound to the operation this request
            // reserved: such a key is kept, and later requests are answered from it.
            tracing::info!(merchant_id = %key.merchant_id, status, "{what}: the idempotency key is bound to its operation or no longer this request's; left as it is");
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
    headers.insert(
        "cache-control",
        HeaderValue::from_static(crate::respond::CACHE_CONTROL),
    );
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
