#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `HttpSender` against a local HTTPS receiver (rcgen self-signed certificate for
//! 127.0.0.1 / localhost / *.test names, axum-server with rustls on 127.0.0.1:0), reachable
//! only through an explicit policy exemption plus the certificate as an extra root.

use std::{
    collections::HashMap,
    io,
    net::IpAddr,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
    time::{Duration, Instant},
};

use async_trait::async_trait;
use axum::{
    body::Bytes,
    http::{header, HeaderMap, StatusCode, Uri},
    response::{IntoResponse, Response},
    routing::post,
    Router,
};
use paygate_domain::{
    ports::{SendOutcome, WebhookSender},
    webhook::{Attempt, AttemptError},
};
use paygate_webhooks::{
    sender::ssrf::Resolver, signed_headers, EgressPolicy, HttpSender, SenderConfig,
    RESPONSE_BODY_CAP,
};

const SECRET: &str = "whsec_test_secret";
const T: i64 = 1_795_251_600;
const BODY: &[u8] = br#"{"id":"evt_1","type":"payment.captured"}"#;

struct Receiver {
    port: u16,
    cert_pem: Vec<u8>,
    /// Paths of the requests that reached a handler.
    hits: Arc<Mutex<Vec<String>>>,
    handle: axum_server::Handle<std::net::SocketAddr>,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.handle.shutdown();
    }
}

impl Receiver {
    fn url(&self, host: &str, path: &str) -> String {
        format!("https://{host}:{}{path}", self.port)
    }

    fn hits(&self) -> Vec<String> {
        self.hits.lock().unwrap().clone()
    }
}

fn header_str<'a>(h: &'a HeaderMap, name: &str) -> &'a str {
    h.get(name).and_then(|v| v.to_str().ok()).unwrap_or("")
}

/// Accepts only a correctly signed webhook with the spec's headers.
async fn ok_handler(headers: HeaderMap, body: Bytes) -> Response {
    let sig = header_str(&headers, "x-svc-signature");
    let valid = paygate_webhooks::signature::verify(sig, &body, &[SECRET], T, 300).is_ok()
        && header_str(&headers, "x-svc-event") == "payment.captured"
        && header_str(&headers, "x-svc-delivery") == "dlv_test1"
        && header_str(&headers, "content-type") == "application/json"
        && header_str(&headers, "user-agent").starts_with("paygate-webhooks/");
    if valid {
        (StatusCode::OK, "received").into_response()
    } else {
        (StatusCode::BAD_REQUEST, "bad signature or headers").into_response()
    }
}

/// A local HTTPS receiver. The sender speaks HTTP/1.1 only (paygate-tls offers nothing
/// else), so `Connection: close` ends a connection.
async fn start_receiver() -> Receiver {
    let key = rcgen::generate_simple_self_signed(vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "hook.test".to_owned(),
        "rebind.test".to_owned(),
    ])
    .unwrap();
    let cert_pem = key.cert.pem().into_bytes();
    let key_pem = key.signing_key.serialize_pem().into_bytes();

    let hits = Arc::new(Mutex::new(Vec::new()));
    let record = {
        let hits = hits.clone();
        move |uri: Uri| hits.lock().unwrap().push(uri.path().to_owned())
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let target = format!("https://127.0.0.1:{port}/target");

    let r = record.clone();
    let app = Router::new()
        .route(
            "/ok",
            post(move |uri: Uri, h: HeaderMap, b: Bytes| {
                r(uri);
                ok_handler(h, b)
            }),
        )
        .route(
            "/fail",
            post({
                let r = record.clone();
                move |uri: Uri| async move {
                    r(uri);
                    (StatusCode::INTERNAL_SERVER_ERROR, "E".repeat(10 * 1024))
                }
            }),
        )
        .route(
            "/slow",
            post({
                let r = record.clone();
                move |uri: Uri| async move {
                    r(uri);
                    // The receiver is slow; the test itself never waits for it.
                    tokio::time::sleep(Duration::from_secs(30)).await;
                    "too late"
                }
            }),
        )
        .route(
            "/redirect",
            post({
                let r = record.clone();
                move |uri: Uri| async move {
                    r(uri);
                    (StatusCode::FOUND, [(header::LOCATION, target)], "moved")
                }
            }),
        )
        .route(
            "/target",
            post({
                let r = record.clone();
                move |uri: Uri| async move {
                    r(uri);
                    "redirect followed"
                }
            }),
        )
        .route(
            "/trickle",
            post({
                let r = record.clone();
                move |uri: Uri| async move {
                    r(uri);
                    // The head and a few bytes at once, then nothing for 30 s.
                    let chunks = futures::stream::unfold(0u8, |n| async move {
                        if n > 0 {
                            tokio::time::sleep(Duration::from_secs(30)).await;
                        }
                        Some((Ok::<_, io::Error>(Bytes::from_static(b"partial")), n + 1))
                    });
                    axum::body::Body::from_stream(chunks)
                }
            }),
        )
        .route(
            "/close",
            post({
                let r = record.clone();
                move |uri: Uri| async move {
                    r(uri);
                    ([(header::CONNECTION, "close")], "bye")
                }
            }),
        );

    paygate_tls::install_process_default();
    let tls = axum_server::tls_rustls::RustlsConfig::from_pem(cert_pem.clone(), key_pem)
        .await
        .unwrap();
    let handle = axum_server::Handle::new();
    let server = axum_server::from_tcp_rustls(listener, tls)
        .unwrap()
        .handle(handle.clone());
    tokio::spawn(server.serve(app.into_make_service()));
    Receiver {
        port,
        cert_pem,
        hits,
        handle,
    }
}

/// Names → answers, counting lookups.
struct CountingDns {
    answers: HashMap<&'static str, Vec<Vec<IpAddr>>>,
    calls: AtomicUsize,
}

impl CountingDns {
    fn new(answers: &[(&'static str, &[&[&str]])]) -> Arc<Self> {
        let answers = answers
            .iter()
            .map(|(name, seq)| {
                let seq = seq
                    .iter()
                    .map(|a| a.iter().map(|ip| ip.parse().unwrap()).collect())
                    .collect();
                (*name, seq)
            })
            .collect();
        Arc::new(Self {
            answers,
            calls: AtomicUsize::new(0),
        })
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl Resolver for CountingDns {
    /// Answers in sequence per name; the last answer repeats.
    async fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        let seq = self
            .answers
            .get(host)
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such host"))?;
        let per_name = n.min(seq.len() - 1);
        Ok(seq[per_name].clone())
    }
}

fn allowing_loopback(rx: &Receiver, timeout: Duration) -> SenderConfig {
    SenderConfig {
        policy: EgressPolicy::parse_allow_list("127.0.0.1").unwrap(),
        extra_ca_pem: Some(rx.cert_pem.clone()),
        timeout,
    }
}

fn sender(config: SenderConfig) -> HttpSender {
    let dns = CountingDns::new(&[
        ("hook.test", &[&["127.0.0.1"]]),
        ("localhost", &[&["127.0.0.1", "::1"]]),
    ]);
    HttpSender::with_resolver(config, dns).unwrap()
}

async fn send(s: &HttpSender, url: &str) -> SendOutcome {
    let headers = signed_headers("payment.captured", "dlv_test1", &[SECRET], T, BODY);
    s.send(url, &headers, BODY.to_vec()).await
}

#[tokio::test]
async fn a_signed_webhook_gets_200() {
    let rx = start_receiver().await;
    let s = sender(allowing_loopback(&rx, Duration::from_secs(5)));
    let out = send(&s, &rx.url("127.0.0.1", "/ok")).await;
    assert_eq!(out.status_code, Some(200), "{out:?}");
    assert_eq!(out.error, None);
    assert_eq!(out.response_body, "received");
    assert!(Attempt::is_success(out.status_code));
    assert_eq!(rx.hits(), ["/ok"]);
}

#[tokio::test]
async fn a_name_is_resolved_once_through_the_guard() {
    let rx = start_receiver().await;
    let dns = CountingDns::new(&[("hook.test", &[&["127.0.0.1"]])]);
    let s = HttpSender::with_resolver(allowing_loopback(&rx, Duration::from_secs(5)), dns.clone())
        .unwrap();
    let out = send(&s, &rx.url("hook.test", "/ok")).await;
    assert_eq!(out.status_code, Some(200), "{out:?}");
    assert_eq!(dns.calls(), 1);
}

#[tokio::test]
async fn a_500_is_a_failure_with_a_capped_body() {
    let rx = start_receiver().await;
    let s = sender(allowing_loopback(&rx, Duration::from_secs(5)));
    let out = send(&s, &rx.url("127.0.0.1", "/fail")).await;
    assert_eq!(out.status_code, Some(500));
    assert_eq!(out.error, None);
    assert_eq!(out.response_body.len(), RESPONSE_BODY_CAP);
    assert!(out.response_body.bytes().all(|b| b == b'E'));
    assert!(!Attempt::is_success(out.status_code));
}

#[tokio::test]
async fn a_slow_receiver_times_out_at_the_deadline() {
    let rx = start_receiver().await;
    let s = sender(allowing_loopback(&rx, Duration::from_millis(500)));
    let started = Instant::now();
    let out = send(&s, &rx.url("127.0.0.1", "/slow")).await;
    let took = started.elapsed();
    assert_eq!(out.error, Some(AttemptError::Timeout), "{out:?}");
    assert_eq!(out.status_code, None);
    assert!(took >= Duration::from_millis(500), "{took:?}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert!(out.duration_ms >= 500 && out.duration_ms < 3_000);
    assert_eq!(rx.hits(), ["/slow"]);
}

#[tokio::test]
async fn a_slow_body_counts_against_the_same_deadline() {
    let rx = start_receiver().await;
    let s = sender(allowing_loopback(&rx, Duration::from_millis(500)));
    let started = Instant::now();
    let out = send(&s, &rx.url("127.0.0.1", "/trickle")).await;
    assert_eq!(out.error, Some(AttemptError::Timeout), "{out:?}");
    assert_eq!(
        out.status_code, None,
        "a 200 head without its body is not a success"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn a_dropped_connection_is_a_connection_error() {
    // Accepts TCP and closes at once, before TLS.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            drop(sock);
        }
    });
    let s = HttpSender::new(SenderConfig {
        policy: EgressPolicy::parse_allow_list("127.0.0.1").unwrap(),
        extra_ca_pem: None,
        timeout: Duration::from_secs(5),
    })
    .unwrap();
    let out = send(&s, &format!("https://127.0.0.1:{port}/hook")).await;
    assert_eq!(out.error, Some(AttemptError::Connection), "{out:?}");
    assert_eq!(out.status_code, None);
}

#[tokio::test]
async fn a_refused_connection_is_a_connection_error() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    }; // closed again: nothing listens there
    let s = HttpSender::new(SenderConfig {
        policy: EgressPolicy::parse_allow_list("127.0.0.1").unwrap(),
        extra_ca_pem: None,
        timeout: Duration::from_secs(5),
    })
    .unwrap();
    let out = send(&s, &format!("https://127.0.0.1:{port}/hook")).await;
    assert_eq!(out.error, Some(AttemptError::Connection), "{out:?}");
}

#[tokio::test]
async fn a_redirect_is_not_followed() {
    let rx = start_receiver().await;
    let s = sender(allowing_loopback(&rx, Duration::from_secs(5)));
    let out = send(&s, &rx.url("127.0.0.1", "/redirect")).await;
    assert_eq!(out.status_code, Some(302), "{out:?}");
    assert_eq!(out.error, None);
    assert!(!Attempt::is_success(out.status_code));
    assert_eq!(rx.hits(), ["/redirect"], "the target was never requested");
}

#[tokio::test]
async fn loopback_without_the_exemption_is_blocked_and_nothing_arrives() {
    let rx = start_receiver().await;
    let s = sender(SenderConfig {
        policy: EgressPolicy::strict(),
        ..allowing_loopback(&rx, Duration::from_secs(5))
    });
    for host in [
        "127.0.0.1",
        "localhost",
        "hook.test",
        "[::ffff:127.0.0.1]",
        "2130706433",
    ] {
        let out = send(&s, &rx.url(host, "/ok")).await;
        assert_eq!(out.error, Some(AttemptError::Blocked), "{host}: {out:?}");
        assert_eq!(out.status_code, None);
    }
    assert!(rx.hits().is_empty());
}

#[tokio::test]
async fn plain_http_is_blocked_even_when_the_address_is_exempt() {
    let rx = start_receiver().await;
    let s = sender(allowing_loopback(&rx, Duration::from_secs(5)));
    let out = send(&s, &format!("http://127.0.0.1:{}/ok", rx.port)).await;
    assert_eq!(out.error, Some(AttemptError::Blocked), "{out:?}");
    assert!(rx.hits().is_empty());
}

#[tokio::test]
async fn a_self_signed_certificate_without_the_extra_root_is_a_tls_error() {
    let rx = start_receiver().await;
    let s = sender(SenderConfig {
        extra_ca_pem: None,
        ..allowing_loopback(&rx, Duration::from_secs(5))
    });
    let out = send(&s, &rx.url("127.0.0.1", "/ok")).await;
    assert_eq!(out.error, Some(AttemptError::Tls), "{out:?}");
    assert!(rx.hits().is_empty());
}

#[tokio::test]
async fn an_unknown_name_is_a_dns_error() {
    let rx = start_receiver().await;
    let s = sender(allowing_loopback(&rx, Duration::from_secs(5)));
    let out = send(&s, &rx.url("nx.test", "/ok")).await;
    assert_eq!(out.error, Some(AttemptError::Dns), "{out:?}");
}

#[tokio::test]
async fn rebinding_a_new_connection_is_checked_against_a_new_answer() {
    let rx = start_receiver().await;
    // First answer: the exempt 127.0.0.1. Then the name "rebinds" to 127.0.0.2 (loopback,
    // not exempt), as an attacker's DNS would after the first check.
    let dns = CountingDns::new(&[("rebind.test", &[&["127.0.0.1"], &["127.0.0.2"]])]);
    let s = HttpSender::with_resolver(allowing_loopback(&rx, Duration::from_secs(5)), dns.clone())
        .unwrap();

    // /close answers with `Connection: close`, so the next send needs a new connection.
    let first = send(&s, &rx.url("rebind.test", "/close")).await;
    assert_eq!(first.status_code, Some(200), "{first:?}");
    assert_eq!(dns.calls(), 1, "one lookup per send");

    let second = send(&s, &rx.url("rebind.test", "/close")).await;
    assert_eq!(second.error, Some(AttemptError::Blocked), "{second:?}");
    assert_eq!(dns.calls(), 2);
    assert_eq!(
        rx.hits(),
        ["/close"],
        "the rebound address was never dialled"
    );
}
