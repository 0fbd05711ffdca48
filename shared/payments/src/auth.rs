//! API keys: `sk_test_…` / `sk_live_…`, stored only as their SHA-256.

use paygate_domain::{ids::ApiKeyId, ports::ApiKeyLookup, MerchantId, Mode, Timestamp};
use sha2::{Digest, Sha256};

/// Who is calling: the merchant and mode a valid key maps to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub key_id: ApiKeyId,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("no API key was provided")]
    Missing,
    #[error("the API key is not valid")]
    Invalid,
    #[error("the key store is unavailable")]
    Unavailable,
}

/// Lowercase hex SHA-256 of the whole key.
pub fn hash_api_key(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// The mode a key's prefix claims, if its shape is right.
fn claimed_mode(key: &str) -> Option<Mode> {
    let (mode, rest) = if let Some(rest) = key.strip_prefix("sk_test_") {
        (Mode::Test, rest)
    } else if let Some(rest) = key.strip_prefix("sk_live_") {
        (Mode::Live, rest)
    } else {
        return None;
    };
    let ok = (16..=128).contains(&rest.len()) && rest.bytes().all(|b| b.is_ascii_alphanumeric());
    ok.then_some(mode)
}

/// The key an `Authorization` header value carries and the mode its prefix claims, if it
/// has a key's shape (`Bearer sk_test_…` / `Bearer sk_live_…`, 16 to 128 letters and digits):
/// the format check alone, no lookup. `Missing` for no (or a blank) header, `Invalid` for
/// anything else that is not a key.
pub fn bearer_key(authorization: Option<&str>) -> Result<(&str, Mode), AuthError> {
    let value = authorization.map(str::trim).filter(|v| !v.is_empty());
    let Some(value) = value else {
        return Err(AuthError::Missing);
    };
    let key = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
        .map(str::trim)
        .ok_or(AuthError::Invalid)?;
    let mode = claimed_mode(key).ok_or(AuthError::Invalid)?;
    Ok((key, mode))
}

/// Resolves an `Authorization` header value to a principal at `now`: a revoked key, or a
/// rolled key past its expiry, is invalid. A valid key's `lastUsedAt` is written at most
/// once a minute, best effort (a failed write is logged and the request goes on).
pub async fn authenticate(
    keys: &dyn ApiKeyLookup,
    authorization: Option<&str>,
    now: Timestamp,
) -> Result<Principal, AuthError> {
    let (key, mode) = bearer_key(authorization)?;
    let hash = hash_api_key(key);
    let record = keys
        .find_key(&hash)
        .await
        .map_err(|_| AuthError::Unavailable)?
        .ok_or(AuthError::Invalid)?;
    if !record.usable(now) || record.mode != mode {
        return Err(AuthError::Invalid);
    }
    if record.needs_touch(now) {
        if let Err(e) = keys.touch_key(&hash, now).await {
            tracing::warn!(key_id = %record.key_id, error = %e, "lastUsedAt not updated");
        }
    }
    Ok(Principal {
        merchant_id: record.merchant_id,
        mode: record.mode,
        key_id: record.key_id,
    })
}

#[cfg(test)]
mod tests {
    use paygate_domain::testkit::MemoryKeys;
    use paygate_domain::ApiKeyRecord;

    use super::*;

    const KEY: &str = "sk_test_0123456789abcdefABCDEF";
    const NOW: Timestamp = paygate_domain::testkit::T0;

    fn store(mode: Mode, active: bool) -> MemoryKeys {
        let keys = MemoryKeys::default();
        keys.insert(
            &hash_api_key(KEY),
            ApiKeyRecord {
                key_id: ApiKeyId::parse("key_1").unwrap(),
                merchant_id: MerchantId::parse("mch_1").unwrap(),
                mode,
                active,
                expires_at: None,
                last_used_at: None,
            },
        );
        keys
    }

    #[tokio::test]
    async fn valid_key_maps_to_merchant_and_mode() {
        let keys = store(Mode::Test, true);
        let p = authenticate(&keys, Some(&format!("Bearer {KEY}")), NOW)
            .await
            .unwrap();
        assert_eq!(p.merchant_id.as_str(), "mch_1");
        assert_eq!(p.mode, Mode::Test);
    }

    #[tokio::test]
    async fn missing_malformed_unknown_inactive_and_mismatched_keys_fail() {
        let keys = store(Mode::Test, true);
        assert_eq!(
            authenticate(&keys, None, NOW).await,
            Err(AuthError::Missing)
        );
        assert_eq!(
            authenticate(&keys, Some("  "), NOW).await,
            Err(AuthError::Missing)
        );
        assert_eq!(
            authenticate(&keys, Some(KEY), NOW).await,
            Err(AuthError::Invalid)
        );
        assert_eq!(
            authenticate(&keys, Some("Basic abc"), NOW).await,
            Err(AuthError::Invalid)
        );
        assert_eq!(
            authenticate(&keys, Some("Bearer sk_test_0123456789abcdefXXXXXX"), NOW).await,
            Err(AuthError::Invalid)
        );
        assert_eq!(
            authenticate(
                &store(Mode::Test, false),
                Some(&format!("Bearer {KEY}")),
                NOW
            )
            .await,
            Err(AuthError::Invalid)
        );
        // A record whose mode disagrees with the key's prefix is refused.
        assert_eq!(
            authenticate(
                &store(Mode::Live, true),
                Some(&format!("Bearer {KEY}")),
                NOW
            )
            .await,
            Err(AuthError::Invalid)
        );
    }

    #[tokio::test]
    async fn expired_and_revoked_keys_fail_and_use_is_recorded_once_a_minute() {
        use paygate_domain::ports::ApiKeyAdmin;
        let keys = store(Mode::Test, true);
        let bearer = format!("Bearer {KEY}");
        let m = MerchantId::parse("mch_1").unwrap();
        let id = ApiKeyId::parse("key_1").unwrap();
        authenticate(&keys, Some(&bearer), NOW).await.unwrap();
        let used = |keys: &MemoryKeys| keys.find_key_sync().last_used_at;
        assert_eq!(used(&keys), Some(NOW));
        authenticate(&keys, Some(&bearer), NOW.plus_millis(59_000))
            .await
            .unwrap();
        assert_eq!(used(&keys), Some(NOW), "touched at most once a minute");
        authenticate(&keys, Some(&bearer), NOW.plus_millis(60_000))
            .await
            .unwrap();
        assert_eq!(used(&keys), Some(NOW.plus_millis(60_000)));
        // A failing touch never fails the request.
        keys.fail_touches(true);
        authenticate(&keys, Some(&bearer), NOW.plus_millis(600_000))
            .await
            .unwrap();
        // Rolled: works until the expiry, not at it.
        let exp = NOW.plus_millis(3_600_000);
        keys.set_key_expiry(&m, &id, exp, None).await.unwrap();
        authenticate(&keys, Some(&bearer), exp.plus_millis(-1))
            .await
            .unwrap();
        assert_eq!(
            authenticate(&keys, Some(&bearer), exp).await,
            Err(AuthError::Invalid)
        );
        // Revoked: refused at once.
        let keys = store(Mode::Test, true);
        keys.revoke_key(&m, &id, NOW).await.unwrap();
        assert_eq!(
            authenticate(&keys, Some(&bearer), NOW).await,
            Err(AuthError::Invalid)
        );
    }

    trait FirstKey {
        fn find_key_sync(&self) -> paygate_domain::apikey::ApiKey;
    }

    impl FirstKey for MemoryKeys {
        fn find_key_sync(&self) -> paygate_domain::apikey::ApiKey {
            self.all().remove(0).1
        }
    }

    #[test]
    fn hash_is_sha256_hex() {
        assert_eq!(
            hash_api_key("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
