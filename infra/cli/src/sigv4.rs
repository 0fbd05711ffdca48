//! AWS Signature Version 4 for the dashboard's admin API.
//!
//! In AWS the admin routes use API Gateway's IAM authorization: every request is signed
//! with SigV4 for the service `execute-api` in the API's region. The local dev server
//! verifies the same signatures itself, against local admin credentials, so one signed
//! request works in both places.
//!
//! * [`sign_request`] / [`sign_request_with_headers`]: the headers (`authorization`,
//!   `x-amz-date`) that sign a request. Used by the tests harness and the CLI.
//! * [`compute_signature`]: the signature of a request as received, over exactly the
//!   headers given; the dev server's verifier compares it with the one sent.
//!
//! Both use the `aws-sigv4` crate (the AWS SDK's own signer) with the same settings, so
//! the canonical request (double-encoded, normalized path; sorted query; SHA-256 of the
//! body) is the one API Gateway computes.

use std::{borrow::Cow, time::SystemTime};

use aws_credential_types::Credentials;
use aws_sigv4::{
    http_request::{sign, SignableBody, SignableRequest, SigningInstructions, SigningSettings},
    sign::v4,
};
use serde::Deserialize;

/// The service name admin requests are signed for.
pub const SERVICE: &str = "execute-api";
/// The only algorithm accepted.
pub const ALGORITHM: &str = "AWS4-HMAC-SHA256";
/// The date header, and the `X-Amz-Date` format (`20261121T093000Z`, UTC).
pub const DATE_HEADER: &str = "x-amz-date";

/// An access key pair. The secret never shows in `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct AccessKey {
    pub access_key_id: String,
    pub secret_access_key: String,
}

impl std::fmt::Debug for AccessKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccessKey")
            .field("access_key_id", &self.access_key_id)
            .field("secret_access_key", &"[redacted]")
            .finish()
    }
}

/// Admin credentials and the region they sign for: the shape of `"admin"` in
/// `infra/local/seed.json` (`{"accessKeyId", "secretAccessKey", "region"}`).
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AdminCredentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub region: String,
}

impl AdminCredentials {
    pub fn access_key(&self) -> AccessKey {
        AccessKey {
            access_key_id: self.access_key_id.clone(),
            secret_access_key: self.secret_access_key.clone(),
        }
    }
}

impl std::fmt::Debug for AdminCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdminCredentials")
            .field("access_key_id", &self.access_key_id)
            .field("secret_access_key", &"[redacted]")
            .field("region", &self.region)
            .finish()
    }
}

/// A request could not be signed (a URL without a host, a header value that is not
/// visible ASCII, …).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot sign the request: {0}")]
pub struct SignError(pub String);

/// The headers to add to a request so that it is signed: `authorization` and `x-amz-date`.
/// Signs the method, the URL's path and query, the `host` (from the URL), `x-amz-date` and
/// the SHA-256 of `body`. `url` is absolute and already percent-encoded
/// (`https://abc.execute-api.eu-central-1.amazonaws.com/admin/v1/merchants/mch_1/webhook-endpoints?limit=10`).
pub fn sign_request(
    method: &str,
    url: &str,
    body: &[u8],
    creds: &AccessKey,
    region: &str,
    now: SystemTime,
) -> Result<Vec<(&'static str, String)>, SignError> {
    sign_request_with_headers(method, url, &[], body, creds, region, now)
}

/// [`sign_request`] that also signs `headers` (e.g. `content-type`), which the request
/// must then carry with exactly these values.
pub fn sign_request_with_headers(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    creds: &AccessKey,
    region: &str,
    now: SystemTime,
) -> Result<Vec<(&'static str, String)>, SignError> {
    sign_request_with_session_token(method, url, headers, body, creds, None, region, now)
}

/// [`sign_request_with_headers`] with temporary credentials: `session_token` (from STS,
/// SSO, an instance or container role, …) is sent as `x-amz-security-token` and signed, as
/// API Gateway requires for such credentials. With `None` it signs exactly like
/// [`sign_request_with_headers`]. The returned headers then include
/// `x-amz-security-token`, which the request must carry.
#[allow(clippy::too_many_arguments)]
pub fn sign_request_with_session_token(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    creds: &AccessKey,
    session_token: Option<&str>,
    region: &str,
    now: SystemTime,
) -> Result<Vec<(&'static str, String)>, SignError> {
    let request = Unsigned {
        method,
        uri: url,
        headers,
        body,
    };
    let (instructions, _signature) = signed(&request, creds, session_token, region, now)?;
    let mut out = Vec::new();
    for (name, value) in instructions.headers() {
        let name = match name.to_ascii_lowercase().as_str() {
            "authorization" => "authorization",
            DATE_HEADER => DATE_HEADER,
            "x-amz-security-token" => "x-amz-security-token",
            "x-amz-content-sha256" => "x-amz-content-sha256",
            other => return Err(SignError(format!("unexpected signing header {other}"))),
        };
        out.push((name, value.to_owned()));
    }
    Ok(out)
}

/// The signature (lowercase hex) of a request as received: `uri` is
/// `http://<host><path>[?<query>]` exactly as sent, `headers` the signed headers with
/// their values (`host` included; `x-amz-date` is taken from `time`), `time` the parsed
/// `X-Amz-Date`. Every header given is signed, none other.
pub fn compute_signature(
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    creds: &AccessKey,
    region: &str,
    time: SystemTime,
) -> Result<String, SignError> {
    let request = Unsigned {
        method,
        uri,
        headers,
        body,
    };
    signed(&request, creds, None, region, time).map(|(_, signature)| signature)
}

/// A request to sign: method, absolute URI, the headers to sign, body.
struct Unsigned<'a> {
    method: &'a str,
    uri: &'a str,
    headers: &'a [(&'a str, &'a str)],
    body: &'a [u8],
}

/// The SDK's signer over one request: what to add to it, and the signature.
fn signed(
    r: &Unsigned<'_>,
    creds: &AccessKey,
    session_token: Option<&str>,
    region: &str,
    time: SystemTime,
) -> Result<(SigningInstructions, String), SignError> {
    let identity = Credentials::new(
        &creds.access_key_id,
        &creds.secret_access_key,
        session_token.map(str::to_owned),
        None,
        "paygate-sigv4",
    )
    .into();
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name(SERVICE)
        .time(time)
        .settings(settings())
        .build()
        .map_err(|e| SignError(e.to_string()))?
        .into();
    let request = SignableRequest::new(
        r.method,
        r.uri,
        r.headers.iter().copied(),
        SignableBody::Bytes(r.body),
    )
    .map_err(|e| SignError(e.to_string()))?;
    Ok(sign(request, &params)
        .map_err(|e| SignError(e.to_string()))?
        .into_parts())
}

/// The SDK's defaults for `execute-api`, except that no header is excluded: whatever header
/// is handed in is signed, so signer and verifier agree on the signed set.
fn settings() -> SigningSettings {
    let mut s = SigningSettings::default();
    s.excluded_headers = Some(Vec::<Cow<'static, str>>::new());
    s
}

/// Parses an `X-Amz-Date` value (`YYYYMMDDTHHMMSSZ`, UTC).
pub fn parse_amz_date(value: &str) -> Option<SystemTime> {
    let format = time::macros::format_description!("[year][month][day]T[hour][minute][second]Z");
    let dt = time::PrimitiveDateTime::parse(value, &format).ok()?;
    Some(SystemTime::from(dt.assume_utc()))
}

/// Formats a time as `X-Amz-Date` does.
pub fn format_amz_date(t: SystemTime) -> String {
    let dt = time::OffsetDateTime::from(t);
    format!(
        "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
        dt.year(),
        u8::from(dt.month()),
        dt.day(),
        dt.hour(),
        dt.minute(),
        dt.second()
    )
}

/// The parts of an `Authorization: AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…,
/// Signature=…` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationHeader {
    pub access_key_id: String,
    /// `YYYYMMDD` of the credential scope.
    pub date: String,
    pub region: String,
    pub service: String,
    /// Lowercase header names, as listed.
    pub signed_headers: Vec<String>,
    pub signature: String,
}

impl AuthorizationHeader {
    /// Parses the header; `None` when it is not a well-formed SigV4 header.
    pub fn parse(value: &str) -> Option<Self> {
        let rest = value.trim().strip_prefix(ALGORITHM)?;
        if !rest.starts_with(' ') {
            return None;
        }
        let (mut credential, mut signed, mut signature) = (None, None, None);
        for part in rest.split(',') {
            let (k, v) = part.trim().split_once('=')?;
            let slot = match k {
                "Credential" => &mut credential,
                "SignedHeaders" => &mut signed,
                "Signature" => &mut signature,
                _ => return None,
            };
            if slot.replace(v.to_owned()).is_some() {
                return None;
            }
        }
        let credential = credential?;
        let scope: Vec<&str> = credential.split('/').collect();
        let [key, date, region, service, "aws4_request"] = scope.as_slice() else {
            return None;
        };
        let signed_headers: Vec<String> = signed?.split(';').map(str::to_owned).collect();
        let signature = signature?;
        let hex = signature.len() == 64
            && signature
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !hex
            || key.is_empty()
            || signed_headers
                .iter()
                .any(|h| h.is_empty() || h.to_ascii_lowercase() != *h)
        {
            return None;
        }
        Some(Self {
            access_key_id: (*key).to_owned(),
            date: (*date).to_owned(),
            region: (*region).to_owned(),
            service: (*service).to_owned(),
            signed_headers,
            signature,
        })
    }
}

/// Compares two strings in time that depends on their lengths only.
pub fn constant_time_eq(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::*;

    fn key() -> AccessKey {
        AccessKey {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
        }
    }

    fn t0() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_795_253_400) // 2026-11-21T09:30:00Z
    }

    /// The value of header `name` among signed headers.
    fn header(h: &[(&'static str, String)], name: &str) -> Option<String> {
        h.iter().find(|(k, _)| *k == name).map(|(_, v)| v.clone())
    }

    /// The parsed `Authorization` header among signed headers.
    fn authorization(h: &[(&'static str, String)]) -> AuthorizationHeader {
        AuthorizationHeader::parse(&header(h, "authorization").unwrap()).unwrap()
    }

    /// The signature of a GET of `url` with `headers` and an empty body, by [`key`] at
    /// [`t0`] in us-east-1, computed from its parts.
    fn get_signature(url: &str, headers: &[(&str, &str)]) -> String {
        compute_signature("GET", url, headers, b"", &key(), "us-east-1", t0()).unwrap()
    }

    #[test]
    fn signing_gives_authorization_and_date_headers() {
        let h = sign_request(
            "GET",
            "https://api.example.com/admin/v1/merchants/mch_1/webhook-endpoints?limit=2",
            b"",
            &key(),
            "us-east-1",
            t0(),
        )
        .unwrap();
        assert_eq!(header(&h, DATE_HEADER).as_deref(), Some("20261121T093000Z"));
        let auth = authorization(&h);
        assert_eq!(auth.access_key_id, "AKIDEXAMPLE");
        assert_eq!(
            (
                auth.date.as_str(),
                auth.region.as_str(),
                auth.service.as_str()
            ),
            ("20261121", "us-east-1", SERVICE)
        );
        assert_eq!(auth.signed_headers, ["host", "x-amz-date"]);
        // the same request computed from its parts gives the same signature
        let again = get_signature(
            "http://api.example.com/admin/v1/merchants/mch_1/webhook-endpoints?limit=2",
            &[("host", "api.example.com")],
        );
        assert_eq!(again, auth.signature);
    }

    #[test]
    fn the_body_the_path_and_the_key_change_the_signature() {
        let sig = |method: &str, url: &str, body: &[u8], k: &AccessKey| {
            let h = sign_request(method, url, body, k, "us-east-1", t0()).unwrap();
            authorization(&h).signature
        };
        let url = "http://127.0.0.1:3000/admin/v1/merchants/mch_1/webhook-endpoints";
        let base = sig("POST", url, b"{}", &key());
        assert_ne!(base, sig("POST", url, b"{ }", &key()));
        assert_ne!(base, sig("PUT", url, b"{}", &key()));
        assert_ne!(
            base,
            sig("POST", &url.replace("mch_1", "mch_2"), b"{}", &key())
        );
        let mut other = key();
        other.secret_access_key.push('x');
        assert_ne!(base, sig("POST", url, b"{}", &other));
    }

    #[test]
    fn a_session_token_is_sent_and_signed() {
        let url = "https://api.example.com/admin/v1/merchants/mch_1/webhook-endpoints";
        let h = sign_request_with_session_token(
            "GET",
            url,
            &[],
            b"",
            &key(),
            Some("FwoGZXIvYXdzEXAMPLETOKEN"),
            "us-east-1",
            t0(),
        )
        .unwrap();
        assert_eq!(
            header(&h, "x-amz-security-token").as_deref(),
            Some("FwoGZXIvYXdzEXAMPLETOKEN")
        );
        let auth = authorization(&h);
        assert_eq!(
            auth.signed_headers,
            ["host", "x-amz-date", "x-amz-security-token"]
        );
        let again = get_signature(
            url,
            &[
                ("host", "api.example.com"),
                ("x-amz-security-token", "FwoGZXIvYXdzEXAMPLETOKEN"),
            ],
        );
        assert_eq!(again, auth.signature);
        // without a token: the same headers as sign_request_with_headers
        let plain =
            sign_request_with_session_token("GET", url, &[], b"", &key(), None, "us-east-1", t0())
                .unwrap();
        assert_eq!(
            plain,
            sign_request_with_headers("GET", url, &[], b"", &key(), "us-east-1", t0()).unwrap()
        );
    }

    #[test]
    fn amz_dates_round_trip() {
        assert_eq!(format_amz_date(t0()), "20261121T093000Z");
        assert_eq!(parse_amz_date("20261121T093000Z"), Some(t0()));
        for bad in [
            "2026-11-21T09:30:00Z",
            "20261121T093000",
            "",
            "20261321T093000Z",
        ] {
            assert_eq!(parse_amz_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn authorization_headers_parse_strictly() {
        let sig = "a".repeat(64);
        let ok = format!(
            "AWS4-HMAC-SHA256 Credential=AKID/20261121/us-east-1/execute-api/aws4_request, SignedHeaders=host;x-amz-date, Signature={sig}"
        );
        assert!(AuthorizationHeader::parse(&ok).is_some());
        for bad in [
            "Bearer sk_test_x".to_owned(),
            ok.replace("AWS4-HMAC-SHA256", "AWS4-HMAC-SHA1"),
            ok.replace("/aws4_request", ""),
            ok.replace(&sig, "zz"),
            ok.replace("SignedHeaders=host;x-amz-date, ", ""),
            format!("{ok}, Signature={sig}"),
            ok.replace("host;", "Host;"),
        ] {
            assert_eq!(AuthorizationHeader::parse(&bad), None, "{bad}");
        }
    }

    #[test]
    fn constant_time_eq_compares_whole_strings() {
        assert!(constant_time_eq("abc", "abc"));
        assert!(!constant_time_eq("abc", "abd"));
        assert!(!constant_time_eq("abc", "ab"));
    }

    #[test]
    fn debug_hides_secrets() {
        let c = AdminCredentials {
            access_key_id: "AKID".into(),
            secret_access_key: "topsecret".into(),
            region: "us-east-1".into(),
        };
        assert!(!format!("{c:?}{:?}", c.access_key()).contains("topsecret"));
    }
}
