//! A merchant's webhook receiver for the tests: HTTPS on `127.0.0.1:<free port>` with an
//! rcgen self-signed certificate (axum-server over rustls), recording every request it gets
//! (path, headers, raw body, arrival time) and answering each path from a script.
//!
//! The stack's sender reaches it only through the same two local-development exemptions
//! `make dev` uses: `127.0.0.1` on the egress allow list and this certificate as an extra
//! root ([`Receiver::sender_config`]).

use std::{
    collections::{HashMap, VecDeque},
    io,
    net::SocketAddr,
    pin::Pin,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    task::{Context, Poll},
    time::{Duration, Instant},
};

use axum::{
    body::Bytes,
    extract::{ConnectInfo, State},
    http::{HeaderMap, StatusCode, Uri},
    response::{IntoResponse, Response},
    Router,
};
use paygate_compose::system::SystemClock;
use paygate_domain::ports::Clock;
use paygate_webhooks::{EgressPolicy, SenderConfig};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// How the receiver answers one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Respond with this status.
    Status(u16),
    /// Never answer in time: hold the request for a minute.
    Hang,
    /// Close the connection without answering.
    Close,
}

/// One request as it arrived.
#[derive(Debug, Clone)]
pub struct Hook {
    pub path: String,
    /// Header names lowercase, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The raw body, byte for byte.
    pub body: Vec<u8>,
    /// When it arrived (monotonic).
    pub at: Instant,
    /// When it arrived (wall clock, Unix seconds).
    pub unix_secs: i64,
    /// What the script answered.
    pub answer: Answer,
}

impl Hook {
    /// The value of header `name` (any case), if present once or more (the first).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// How many times header `name` (any case) appears.
    pub fn header_count(&self, name: &str) -> usize {
        let name = name.to_ascii_lowercase();
        self.headers.iter().filter(|(n, _)| *n == name).count()
    }

    /// The body as JSON (panics if it is not).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "webhook body is not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

#[derive(Default)]
struct Shared {
    hooks: Mutex<Vec<Hook>>,
    scripts: Mutex<HashMap<String, VecDeque<Answer>>>,
    /// The kill switch of every open connection, by peer address.
    connections: Mutex<HashMap<SocketAddr, Arc<AtomicBool>>>,
}

/// A running receiver; dropping it stops it.
pub struct Receiver {
    port: u16,
    cert_pem: Vec<u8>,
    shared: Arc<Shared>,
    handle: axum_server::Handle<SocketAddr>,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.handle.shutdown();
    }
}

impl Receiver {
    /// Starts a receiver on `127.0.0.1:0`; every path answers 200 until scripted.
    pub async fn start() -> Receiver {
        let key = rcgen::generate_simple_self_signed(vec![
            "127.0.0.1".to_owned(),
            "localhost".to_owned(),
        ])
        .expect("self-signed certificate");
        let cert_pem = key.cert.pem().into_bytes();
        let key_pem = key.signing_key.serialize_pem().into_bytes();

        let shared = Arc::new(Shared::default());
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener
            .set_nonblocking(true)
            .expect("non-blocking listener");
        let port = listener.local_addr().expect("local address").port();

        let app = Router::new()
            .fallback(record_and_answer)
            .with_state(shared.clone());
        paygate_tls::install_process_default();
        let tls = axum_server::tls_rustls::RustlsConfig::from_pem(cert_pem.clone(), key_pem)
            .await
            .expect("TLS configuration");
        let acceptor = axum_server::tls_rustls::RustlsAcceptor::new(tls).acceptor(Tracking {
            shared: shared.clone(),
        });
        let handle = axum_server::Handle::new();
        let server = axum_server::from_tcp(listener)
            .expect("server from listener")
            .acceptor(acceptor)
            .handle(handle.clone());
        tokio::spawn(server.serve(app.into_make_service_with_connect_info::<SocketAddr>()));
        Receiver {
            port,
            cert_pem,
            shared,
            handle,
        }
    }

    /// `https://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("https://127.0.0.1:{}{path}", self.port)
    }

    /// The receiver's self-signed certificate (PEM).
    pub fn cert_pem(&self) -> Vec<u8> {
        self.cert_pem.clone()
    }

    /// A sender configuration that reaches this receiver: `127.0.0.1` exempt from the
    /// private-network refusal, the certificate trusted, `timeout` per attempt.
    pub fn sender_config(&self, timeout: Duration) -> SenderConfig {
        SenderConfig {
            policy: EgressPolicy::parse_allow_list("127.0.0.1").expect("an IP"),
            extra_ca_pem: Some(self.cert_pem()),
            timeout,
        }
    }

    /// The next requests to `path` get these answers, in order; after them, 200.
    pub fn script(&self, path: &str, answers: impl IntoIterator<Item = Answer>) {
        self.shared
            .scripts
            .lock()
            .unwrap()
            .entry(path.to_owned())
            .or_default()
            .extend(answers);
    }

    /// Every request so far, in arrival order.
    pub fn hooks(&self) -> Vec<Hook> {
        self.shared.hooks.lock().unwrap().clone()
    }

    /// The requests to `path` so far, in arrival order.
    pub fn hooks_to(&self, path: &str) -> Vec<Hook> {
        self.hooks()
            .into_iter()
            .filter(|h| h.path == path)
            .collect()
    }

    /// Waits until `path` has had at least `n` requests, at most `within`; returns them
    /// all. Panics with what did arrive when the time is up.
    pub async fn wait_for(&self, path: &str, n: usize, within: Duration) -> Vec<Hook> {
        let deadline = Instant::now() + within;
        loop {
            let got = self.hooks_to(path);
            if got.len() >= n {
                return got;
            }
            if Instant::now() >= deadline {
                let seen: Vec<_> = self
                    .hooks()
                    .iter()
                    .map(|h| format!("{} {:?} {:?}", h.path, h.header("x-svc-event"), h.answer))
                    .collect();
                panic!(
                    "{path}: {} of {n} webhook requests within {within:?}; all requests: {seen:?}",
                    got.len()
                );
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

async fn record_and_answer(
    State(shared): State<Arc<Shared>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().to_owned();
    let answer = shared
        .scripts
        .lock()
        .unwrap()
        .get_mut(&path)
        .and_then(VecDeque::pop_front)
        .unwrap_or(Answer::Status(200));
    let hook = Hook {
        path,
        headers: headers
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_ascii_lowercase(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body: body.to_vec(),
        at: Instant::now(),
        unix_secs: SystemClock.now().unix_seconds(),
        answer,
    };
    shared.hooks.lock().unwrap().push(hook);
    match answer {
        Answer::Status(code) => {
            let status = StatusCode::from_u16(code).expect("a valid status");
            (status, format!("answered {code}")).into_response()
        }
        Answer::Hang => {
            tokio::time::sleep(Duration::from_secs(60)).await;
            (StatusCode::OK, "too late").into_response()
        }
        Answer::Close => {
            if let Some(killed) = shared.connections.lock().unwrap().get(&peer) {
                killed.store(true, Ordering::SeqCst);
            }
            // Never reaches the sender: the connection is gone.
            (StatusCode::OK, "closed").into_response()
        }
    }
}

/// Wraps every accepted TCP socket (under TLS) in a [`Killable`] and files its kill switch
/// under the peer address, so that a handler can close its own connection.
#[derive(Clone)]
struct Tracking {
    shared: Arc<Shared>,
}

impl<S> axum_server::accept::Accept<tokio::net::TcpStream, S> for Tracking {
    type Stream = Killable;
    type Service = S;
    type Future = std::future::Ready<io::Result<(Self::Stream, Self::Service)>>;

    fn accept(&self, stream: tokio::net::TcpStream, service: S) -> Self::Future {
        // As production web servers do: without it, a response written in two segments
        // waits for the sender's delayed ACK (~40 ms per concurrent request).
        let _ = stream.set_nodelay(true);
        std::future::ready(stream.peer_addr().map(|peer| {
            let killed = Arc::new(AtomicBool::new(false));
            self.shared
                .connections
                .lock()
                .unwrap()
                .insert(peer, killed.clone());
            let stream = Killable {
                inner: stream,
                killed,
                peer,
                shared: self.shared.clone(),
            };
            (stream, service)
        }))
    }
}

/// A TCP stream that fails every read and write once killed, so that the server drops
/// (closes) it without writing another byte.
struct Killable {
    inner: tokio::net::TcpStream,
    killed: Arc<AtomicBool>,
    peer: SocketAddr,
    shared: Arc<Shared>,
}

impl Killable {
    fn check(&self) -> io::Result<()> {
        if self.killed.load(Ordering::SeqCst) {
            Err(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "closed by the test receiver",
            ))
        } else {
            Ok(())
        }
    }
}

impl Drop for Killable {
    fn drop(&mut self) {
        if let Ok(mut c) = self.shared.connections.lock() {
            c.remove(&self.peer);
        }
    }
}

impl AsyncRead for Killable {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.check()?;
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Killable {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.check()?;
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.check()?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
