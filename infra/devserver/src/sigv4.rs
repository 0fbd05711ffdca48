//! The admin routes' IAM authorization, emulated. In AWS, API Gateway verifies the AWS
//! Signature Version 4 of every admin request (and IAM decides whether the signer may invoke
//! that route); here the dev server verifies the same signature itself against the local
//! admin credentials of `infra/local/seed.json` (`"admin"`), so one signed request works in
//! both places. Anything unsigned, signed with another key or scope, tampered with (method,
//! path, query, a signed header, the body) or dated more than five minutes from now is
//! refused before any function sees it.
//!
//! The signature is recomputed with the `aws-sigv4` crate (through `paygate_cli::sigv4`) from
//! the request as received: method, path and query exactly as sent, the headers listed in
//! `SignedHeaders` with their values, the SHA-256 of the body and the `X-Amz-Date`; the
//! comparison is constant-time.

use std::time::{Duration, UNIX_EPOCH};

use axum::http::HeaderMap;
use paygate_cli::sigv4::{
    compute_signature, constant_time_eq, parse_amz_date, AdminCredentials, AuthorizationHeader,
    DATE_HEADER, SERVICE,
};
use paygate_domain::Timestamp;

/// How far `X-Amz-Date` may be from now, either way (API Gateway's window).
pub const MAX_SKEW: Duration = Duration::from_secs(300);

/// Why a request was refused (403). The reason is logged and shown in the message; a real
/// API Gateway answers similarly (`Missing Authentication Token`, `Signature expired`, …).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    #[error("the request is not signed (no SigV4 Authorization and X-Amz-Date headers)")]
    Unsigned,
    #[error("the Authorization header is not a well-formed AWS4-HMAC-SHA256 signature")]
    Malformed,
    #[error("the access key id is not known")]
    UnknownKey,
    #[error("the credential scope must be <date>/{region}/execute-api/aws4_request")]
    WrongScope { region: String },
    #[error(
        "the signature has expired or is not yet valid (X-Amz-Date more than 5 minutes from now)"
    )]
    Stale,
    #[error("the request signature does not match the one calculated for it")]
    BadSignature,
    #[error("no admin credentials are configured (seed.json \"admin\")")]
    NotConfigured,
}

/// Verifies admin requests against one set of credentials.
#[derive(Debug, Clone)]
pub struct Verifier {
    creds: Option<AdminCredentials>,
}

impl Verifier {
    /// `None`: every admin request is refused.
    pub fn new(creds: Option<AdminCredentials>) -> Self {
        Self { creds }
    }

    /// Checks one request: `path_and_query` exactly as received, `now` from the clock.
    /// Returns the signer's access key id.
    pub fn verify(
        &self,
        method: &str,
        path_and_query: &str,
        headers: &HeaderMap,
        body: &[u8],
        now: Timestamp,
    ) -> Result<String, Rejection> {
        let text = |name: &str| -> Result<Option<&str>, Rejection> {
            headers
                .get(name)
                .map(|v| v.to_str().map_err(|_| Rejection::Malformed))
                .transpose()
        };
        let (Some(authorization), Some(date)) = (text("authorization")?, text(DATE_HEADER)?) else {
            return Err(Rejection::Unsigned);
        };
        let Some(creds) = &self.creds else {
            return Err(Rejection::NotConfigured);
        };
        let auth = AuthorizationHeader::parse(authorization).ok_or(Rejection::Malformed)?;
        if !constant_time_eq(&auth.access_key_id, &creds.access_key_id) {
            return Err(Rejection::UnknownKey);
        }
        let signed_at = parse_amz_date(date).ok_or(Rejection::Malformed)?;
        if auth.service != SERVICE || auth.region != creds.region || !date.starts_with(&auth.date) {
            return Err(Rejection::WrongScope {
                region: creds.region.clone(),
            });
        }
        let signed_ms = signed_at
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .map_err(|_| Rejection::Stale)?;
        let skew = (now.unix_millis() - signed_ms).unsigned_abs();
        if u128::from(skew) > MAX_SKEW.as_millis() {
            return Err(Rejection::Stale);
        }
        // host and x-amz-date must be signed; every signed header must be there.
        let listed = |h: &str| auth.signed_headers.iter().any(|s| s == h);
        if !listed("host") || !listed(DATE_HEADER) {
            return Err(Rejection::Malformed);
        }
        let mut signed: Vec<(&str, &str)> = Vec::new();
        for name in &auth.signed_headers {
            let mut any = false;
            for v in headers.get_all(name.as_str()) {
                signed.push((name.as_str(), v.to_str().map_err(|_| Rejection::Malformed)?));
                any = true;
            }
            if !any {
                return Err(Rejection::Malformed);
            }
        }
        let host = text("host")?.ok_or(Rejection::Malformed)?;
        let uri = format!("http://{host}{path_and_query}");
        let expected = compute_signature(
            method,
            &uri,
            &signed,
            body,
            &creds.access_key(),
            &creds.region,
            signed_at,
        )
        .map_err(|_| Rejection::Malformed)?;
        if constant_time_eq(&expected, &auth.signature) {
            Ok(auth.access_key_id)
        } else {
            Err(Rejection::BadSignature)
        }
    }
}

#[cfg(test)]
mod tests;
