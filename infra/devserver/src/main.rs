//! `make dev`: the whole local stack in one process. Ctrl-C stops everything it started.
//!
//! Webhook settings come from the environment, as the deployed functions read them:
//! `PAYGATE_WEBHOOK_RETRY_SCHEDULE` (e.g. `1s,1s,1s,1s,1s,1s,1s,1s`; default the spec's),
//! `PAYGATE_WEBHOOK_ALLOW_ADDRS` (exact IPs exempt from the private-network refusal, e.g.
//! `127.0.0.1`) and `PAYGATE_WEBHOOK_EXTRA_CA` (PEM file of an extra trusted root, e.g. a
//! local receiver's self-signed certificate). Endpoints are HTTPS only, always.
//!
//! `PAYGATE_RECONCILE_EVERY_SECS` sets how often the reconciler runs (default 10; `0` turns
//! it off).
//!
//! Per-API-key throttling reads `PAYGATE_THROTTLE_BURST`, `PAYGATE_THROTTLE_PER_MINUTE`,
//! `PAYGATE_POINTS_THROTTLE_BURST` and `PAYGATE_POINTS_THROTTLE_PER_MINUTE` like the deployed
//! functions (docs/api.md "Rate limits").
//!
//! `PAYGATE_BANK_TIMEOUT_MS` bounds each call to a bank simulator (default: the deployed
//! 8 s), e.g. `1000` to try the unknown-outcome path with a simulator's injected latency.
//!
//! `PAYGATE_STALE_IN_FLIGHT_MS` sets when an operation in flight counts as stale (default
//! 60 s), checked at start-up like the deployed functions' (docs/operations.md "Configuration");
//! `PAYGATE_PENDING_NOT_FOUND_GRACE_MS` how long a pending payment the bank has no record of
//! stays pending (default 15 minutes; e.g. `180000` to see one fail within minutes).
//!
//! Only requests whose `Host` is `127.0.0.1`, `localhost` or `[::1]` with the port are
//! served (403 `forbidden_host` otherwise: DNS rebinding against the public seed keys);
//! `PAYGATE_DEV_ALLOWED_HOSTS` adds names (comma-separated) or `*` turns the check off.

use std::{net::SocketAddr, sync::Arc};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Workers with the 8 MiB stack a Lambda's main thread has: the handlers' futures are the
    // functions' own, and a debug build's need more than tokio's default 2 MiB leaves spare.
    tokio::runtime::Builder::new_multi_thread()
        .thread_stack_size(8 << 20)
        .enable_all()
        .build()?
        .block_on(serve())
}

async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,aws_config=warn,aws_smithy_runtime=warn".into()),
        )
        .init();
    let port: u16 = std::env::var("PAYGATE_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(3000);
    let seed_path = std::env::var("PAYGATE_SEED")
        .map(Into::into)
        .unwrap_or_else(|_| paygate_devserver::default_seed_path());
    let seed = paygate_devserver::Seed::from_file(&seed_path)?;
    let webhook = paygate_devserver::WebhookOptions {
        sender: paygate_webhooks::SenderConfig::from_env()?,
        schedule: paygate_compose::retry_schedule_from_env()?,
        ..paygate_devserver::WebhookOptions::default()
    };
    // A malformed value is an error at start-up, never a silent fallback.
    let bank_timeout = match std::env::var("PAYGATE_BANK_TIMEOUT_MS") {
        Ok(ms) if !ms.trim().is_empty() => std::time::Duration::from_millis(
            ms.trim()
                .parse()
                .map_err(|_| "PAYGATE_BANK_TIMEOUT_MS must be a whole number of milliseconds")?,
        ),
        _ => paygate_devserver::DEFAULT_BANK_TIMEOUT,
    };
    let opts = paygate_devserver::Options {
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
        seed: seed.clone(),
        prefix: String::new(),
        clock: Arc::new(paygate_compose::system::SystemClock),
        ids: Arc::new(paygate_compose::system::RandomIds),
        webhook,
        bank_timeout,
        reconcile_every: paygate_devserver::reconciler::every_from_env()?,
        throttle: Some(paygate_compose::throttle_limits_from_env()?),
        stale_after: paygate_compose::stale_after_from_env()?,
    };
    let server = paygate_devserver::start_with_own_moto(opts).await?;
    println!("{}", paygate_devserver::banner(&server, &seed));
    tokio::signal::ctrl_c().await?;
    println!("stopping: dev server and moto");
    drop(server);
    Ok(())
}
