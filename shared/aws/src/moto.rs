//! A local moto server for tests and the dev server (feature `moto`).
//!
//! The binary is, in order: `$PAYGATE_MOTO_SERVER`; `.venv/bin/moto_server` under the
//! workspace root; `moto_server` on `PATH`. It listens on `127.0.0.1`.
//!
//! **Requests are serialized.** moto is not thread-safe: under concurrent requests its
//! TransactWriteItems deep-copies tables other threads are writing (HTTP 500), and its
//! rollback restores a whole-table snapshot, losing other requests' writes. DynamoDB applies
//! each request atomically, so the launcher runs moto through the Python interpreter of
//! `moto_server` with one lock around the WSGI app ([`BOOTSTRAP`]). Only if that cannot
//! start does it run `moto_server` as is (then [`MotoServer::serialized`] is `false`).
//!
//! moto runs under a small `sh` supervisor that holds a pipe from this process: when the
//! pipe closes (the [`MotoServer`] is dropped, or this process exits, even by a panic or a
//! kill), the supervisor stops moto. A server kept in a `static` (see [`MotoServer::shared`])
//! therefore never outlives the test binary.

use std::{
    ffi::OsString,
    io::{BufRead, BufReader, Read, Write},
    net::{Ipv4Addr, TcpListener, TcpStream},
    path::{Path, PathBuf},
    process::{Child, ChildStdin, Command, Stdio},
    sync::{
        atomic::{AtomicU64, Ordering},
        OnceLock,
    },
    time::{Duration, Instant},
};

/// Environment variable naming the moto_server binary to use.
pub const MOTO_SERVER_ENV: &str = "PAYGATE_MOTO_SERVER";

/// The region local clients should use against moto.
pub const REGION: &str = "us-east-1";

/// How long to wait for moto to answer HTTP after it was started.
const READY_TIMEOUT: Duration = Duration::from_secs(30);

/// Python run with `-c`: moto_server's `main`, with every request under one lock.
pub const BOOTSTRAP: &str = r#"
import sys, threading
from moto import server
from moto.moto_server.werkzeug_app import DomainDispatcherApplication
_lock = threading.Lock()
_call = DomainDispatcherApplication.__call__
def _serialized(self, environ, start_response):
    with _lock:
        return _call(self, environ, start_response)
DomainDispatcherApplication.__call__ = _serialized
sys.exit(server.main(sys.argv[1:]))
"#;

/// Runs the command `"$@"` with its output appended to the log file `$0`, until stdin
/// reaches EOF (then stops it and removes the log), or until it exits on its own.
const SUPERVISOR: &str = r#"
exec 3<&0
"$@" </dev/null >>"$0" 2>&1 &
m=$!
( cat <&3 >/dev/null 2>&1; kill "$m" 2>/dev/null; rm -f "$0" ) &
exec 3<&-
wait "$m"
"#;

/// moto could not be started.
#[derive(Debug, Clone, thiserror::Error)]
#[error("moto server: {0}")]
pub struct MotoError(pub String);

/// A running moto server, stopped when dropped.
#[derive(Debug)]
pub struct MotoServer {
    /// `http://127.0.0.1:<port>`.
    pub endpoint: String,
    /// The port it listens on.
    pub port: u16,
    /// Whether requests are serialized (see the module docs).
    pub serialized: bool,
    /// Where moto's own output goes while it runs (removed when it is stopped).
    pub log_path: PathBuf,
    child: Child,
    stdin: Option<ChildStdin>,
}

impl MotoServer {
    /// Starts moto ([`binary`]) on a free port and waits until it answers HTTP.
    pub fn start() -> Result<Self, MotoError> {
        Self::start_binary(&binary())
    }

    /// The server shared by everything in this process, started on first use.
    pub fn shared() -> Result<&'static MotoServer, MotoError> {
        static SHARED: OnceLock<Result<MotoServer, MotoError>> = OnceLock::new();
        SHARED
            .get_or_init(Self::start)
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Starts the given moto_server binary on a free port and waits until it answers.
    pub fn start_binary(binary: &Path) -> Result<Self, MotoError> {
        let mut last = MotoError("not started".to_owned());
        // A free port can be taken between probing it and moto binding it: try again.
        for _ in 0..3 {
            match Self::start_on(binary, free_port()?) {
                Ok(server) => return Ok(server),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Starts the given moto_server binary on a fixed port (the dev server uses one below
    /// 32768, outside the ephemeral range) and waits until it answers.
    pub fn start_on(binary: &Path, port: u16) -> Result<Self, MotoError> {
        let args = [
            "-H".into(),
            "127.0.0.1".into(),
            "-p".into(),
            port.to_string().into(),
        ];
        if let Some(mut cmd) = python_of(binary) {
            cmd.extend(["-c".into(), BOOTSTRAP.into()]);
            cmd.extend(args.clone());
            match Self::spawn(&cmd, port, true) {
                Ok(server) => return Ok(server),
                Err(e) => eprintln!(
                    "paygate moto: cannot start {} with serialized requests ({e}); \
                     running it as is",
                    binary.display()
                ),
            }
        }
        let mut cmd = vec![binary.as_os_str().to_owned()];
        cmd.extend(args);
        Self::spawn(&cmd, port, false)
    }

    /// A DynamoDB client for this server (static test credentials, no retries).
    pub fn client(&self) -> aws_sdk_dynamodb::Client {
        crate::Clients::local_without_retries(&self.endpoint, REGION).dynamo
    }

    fn spawn(cmd: &[OsString], port: u16, serialized: bool) -> Result<Self, MotoError> {
        let shown = cmd
            .first()
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default();
        let log_path =
            std::env::temp_dir().join(format!("paygate-moto-{}-{port}.log", std::process::id()));
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(SUPERVISOR)
            .arg(&log_path)
            .args(cmd)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| MotoError(format!("cannot run sh to start {shown}: {e}")))?;
        let stdin = child.stdin.take();
        let mut server = MotoServer {
            endpoint: format!("http://127.0.0.1:{port}"),
            port,
            serialized,
            log_path,
            child,
            stdin,
        };
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if answers_http(port) {
                return Ok(server);
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(MotoError(format!(
                    "{shown} exited ({status}) before answering: {}",
                    server.log_tail()
                )));
            }
            if Instant::now() > deadline {
                return Err(MotoError(format!(
                    "{shown} did not answer on port {port} within {READY_TIMEOUT:?}: {}",
                    server.log_tail()
                )));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The end of moto's output, for error messages.
    fn log_tail(&self) -> String {
        let log = std::fs::read(&self.log_path).unwrap_or_default();
        let tail = &log[log.len().saturating_sub(1_500)..];
        let text = String::from_utf8_lossy(tail).trim().to_owned();
        if text.is_empty() {
            "(no output)".to_owned()
        } else {
            text
        }
    }
}

impl Drop for MotoServer {
    fn drop(&mut self) {
        // Closing the pipe makes the supervisor stop moto; then reap the supervisor.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// A table prefix no other test in this process (or a concurrent process) uses.
pub fn unique_prefix(label: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let label: String = label
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(40)
        .collect();
    format!("t{}-{n}-{label}-", std::process::id())
}

/// The moto_server binary to run: `$PAYGATE_MOTO_SERVER`, else `.venv/bin/moto_server`
/// under the workspace root, else `moto_server` (on `PATH`).
pub fn binary() -> PathBuf {
    if let Some(p) = std::env::var_os(MOTO_SERVER_ENV).filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    if let Some(root) = workspace_root() {
        let venv = root.join(".venv/bin/moto_server");
        if venv.is_file() {
            return venv;
        }
    }
    PathBuf::from("moto_server")
}

/// The nearest ancestor of this crate (or of the working directory) whose `Cargo.toml`
/// declares a `[workspace]`.
fn workspace_root() -> Option<PathBuf> {
    let starts = [
        Some(PathBuf::from(env!("CARGO_MANIFEST_DIR"))),
        std::env::current_dir().ok(),
    ];
    starts.into_iter().flatten().find_map(|start| {
        start.ancestors().find_map(|dir| {
            let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
            manifest
                .lines()
                .any(|l| l.trim() == "[workspace]")
                .then(|| dir.to_path_buf())
        })
    })
}

/// `binary` resolved against `PATH` when it is a bare name.
fn resolve(binary: &Path) -> Option<PathBuf> {
    if binary.components().count() > 1 {
        return Some(binary.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(binary))
        .find(|p| p.is_file())
}

/// The interpreter command of a Python console script (`#!/…/python`), or `python3` for
/// a shell wrapper (pyenv shim); `None` for anything else.
fn python_of(binary: &Path) -> Option<Vec<OsString>> {
    let file = std::fs::File::open(resolve(binary)?).ok()?;
    let mut first = String::new();
    BufReader::new(file.take(512)).read_line(&mut first).ok()?;
    let shebang = first.strip_prefix("#!")?.trim();
    let words: Vec<&str> = shebang.split_whitespace().collect();
    let is_python = |w: &&str| {
        Path::new(w)
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("python"))
    };
    if words.iter().any(is_python) {
        Some(words.into_iter().map(OsString::from).collect())
    } else {
        Some(vec!["python3".into()])
    }
}

fn free_port() -> Result<u16, MotoError> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .map_err(|e| MotoError(format!("no free port: {e}")))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| MotoError(format!("no free port: {e}")))
}

fn answers_http(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect_timeout(
        &(Ipv4Addr::LOCALHOST, port).into(),
        Duration::from_millis(200),
    ) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let req = b"GET /moto-api/ HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if stream.write_all(req).is_err() {
        return false;
    }
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).is_ok() && head.starts_with(b"HTTP/")
}
