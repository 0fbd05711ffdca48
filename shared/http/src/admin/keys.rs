//! API keys (served by the `admin-endpoints` function): issue a key for a mode (its secret
//! is returned this once), list a merchant's keys, roll a key (a new key now, the old one
//! working until its expiry: 24 h by default, at most 7 days), revoke a key at once.
//!
//! Keys are `sk_test_`/`sk_live_` and 32 bytes from the OS CSPRNG in hex; only their
//! SHA-256 is stored (`paygate_payments::hash_api_key`, what the authorizer looks up). The
//! key id (`key_…`) comes from the injected id generator. Rules are
//! `paygate_domain::apikey`.

use lambda_http::http::StatusCode;
use paygate_domain::{
    apikey::{key_from_bytes, last4, ApiKey, RollRefusal},
    error::code,
    ids::ApiKeyId,
    MerchantId, Mode, StoreError, Timestamp,
};
use serde_json::{Map, Value};

use crate::{
    admin::{
        endpoints::EndpointsDeps,
        input::{self, NewApiKey},
        merchant, store_error,
        views::{ApiKeyList, ApiKeyView, ApiKeyWithSecret},
    },
    ApiError,
};

/// Random bytes in a key.
pub const KEY_BYTES: usize = 32;
/// Most keys (of any status) one merchant may have.
pub const MAX_KEYS_PER_MERCHANT: usize = 100;

/// A fresh key of `mode` from the OS CSPRNG.
fn new_key(mode: Mode) -> Result<String, StoreError> {
    let mut bytes = [0u8; KEY_BYTES];
    getrandom::fill(&mut bytes)
        .map_err(|e| StoreError::Unavailable(format!("OS random source: {e}")))?;
    Ok(key_from_bytes(mode, &bytes))
}

/// 409 `api_key_inactive` or `api_key_already_rolled`.
fn not_rollable(why: RollRefusal) -> ApiError {
    match why {
        RollRefusal::Inactive => ApiError::new(
            StatusCode::CONFLICT,
            code::API_KEY_INACTIVE,
            "The API key is revoked or expired. Issue a new key instead.",
        ),
        RollRefusal::AlreadyRolled => ApiError::new(
            StatusCode::CONFLICT,
            code::API_KEY_ALREADY_ROLLED,
            "The API key was rolled already and is expiring. Issue a new key instead.",
        ),
    }
}

/// 409 `api_key_limit_reached` when the merchant has [`MAX_KEYS_PER_MERCHANT`] keys (of any
/// status) already: checked before a key is issued, by create and by roll alike. The count
/// is read through an eventually consistent index, so keys issued at the same instant can
/// pass it together; each request still adds at most one key.
async fn ensure_room(deps: &EndpointsDeps, merchant_id: &MerchantId) -> Result<(), ApiError> {
    let existing = deps
        .keys
        .list_keys(merchant_id)
        .await
        .map_err(store_error)?;
    if existing.len() >= MAX_KEYS_PER_MERCHANT {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            code::API_KEY_LIMIT_REACHED,
            format!("A merchant can have at most {MAX_KEYS_PER_MERCHANT} API keys."),
        ));
    }
    Ok(())
}

/// The key of the path, which must be the merchant's; otherwise 404.
async fn key_of(
    deps: &EndpointsDeps,
    merchant: &MerchantId,
    raw: &str,
) -> Result<ApiKey, ApiError> {
    let id = ApiKeyId::parse(raw).map_err(|_| ApiError::not_found("API key"))?;
    deps.keys
        .get_key(merchant, &id)
        .await
        .map_err(store_error)?
        .ok_or_else(|| ApiError::not_found("API key"))
}

/// Makes and stores a new key; the secret is in the answer only.
async fn issue(
    deps: &EndpointsDeps,
    merchant_id: &MerchantId,
    mode: Mode,
    name: String,
    now: Timestamp,
) -> Result<ApiKeyWithSecret, ApiError> {
    let secret = new_key(mode).map_err(store_error)?;
    let key = ApiKey {
        id: ApiKeyId::generate(deps.ids.as_ref()),
        merchant_id: merchant_id.clone(),
        mode,
        name,
        last4: last4(&secret),
        created_at: now,
        expires_at: None,
        last_used_at: None,
        revoked_at: None,
    };
    deps.keys
        .create_key(&paygate_payments::hash_api_key(&secret), &key)
        .await
        .map_err(store_error)?;
    tracing::info!(key_id = %key.id, merchant_id = %merchant_id, mode = %mode.as_str(), "API key issued");
    Ok(ApiKeyWithSecret {
        key: ApiKeyView::of(&key, now),
        secret,
    })
}

/// `POST …/api-keys` `{"mode": "test"|"live", "name"?}` → 201 with the secret (once).
pub async fn create(
    deps: &EndpointsDeps,
    merchant_raw: &str,
    body: &Map<String, Value>,
) -> Result<ApiKeyWithSecret, ApiError> {
    let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
    let NewApiKey { mode, name } = input::new_api_key(body)?;
    ensure_room(deps, &merchant_id).await?;
    issue(deps, &merchant_id, mode, name, deps.clock.now()).await
}

/// `GET …/api-keys`: every key of the merchant, newest first, never a secret.
pub async fn list(deps: &EndpointsDeps, merchant_raw: &str) -> Result<ApiKeyList, ApiError> {
    let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
    let now = deps.clock.now();
    let keys = deps
        .keys
        .list_keys(&merchant_id)
        .await
        .map_err(store_error)?;
    Ok(ApiKeyList {
        data: keys.iter().map(|k| ApiKeyView::of(k, now)).collect(),
    })
}

/// `POST …/api-keys/{keyId}/roll` `{"expiresInHours"?: 1..168}` → 201 the new key (its
/// secret once). The old key keeps working until `now + expiresInHours` (default 24). Only
/// an active key rolls: a revoked or expired key is 409 `api_key_inactive`, a key rolled
/// already (expiring) is 409 `api_key_already_rolled`, and the new key counts against the
/// merchant's cap (409 `api_key_limit_reached`), so a roll loop cannot mint keys without
/// end. The old key's expiry is written first (conditionally on its having none), so a
/// concurrent roll of the same key is a 409 and issues nothing. Should the new key then fail
/// to be stored (a 500), the old key is expiring without a successor shown: the caller
/// issues a new key (`POST …/api-keys`); a retried roll is `api_key_already_rolled`.
pub async fn roll(
    deps: &EndpointsDeps,
    merchant_raw: &str,
    key_raw: &str,
    body: &Map<String, Value>,
) -> Result<ApiKeyWithSecret, ApiError> {
    let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
    let hours = input::roll_expiry_hours(body)?;
    let old = key_of(deps, &merchant_id, key_raw).await?;
    let now = deps.clock.now();
    let expires_at = old.roll_expiry(now, hours).map_err(not_rollable)?;
    ensure_room(deps, &merchant_id).await?;
    deps.keys
        .set_key_expiry(&merchant_id, &old.id, expires_at, old.expires_at)
        .await
        .map_err(store_error)?;
    tracing::info!(key_id = %old.id, expires_at = %expires_at, "API key rolled");
    issue(deps, &merchant_id, old.mode, old.name.clone(), now).await
}

/// `DELETE …/api-keys/{keyId}` → 200 the key, `status: revoked`; it stops working at once
/// (the authorizer does not cache). Revoking a revoked key answers it as it is.
pub async fn revoke(
    deps: &EndpointsDeps,
    merchant_raw: &str,
    key_raw: &str,
) -> Result<ApiKeyView, ApiError> {
    let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
    let id = ApiKeyId::parse(key_raw).map_err(|_| ApiError::not_found("API key"))?;
    let now = deps.clock.now();
    let key = deps
        .keys
        .revoke_key(&merchant_id, &id, now)
        .await
        .map_err(store_error)?
        .ok_or_else(|| ApiError::not_found("API key"))?;
    tracing::info!(key_id = %key.id, merchant_id = %merchant_id, "API key revoked");
    Ok(ApiKeyView::of(&key, now))
}

#[cfg(test)]
#[path = "keys_tests.rs"]
mod tests;
