//! What the scenario shares: the stack, running CLI commands, output parsing, waits.

use std::{
    future::Future,
    io::Write,
    path::PathBuf,
    sync::{Arc, Mutex},
    time::Duration,
};

use clap::Parser;
use paygate_aws::moto::{unique_prefix, MotoServer};
use paygate_cli::{
    commands::deliveries,
    config::Ctx,
    listen::{ReceivedEvent, Receiver},
    model::DeliveryDetail,
    run_async, Cli, CliError,
};
use paygate_compose::system::{RandomIds, SystemClock};
use paygate_devserver::{DevServer, Options, Seed, WebhookOptions};
use paygate_domain::webhook::RetrySchedule;
use paygate_webhooks::{EgressPolicy, SenderConfig};

/// How long to wait for what the pipeline does at once (the shared moto is slow).
pub const SOON: Duration = Duration::from_secs(30);

/// A `Write` that several places can read.
#[derive(Clone, Default)]
pub struct SharedBuf(Arc<Mutex<Vec<u8>>>);

impl SharedBuf {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl Write for SharedBuf {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub fn cert_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("paygate-cli-scenario-{}", std::process::id()))
}

pub async fn start_stack(cert_pem: Vec<u8>) -> DevServer {
    start_stack_reconciling(cert_pem, None).await
}

/// [`start_stack`] with the reconciler running every `reconcile_every` (`make dev`: 10 s).
pub async fn start_stack_reconciling(
    cert_pem: Vec<u8>,
    reconcile_every: Option<Duration>,
) -> DevServer {
    let moto = MotoServer::shared().expect("moto server starts (is moto_server installed?)");
    let seed = Seed::from_file(&paygate_devserver::default_seed_path()).unwrap();
    let opts = Options {
        addr: ([127, 0, 0, 1], 0).into(),
        seed,
        prefix: unique_prefix("cli"),
        clock: Arc::new(SystemClock),
        ids: Arc::new(RandomIds),
        webhook: WebhookOptions {
            sender: SenderConfig {
                policy: EgressPolicy::parse_allow_list("127.0.0.1").unwrap(),
                extra_ca_pem: Some(cert_pem),
                timeout: Duration::from_secs(2),
            },
            schedule: RetrySchedule::parse("1s,1s").unwrap(),
            sweep_every: Duration::from_secs(1),
            sweep_grace: Duration::from_secs(10),
            idle_poll: Duration::from_millis(100),
            secret_cache_ttl: Duration::ZERO,
        },
        bank_timeout: paygate_devserver::DEFAULT_BANK_TIMEOUT,
        reconcile_every,
        throttle: None,
        stale_after: None,
    };
    paygate_devserver::start_on(moto, opts)
        .await
        .expect("dev server starts")
}

/// `paygate --local --api-url <url> <args…>`.
pub fn cli(url: &str, args: &[&str]) -> Cli {
    let mut argv = vec!["paygate", "--local", "--api-url", url];
    argv.extend_from_slice(args);
    Cli::try_parse_from(argv).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

pub async fn never() {
    std::future::pending::<()>().await;
}

/// Runs a command; its output.
pub async fn run(url: &str, args: &[&str]) -> String {
    let mut out = Vec::new();
    if let Err(e) = run_async(&cli(url, args), &mut out, never()).await {
        panic!("paygate {args:?}: {e}\n{}", String::from_utf8_lossy(&out));
    }
    String::from_utf8(out).unwrap()
}

pub async fn run_err(url: &str, args: &[&str]) -> CliError {
    let mut out = Vec::new();
    match run_async(&cli(url, args), &mut out, never()).await {
        Ok(()) => panic!(
            "paygate {args:?} succeeded: {}",
            String::from_utf8_lossy(&out)
        ),
        Err(e) => e,
    }
}

/// The value of a `key  value` line.
pub fn field(out: &str, key: &str) -> String {
    out.lines()
        .find_map(|l| {
            l.strip_prefix(key)
                .filter(|r| r.starts_with(' '))
                .map(|r| r.trim().to_owned())
        })
        .unwrap_or_else(|| panic!("no {key:?} in:\n{out}"))
}

/// The first whitespace-separated word of `out` starting with `prefix`.
pub fn word(out: &str, prefix: &str) -> String {
    out.split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',')
        .find(|w| w.starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix}… in:\n{out}"))
        .to_owned()
}

pub async fn until<T, Fut: Future<Output = Option<T>>>(
    what: &str,
    mut probe: impl FnMut() -> Fut,
) -> T {
    let deadline = tokio::time::Instant::now() + SOON;
    loop {
        if let Some(v) = probe().await {
            return v;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not within {SOON:?}: {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The next request at `rx` that satisfies `pred` (others are skipped).
pub async fn next_event(rx: &mut Receiver, pred: impl Fn(&ReceivedEvent) -> bool) -> ReceivedEvent {
    tokio::time::timeout(SOON, async {
        loop {
            let e = rx.next_event().await.expect("the receiver runs");
            if pred(&e) {
                return e;
            }
        }
    })
    .await
    .expect("a webhook in time")
}

/// The delivery once `pred` holds for it.
pub async fn delivery_when(
    ctx: &Ctx,
    id: &str,
    pred: impl Fn(&DeliveryDetail) -> bool,
) -> DeliveryDetail {
    until(&format!("delivery {id}"), || async {
        let d = deliveries::show(ctx, id, &mut Vec::new()).await.unwrap();
        pred(&d).then_some(d)
    })
    .await
}
