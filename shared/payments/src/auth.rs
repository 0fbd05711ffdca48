//! API keys: `sk_test_…` / `sk_live_…`, stored only as their SHA-256.

use paygate_domain::{ids::ApiKeyId, ports::ApiKeyLookup, MerchantId, Mode};
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

/// Resolves an `Authorization` header value to a principal.
pub async fn authenticate(
    keys: &dyn ApiKeyLookup,
    authorization: Option<&str>,
) -> Result<Principal, AuthError> {
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
    let record = keys
        .find_key(&hash_api_key(key))
        .await
        .map_err(|_| AuthError::Unavailable)?
        .ok_or(AuthError::Invalid)?;
    if !record.active || record.mode != mode {
        return Err(AuthError::Invalid);
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

    fn store(mode: Mode, active: bool) -> MemoryKeys {
        let keys = MemoryKeys::default();
        keys.insert(
            &hash_api_key(KEY),
            ApiKeyRecord {
                key_id: ApiKeyId::parse("key_1").unwrap(),
                merchant_id: MerchantId::parse("mch_1").unwrap(),
                mode,
                active,
            },
        );
        keys
    }

    #[tokio::test]
    async fn valid_key_maps_to_merchant_and_mode() {
        let keys = store(Mode::Test, true);
        let p = authenticate(&keys, Some(&format!("Bearer {KEY}")))
            .await
            .unwrap();
        assert_eq!(p.merchant_id.as_str(), "mch_1");
        assert_eq!(p.mode, Mode::Test);
    }

    #[tokio::test]
    async fn missing_malformed_unknown_inactive_and_mismatched_keys_fail() {
        let keys = store(Mode::Test, true);
        assert_eq!(authenticate(&keys, None).await, Err(AuthError::Missing));
        assert_eq!(
            authenticate(&keys, Some("  ")).await,
            Err(AuthError::Missing)
        );
        assert_eq!(
            authenticate(&keys, Some(KEY)).await,
            Err(AuthError::Invalid)
        );
        assert_eq!(
            authenticate(&keys, Some("Basic abc")).await,
            Err(AuthError::Invalid)
        );
        assert_eq!(
            authenticate(&keys, Some("Bearer sk_test_0123456789abcdefXXXXXX")).await,
            Err(AuthError::Invalid)
        );
        assert_eq!(
            authenticate(&store(Mode::Test, false), Some(&format!("Bearer {KEY}"))).await,
            Err(AuthError::Invalid)
        );
        // A record whose mode disagrees with the key's prefix is refused.
        assert_eq!(
            authenticate(&store(Mode::Live, true), Some(&format!("Bearer {KEY}"))).await,
            Err(AuthError::Invalid)
        );
    }

    #[test]
    fn hash_is_sha256_hex() {
        assert_eq!(
            hash_api_key("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
