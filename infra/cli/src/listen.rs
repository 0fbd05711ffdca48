//! `paygate listen`'s receiver: a self-signed certificate for `127.0.0.1` and `localhost`
//! (rcgen, kept at `.local/listen/{cert.pem,key.pem}` and reused), an HTTPS server on
//! `127.0.0.1` (axum-server over rustls) that checks each request's `X-Svc-Signature` with
//! the endpoint's secret, answers, and hands every request on as a [`ReceivedEvent`].
//!
//! The local stack delivers here only when told to: `127.0.0.1` exempt from the
//! private-network refusal and this certificate trusted ([`dev_server_hint`]).

use paygate_webhooks::sender::deliver::{HEADER_DELIVERY, HEADER_EVENT, HEADER_SIGNATURE};
use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicU16, Ordering},
        Arc, RwLock,
    },
    time::SystemTime,
};

use axum::{
    body::Bytes,
    extract::State,
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    Router,
};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::CliError;

/// Where `listen` keeps its certificate, relative to the current directory.
pub const DEFAULT_CERT_DIR: &str = ".local/listen";
/// The signature check's tolerance (the spec's 300 s).
pub const TOLERANCE_SECS: i64 = paygate_webhooks::signature::DEFAULT_TOLERANCE_SECS;

/// The certificate and key files of a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertPaths {
    pub cert: PathBuf,
    pub key: PathBuf,
}

impl CertPaths {
    /// `dir/cert.pem` and `dir/key.pem`.
    pub fn in_dir(dir: &Path) -> Self {
        Self {
            cert: dir.join("cert.pem"),
            key: dir.join("key.pem"),
        }
    }
}

/// What the dev server must be started with to deliver to a listener whose certificate is
/// `cert` (`make dev` takes both from the environment).
pub fn dev_server_hint(cert: &Path) -> String {
    format!(
        "PAYGATE_WEBHOOK_ALLOW_ADDRS=127.0.0.1 PAYGATE_WEBHOOK_EXTRA_CA={}",
        cert.display()
    )
}

/// Creates the certificate and key when either is missing; `true` when it did. The key is
/// readable by its owner only.
pub fn ensure_cert(paths: &CertPaths) -> Result<bool, CliError> {
    if paths.cert.is_file() && paths.key.is_file() {
        return Ok(false);
    }
    let made =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
            .map_err(|e| CliError::Listener(format!("cannot make a certificate: {e}")))?;
    if let Some(dir) = paths.cert.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::io(format!("creating {}", dir.display()), e))?;
    }
    write_private(&paths.key, made.signing_key.serialize_pem().as_bytes())?;
    std::fs::write(&paths.cert, made.cert.pem())
        .map_err(|e| CliError::io(format!("writing {}", paths.cert.display()), e))?;
    Ok(true)
}

fn write_private(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    use std::io::Write as _;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        opts.mode(0o600);
    }
    opts.open(path)
        .and_then(|mut f| f.write_all(bytes))
        .map_err(|e| CliError::io(format!("writing {}", path.display()), e))
}

/// One request the listener got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedEvent {
    pub received_at: SystemTime,
    /// The body's `type` (else `X-Svc-Event`).
    pub event_type: String,
    /// The body's `id`.
    pub event_id: String,
    /// `X-Svc-Delivery`.
    pub delivery_id: String,
    /// The signature check: `Ok`, or why not.
    pub verdict: Result<(), String>,
    /// What the listener answered.
    pub answered: u16,
    /// The raw body.
    pub body: Vec<u8>,
}

impl ReceivedEvent {
    pub fn verified(&self) -> bool {
        self.verdict.is_ok()
    }
}

struct Shared {
    secret: RwLock<Option<String>>,
    answer: AtomicU16,
    events: mpsc::UnboundedSender<ReceivedEvent>,
    clock: fn() -> SystemTime,
}

/// A running listener; dropping it stops the server.
pub struct Receiver {
    port: u16,
    shared: Arc<Shared>,
    events: mpsc::UnboundedReceiver<ReceivedEvent>,
    handle: axum_server::Handle<SocketAddr>,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.handle.shutdown();
    }
}

impl Receiver {
    /// Serves HTTPS on `127.0.0.1:port` (0: any free port) with the certificate at `paths`.
    /// Every request answers 200 until [`Receiver::set_answer`].
    pub async fn start(
        paths: &CertPaths,
        port: u16,
        clock: fn() -> SystemTime,
    ) -> Result<Self, CliError> {
        paygate_tls::install_process_default();
        let tls = axum_server::tls_rustls::RustlsConfig::from_pem_file(&paths.cert, &paths.key)
            .await
            .map_err(|e| {
                CliError::Listener(format!("certificate {}: {e}", paths.cert.display()))
            })?;
        let listener = std::net::TcpListener::bind(("127.0.0.1", port))
            .map_err(|e| CliError::io(format!("listening on 127.0.0.1:{port}"), e))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| CliError::io("listening", e))?;
        let port = listener
            .local_addr()
            .map_err(|e| CliError::io("listening", e))?
            .port();
        let (tx, rx) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            secret: RwLock::new(None),
            answer: AtomicU16::new(200),
            events: tx,
            clock,
        });
        let app = Router::new().fallback(receive).with_state(shared.clone());
        let handle = axum_server::Handle::new();
        let server = axum_server::tls_rustls::from_tcp_rustls(listener, tls)
            .map_err(|e| CliError::io("listening", e))?
            .handle(handle.clone());
        tokio::spawn(async move {
            let _ = server.serve(app.into_make_service()).await;
        });
        Ok(Self {
            port,
            shared,
            events: rx,
            handle,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `https://127.0.0.1:<port>/`: what to register.
    pub fn url(&self) -> String {
        format!("https://127.0.0.1:{}/", self.port)
    }

    /// The signing secret to verify with (requests before it is set are INVALID).
    pub fn set_secret(&self, secret: &str) {
        if let Ok(mut s) = self.shared.secret.write() {
            *s = Some(secret.to_owned());
        }
    }

    /// The status every following request is answered with (e.g. 500 to make deliveries
    /// fail and be retried).
    pub fn set_answer(&self, status: u16) {
        self.shared.answer.store(status, Ordering::SeqCst);
    }

    /// The next request, in arrival order; `None` once the server is gone.
    pub async fn next_event(&mut self) -> Option<ReceivedEvent> {
        self.events.recv().await
    }
}

async fn receive(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let received_at = (shared.clock)();
    let now = received_at
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or(0);
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let secret = shared.secret.read().ok().and_then(|s| s.clone());
    let verdict = match (&secret, headers.get(HEADER_SIGNATURE).map(|v| v.to_str())) {
        (None, _) => Err("no signing secret yet".to_owned()),
        (_, None) => Err("no X-Svc-Signature header".to_owned()),
        (_, Some(Err(_))) => Err("X-Svc-Signature is not text".to_owned()),
        (Some(secret), Some(Ok(sig))) => {
            paygate_webhooks::signature::verify(sig, &body, &[secret.as_str()], now, TOLERANCE_SECS)
                .map_err(|e| e.to_string())
        }
    };
    let json: Option<Value> = serde_json::from_slice(&body).ok();
    let field = |k: &str| {
        json.as_ref()
            .and_then(|j| j.get(k))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let answered = shared.answer.load(Ordering::SeqCst);
    let event = ReceivedEvent {
        received_at,
        event_type: field("type").unwrap_or_else(|| header(HEADER_EVENT)),
        event_id: field("id").unwrap_or_default(),
        delivery_id: header(HEADER_DELIVERY),
        verdict,
        answered,
        body: body.to_vec(),
    };
    let _ = shared.events.send(event);
    let status = StatusCode::from_u16(answered).unwrap_or(StatusCode::OK);
    (
        status,
        format!("paygate listen answered {}", status.as_u16()),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_is_made_once_and_reused() {
        let dir = std::env::temp_dir().join(format!("paygate-cli-cert-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let paths = CertPaths::in_dir(&dir.join("nested"));
        assert!(ensure_cert(&paths).unwrap());
        let first = std::fs::read_to_string(&paths.cert).unwrap();
        assert!(first.starts_with("-----BEGIN CERTIFICATE-----"));
        assert!(!ensure_cert(&paths).unwrap());
        assert_eq!(std::fs::read_to_string(&paths.cert).unwrap(), first);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&paths.key).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_hint_names_both_variables() {
        assert_eq!(
            dev_server_hint(Path::new(".local/listen/cert.pem")),
            "PAYGATE_WEBHOOK_ALLOW_ADDRS=127.0.0.1 PAYGATE_WEBHOOK_EXTRA_CA=.local/listen/cert.pem"
        );
    }
}
