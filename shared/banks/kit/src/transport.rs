//! The HTTP leg to a bank, bounded in time, with failures classified by what they mean for
//! money: a request that never left is a plain error; one that may have reached the bank is
//! an *unknown* outcome, settled later by a status query, never retried blindly.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use paygate_domain::BankOutcome;

/// Default bound on one bank call (connect + send + full response). An operation makes at
/// most three calls (e.g. Posnet: lookup, reverse capture, reverse authorization), so three
/// of these fit inside the bank-calling functions' 29 s Lambda timeout, itself inside API
/// Gateway's 30 s integration limit.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(8);
/// Largest bank response read.
pub const MAX_RESPONSE_BYTES: usize = 256 * 1024;
/// Largest answer of a day's report (a history-by-date page, `Wire::report`): a busy
/// merchant's day runs to thousands of lines of a few KB each.
pub const MAX_REPORT_BYTES: usize = 16 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// The connection could not be made: the bank never saw the request.
    #[error("could not connect to the bank")]
    NotSent,
    /// No complete answer in time: the bank may have acted.
    #[error("no answer from the bank in time")]
    Timeout,
    /// The connection broke after the request went out: the bank may have acted.
    #[error("the connection to the bank broke")]
    Broken,
    /// The bank's HTTP front answered with a non-2xx status.
    #[error("the bank answered HTTP {0}")]
    Http(u16),
    /// A 2xx answer larger than [`MAX_RESPONSE_BYTES`] (reading stopped at the limit): the
    /// bank did answer, so it may have acted.
    #[error("the bank's answer was too large")]
    TooLarge,
}

impl TransportError {
    /// Whether the bank may have performed the operation.
    pub fn maybe_applied(&self) -> bool {
        match self {
            Self::NotSent => false,
            // An answer over the size limit is still the bank's answer (a 2xx): whatever it
            // said went unread.
            Self::Timeout | Self::Broken | Self::TooLarge => true,
            // A 5xx from the front door (gateway time-out, bad gateway) can hide a request
            // the core system processed; a 4xx was refused before processing.
            Self::Http(code) => *code >= 500,
        }
    }

    /// The outcome of a money-moving call that failed this way.
    pub fn outcome(&self) -> BankOutcome {
        if self.maybe_applied() {
            BankOutcome::Unknown {
                reason: self.to_string(),
            }
        } else {
            BankOutcome::Error {
                code: "transport".to_owned(),
                message: self.to_string(),
            }
        }
    }
}

/// An HTTP client for bank calls: no redirects, no proxies from the environment, bounded.
/// Its reqwest client (TLS configuration, connection pool) is built by the first call, not
/// when a function starts (issue 20: the part of a money function's init that a function
/// without banks does not do); copies share it.
#[derive(Clone, Debug)]
pub struct BankTransport {
    client: Arc<OnceLock<reqwest::Client>>,
    timeout: Duration,
}

impl BankTransport {
    pub fn new(timeout: Duration) -> Self {
        Self {
            client: Arc::new(OnceLock::new()),
            timeout,
        }
    }

    /// The client, built on first use. A client that cannot be built sends nothing:
    /// [`TransportError::NotSent`].
    fn client(&self) -> Result<&reqwest::Client, TransportError> {
        if let Some(client) = self.client.get() {
            return Ok(client);
        }
        let built = reqwest::Client::builder()
            .tls_backend_preconfigured(paygate_tls::default_client_config())
            .timeout(self.timeout)
            .connect_timeout(self.timeout.min(Duration::from_secs(5)))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .user_agent(concat!("paygate/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|_| TransportError::NotSent)?;
        Ok(self.client.get_or_init(|| built))
    }

    /// The bound on one call (what a caller budgets per request).
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// POSTs `body` with `content_type`; returns the raw response body of a 2xx answer.
    pub async fn post(
        &self,
        url: &str,
        content_type: &str,
        body: Vec<u8>,
    ) -> Result<Vec<u8>, TransportError> {
        self.post_with_headers(url, content_type, &[], body).await
    }

    /// [`BankTransport::post`] with extra request headers (e.g. Posnet's `X-MERCHANT-ID`,
    /// `X-TERMINAL-ID`, `X-CORRELATION-ID`). Header values are never logged here.
    pub async fn post_with_headers(
        &self,
        url: &str,
        content_type: &str,
        headers: &[(&str, &str)],
        body: Vec<u8>,
    ) -> Result<Vec<u8>, TransportError> {
        self.post_limited(url, content_type, headers, body, MAX_RESPONSE_BYTES)
            .await
    }

    /// [`BankTransport::post_with_headers`] reading at most `limit` bytes of the answer.
    pub async fn post_limited(
        &self,
        url: &str,
        content_type: &str,
        headers: &[(&str, &str)],
        body: Vec<u8>,
        limit: usize,
    ) -> Result<Vec<u8>, TransportError> {
        let mut request = self
            .client()?
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, content_type);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let resp = request.body(body).send().await.map_err(|e| classify(&e))?;
        let status = resp.status().as_u16();
        if !(200..300).contains(&status) {
            return Err(TransportError::Http(status));
        }
        read_bounded(resp, limit).await
    }

    /// POSTs an `application/x-www-form-urlencoded` form (already encoded by the caller,
    /// e.g. Posnet's `xmldata=<url-encoded xml>`).
    pub async fn post_form(
        &self,
        url: &str,
        encoded_form: Vec<u8>,
    ) -> Result<Vec<u8>, TransportError> {
        self.post(url, "application/x-www-form-urlencoded", encoded_form)
            .await
    }
}

/// Reads a response body chunk by chunk and stops as soon as it passes `limit` bytes
/// (a declared length above it stops before reading anything): a bank answering without end
/// never fills memory nor holds the call until its time-out.
async fn read_bounded(
    mut resp: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, TransportError> {
    if resp
        .content_length()
        .is_some_and(|n| n > u64::try_from(limit).unwrap_or(u64::MAX))
    {
        return Err(TransportError::TooLarge);
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| classify(&e))? {
        if body.len().saturating_add(chunk.len()) > limit {
            return Err(TransportError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

fn classify(e: &reqwest::Error) -> TransportError {
    if e.is_timeout() {
        TransportError::Timeout
    } else if e.is_connect() || e.is_builder() {
        // A request that could not be built (bad header value, bad URL) never left.
        TransportError::NotSent
    } else {
        TransportError::Broken
    }
}

/// Percent-encodes a form value (application/x-www-form-urlencoded).
pub fn form_encode(value: &[u8]) -> String {
    let mut out = String::with_capacity(value.len() * 3);
    for &b in value {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'*' => {
                out.push(char::from(b))
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Decodes a form value (the simulators' side of [`form_encode`]).
pub fn form_decode(value: &str) -> Vec<u8> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_requests_that_may_have_arrived_are_unknown() {
        assert!(matches!(
            TransportError::Timeout.outcome(),
            BankOutcome::Unknown { .. }
        ));
        assert!(matches!(
            TransportError::Broken.outcome(),
            BankOutcome::Unknown { .. }
        ));
        assert!(matches!(
            TransportError::Http(504).outcome(),
            BankOutcome::Unknown { .. }
        ));
        assert!(matches!(
            TransportError::NotSent.outcome(),
            BankOutcome::Error { .. }
        ));
        assert!(matches!(
            TransportError::Http(400).outcome(),
            BankOutcome::Error { .. }
        ));
        // A 2xx answer over the size limit: the bank answered, so it may have acted.
        assert!(matches!(
            TransportError::TooLarge.outcome(),
            BankOutcome::Unknown { .. }
        ));
        let st = crate::CallError::Transport(TransportError::TooLarge).status();
        assert!(!st.is_conclusive(), "{st:?}");
    }

    /// A bank whose 2xx answer never ends (chunked) or declares a length over the limit:
    /// reading stops at the limit at once, `TooLarge`, instead of reading on until the
    /// time-out (before: the whole body was read first).
    #[tokio::test]
    async fn an_answer_over_the_limit_stops_the_read_at_the_limit() {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for mut conn in listener.incoming().flatten() {
                std::thread::spawn(move || {
                    let mut buf = vec![0u8; 4096];
                    let n = conn.read(&mut buf).unwrap_or(0);
                    let head = String::from_utf8_lossy(&buf[..n]).into_owned();
                    let fits = head.starts_with("POST /fits");
                    if head.starts_with("POST /declared") || fits {
                        let len = MAX_RESPONSE_BYTES + usize::from(!fits);
                        let reply = format!("HTTP/1.1 200 OK\r\ncontent-length: {len}\r\n\r\n");
                        let _ = conn.write_all(reply.as_bytes());
                        let _ = conn.write_all(&vec![b'x'; len]);
                        return;
                    }
                    let _ =
                        conn.write_all(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n");
                    let chunk = format!("10000\r\n{}\r\n", "x".repeat(0x10000));
                    while conn.write_all(chunk.as_bytes()).is_ok() {}
                });
            }
        });
        let t = BankTransport::new(Duration::from_secs(5));
        let started = std::time::Instant::now();
        for path in ["/endless", "/declared"] {
            let got = t
                .post(&format!("{base}{path}"), "text/plain", Vec::new())
                .await;
            assert_eq!(got, Err(TransportError::TooLarge), "{path}");
        }
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "stopped at the limit"
        );
        let fits = t
            .post(&format!("{base}/fits"), "text/plain", Vec::new())
            .await;
        assert_eq!(fits.map(|b| b.len()), Ok(MAX_RESPONSE_BYTES));
        // A day's report may be larger: one byte over an operation's limit reads whole.
        let report = t
            .post_limited(
                &format!("{base}/declared"),
                "text/plain",
                &[],
                Vec::new(),
                MAX_REPORT_BYTES,
            )
            .await;
        assert_eq!(report.map(|b| b.len()), Ok(MAX_RESPONSE_BYTES + 1));
    }

    /// Nothing is built at start-up: the first call builds the client, its copies share it,
    /// and a refused connection is `NotSent` (the bank never saw it).
    #[tokio::test]
    async fn the_client_is_built_by_the_first_call_and_shared() {
        let transport = BankTransport::new(Duration::from_secs(2));
        let copy = transport.clone();
        assert!(transport.client.get().is_none());
        let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = closed.local_addr().unwrap();
        drop(closed);
        let err = copy
            .post(&format!("http://{addr}/"), "text/xml", b"<a/>".to_vec())
            .await
            .unwrap_err();
        assert_eq!(err, TransportError::NotSent);
        assert!(transport.client.get().is_some());
    }

    #[test]
    fn form_round_trip() {
        let raw = "<a b=\"ş\">x & y+z</a>".as_bytes();
        let enc = form_encode(raw);
        assert!(!enc.contains('<') && !enc.contains('&'));
        assert_eq!(form_decode(&enc), raw);
        assert_eq!(form_decode("%zz"), b"%zz");
    }
}
