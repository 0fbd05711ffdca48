//! Signing and verifying paygate webhooks (`X-Svc-Signature`).
//!
//! Every webhook request carries
//!
//! ```text
//! X-Svc-Signature: t=<unix_seconds>,v1=<hex>[,v1=<hex>…]
//! ```
//!
//! where each `v1` is the lowercase hex HMAC-SHA256 of the *signed string*
//!
//! ```text
//! <t>.<raw request body>
//! ```
//!
//! (the decimal timestamp, a dot, then the body bytes exactly as received — never a
//! re-serialised JSON value).
//!
//! # The key is the whole secret string
//!
//! **The HMAC key is the UTF-8 bytes of the entire signing secret as shown in the
//! dashboard, including its `whsec_` prefix.** Do not strip the prefix and do not
//! base64- or hex-decode the rest: `whsec_abc` is keyed as the 9 bytes `w h s e c _ a b c`.
//!
//! # Rotation
//!
//! While a secret is being rotated, the header carries one `v1` per valid secret, the
//! current secret first. A receiver that knows any one of those secrets verifies the
//! request; [`verify`] accepts a list of secrets for the receiver's side of a rotation.
//!
//! # Reproducing a signature by hand
//!
//! ```text
//! python3 -c 'import hmac,hashlib; print(hmac.new(b"whsec_test_secret",
//!     b"1795251600." + b"{\"id\":\"evt_1\"}", hashlib.sha256).hexdigest())'
//! 9fddb03c75e8a1313684350726eb113b1ab3ea946febffb295c82d8d02f27590
//! ```
//!
//! ```
//! let body = br#"{"id":"evt_1"}"#;
//! let header = paygate_webhooks::signature::header(1_795_251_600, &["whsec_test_secret"], body);
//! assert_eq!(
//!     header,
//!     "t=1795251600,v1=9fddb03c75e8a1313684350726eb113b1ab3ea946febffb295c82d8d02f27590"
//! );
//! paygate_webhooks::signature::verify(&header, body, &["whsec_test_secret"], 1_795_251_660, 300)
//!     .unwrap();
//! ```

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The tolerance the spec suggests between the signature's `t` and the receiver's clock,
/// in seconds, in either direction.
pub const DEFAULT_TOLERANCE_SECS: i64 = 300;

/// The only signature scheme there is so far; entries with other names are ignored.
pub const SCHEME: &str = "v1";

/// Length in bytes of one HMAC-SHA256 signature.
const SIGNATURE_LEN: usize = 32;

type HmacSha256 = Hmac<Sha256>;

/// Why a header did not verify.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The header is not `t=<unix_seconds>,v1=<hex>…`: a part without `=`, no `t` or more
    /// than one, a `t` that is not an integer, or a `v1` that is not 64 hex digits.
    #[error("malformed signature header")]
    MalformedHeader,
    /// The header carries no `v1` signature.
    #[error("no v1 signature in the header")]
    NoSignature,
    /// A signature matched, but `t` is further than the tolerance from `now`.
    #[error("timestamp {timestamp} is outside the tolerance of {tolerance_secs} s around {now}")]
    TimestampOutsideTolerance {
        timestamp: i64,
        now: i64,
        tolerance_secs: i64,
    },
    /// No `v1` signature matches any of the secrets.
    #[error("no signature matches")]
    SignatureMismatch,
}

/// HMAC-SHA256 keyed with the whole secret string, over `<t>.` + body.
fn mac(secret: &str, timestamp: i64, body: &[u8]) -> [u8; SIGNATURE_LEN] {
    let Ok(mut m) = HmacSha256::new_from_slice(secret.as_bytes()) else {
        unreachable!("HMAC takes keys of any length")
    };
    m.update(timestamp.to_string().as_bytes());
    m.update(b".");
    m.update(body);
    m.finalize().into_bytes().into()
}

/// The lowercase hex `v1` signature of `body` at `timestamp` with `secret`.
///
/// The key is the UTF-8 bytes of the whole `secret`, `whsec_` prefix included.
pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> String {
    hex::encode(mac(secret, timestamp, body))
}

/// The `X-Svc-Signature` value: `t=<timestamp>` followed by one `v1=<hex>` per secret,
/// in the order given (the current secret first).
pub fn header<S: AsRef<str>>(timestamp: i64, secrets: &[S], body: &[u8]) -> String {
    let mut out = format!("t={timestamp}");
    for s in secrets {
        out.push_str(",v1=");
        out.push_str(&sign(s.as_ref(), timestamp, body));
    }
    out
}

/// A parsed `X-Svc-Signature` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedHeader {
    pub timestamp: i64,
    /// The `v1` signatures, in header order.
    pub signatures: Vec<[u8; SIGNATURE_LEN]>,
}

/// Parses a header value; entries of unknown schemes are skipped.
pub fn parse_header(header: &str) -> Result<ParsedHeader, VerifyError> {
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        let (key, value) = part
            .trim()
            .split_once('=')
            .ok_or(VerifyError::MalformedHeader)?;
        match key.trim() {
            "t" => {
                let t: i64 = value
                    .trim()
                    .parse()
                    .map_err(|_| VerifyError::MalformedHeader)?;
                if timestamp.replace(t).is_some() {
                    return Err(VerifyError::MalformedHeader);
                }
            }
            SCHEME => {
                let mut sig = [0u8; SIGNATURE_LEN];
                hex::decode_to_slice(value.trim(), &mut sig)
                    .map_err(|_| VerifyError::MalformedHeader)?;
                signatures.push(sig);
            }
            "" => return Err(VerifyError::MalformedHeader),
            _ => {} // another scheme: not ours to judge
        }
    }
    let timestamp = timestamp.ok_or(VerifyError::MalformedHeader)?;
    Ok(ParsedHeader {
        timestamp,
        signatures,
    })
}

/// Verifies an `X-Svc-Signature` value against the raw `body`.
///
/// Succeeds when any `v1` signature matches any of `secrets` (each keyed as in [`sign`]) and
/// `|now_unix - t| <= tolerance_secs`. Signatures are compared in constant time. The
/// signature is checked before the timestamp, so [`VerifyError::TimestampOutsideTolerance`]
/// means the request was authentic but stale or from the future (a replay, or a skewed
/// clock).
pub fn verify<S: AsRef<str>>(
    header: &str,
    body: &[u8],
    secrets: &[S],
    now_unix: i64,
    tolerance_secs: i64,
) -> Result<(), VerifyError> {
    let parsed = parse_header(header)?;
    if parsed.signatures.is_empty() {
        return Err(VerifyError::NoSignature);
    }
    let mut matched = false;
    for secret in secrets {
        let expected = mac(secret.as_ref(), parsed.timestamp, body);
        for candidate in &parsed.signatures {
            // Non-short-circuiting `|` keeps the work independent of which one matches.
            matched |= constant_time_eq(&expected, candidate);
        }
    }
    if !matched {
        return Err(VerifyError::SignatureMismatch);
    }
    let skew = now_unix.abs_diff(parsed.timestamp);
    if skew > tolerance_secs.unsigned_abs() {
        return Err(VerifyError::TimestampOutsideTolerance {
            timestamp: parsed.timestamp,
            now: now_unix,
            tolerance_secs,
        });
    }
    Ok(())
}

/// Equality of two equal-length byte strings in time independent of their contents.
fn constant_time_eq(a: &[u8; SIGNATURE_LEN], b: &[u8; SIGNATURE_LEN]) -> bool {
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn constant_time_eq_detects_any_single_bit() {
        let a = [0u8; SIGNATURE_LEN];
        assert!(constant_time_eq(&a, &a));
        for i in 0..SIGNATURE_LEN {
            for bit in 0..8 {
                let mut b = a;
                b[i] ^= 1 << bit;
                assert!(!constant_time_eq(&a, &b));
            }
        }
    }
}
