//! The `paygate` command line: the merchant dashboard's operations on a terminal.
//!
//! * `endpoints create|list|rotate|delete`, `deliveries list|show|resend`, `test-event`:
//!   the admin API (`/admin/v1/merchants/{merchantId}/…`), every request signed with AWS
//!   Signature Version 4 (service `execute-api`) from the standard AWS credential chain,
//!   or with `--local` from the local stack's seed file.
//! * `trigger <event>`: a test-mode scenario on the merchant API that produces the event.
//! * `listen`: a local HTTPS receiver, registered as an endpoint, printing each webhook
//!   verified.
//! * `verify`: check an `X-Svc-Signature` against a body.
//! * `dashboard`: the same admin operations as a web page on `127.0.0.1`, each call signed
//!   here ([`dashboard`]).
//!
//! [`run`] is the whole program (the binary only parses and calls it); [`run_async`] and
//! the command modules are what tests drive.

pub mod client;
pub mod commands;
pub mod config;
pub mod dashboard;
pub mod error;
pub mod listen;
pub mod model;
pub mod output;
pub mod sigv4;

use std::{future::Future, io::Read, io::Write, path::PathBuf};

use clap::{Args, Parser, Subcommand};

pub use commands::{
    deliveries::DeliveriesCommand,
    endpoints::EndpointsCommand,
    listen::ListenArgs,
    trigger::TriggerArgs,
    verify::{run_verify, VerifyArgs},
};
pub use config::{Ctx, DEFAULT_API_URL};
pub use error::CliError;

/// Exit status: done (for `verify`: the check passed).
pub const EXIT_OK: u8 = 0;
/// Exit status of `verify`: the signature did not verify.
pub const EXIT_INVALID: u8 = 1;
/// Exit status: a command failed (the API refused, no credentials, …).
pub const EXIT_ERROR: u8 = 1;
/// Exit status: bad usage or unreadable input (clap uses 2 for usage errors too).
pub const EXIT_USAGE: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "paygate",
    version,
    about = "paygate command line: webhook endpoints, deliveries, test events, local scenarios, a signed-webhook listener",
    after_help = "Admin commands sign with SigV4 from the standard AWS credential chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY[/AWS_SESSION_TOKEN], AWS_PROFILE, SSO, roles), or with --local from infra/local/seed.json (make dev)."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every command takes (anywhere on the line).
#[derive(Debug, Clone, Args)]
pub struct Global {
    /// The API's base URL: the local stack, or a deployed stack's ApiUrl output [default:
    /// http://127.0.0.1:$PAYGATE_PORT, the port `make dev` serves, 3000 unless set].
    #[arg(long, env = "PAYGATE_API_URL", default_value_t = config::default_api_url(), hide_default_value = true, global = true)]
    pub api_url: String,
    /// The merchant the admin commands act on (`mch_…`).
    #[arg(long, env = "PAYGATE_MERCHANT", global = true, value_name = "MCH_ID")]
    pub merchant: Option<String>,
    /// The region admin requests are signed for [default: AWS_DEFAULT_REGION, else us-east-1].
    #[arg(long, env = "AWS_REGION", global = true)]
    pub region: Option<String>,
    /// A test-mode API key (`sk_test_…`), for `trigger`.
    #[arg(long, env = "PAYGATE_API_KEY", hide_env_values = true, global = true)]
    pub api_key: Option<String>,
    /// Print the API's JSON answers as they are.
    #[arg(long, global = true)]
    pub json: bool,
    /// The local stack: sign with the seed file's admin credentials (and its region), and
    /// default --merchant to its first merchant and --api-key to that merchant's test key.
    /// `PAYGATE_LOCAL` takes the usual spellings: 1/0, true/false, yes/no, on/off (any case).
    #[arg(long, env = "PAYGATE_LOCAL", global = true, value_parser = clap::builder::BoolishValueParser::new())]
    pub local: bool,
    /// The seed file `--local` reads [default: infra/local/seed.json].
    #[arg(long, env = "PAYGATE_SEED", global = true, value_name = "PATH")]
    pub seed: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Webhook endpoints: create, list, rotate the signing secret, delete, recover, health.
    #[command(subcommand)]
    Endpoints(EndpointsCommand),
    /// Delivery history: list, show one with its attempts, resend.
    #[command(subcommand)]
    Deliveries(DeliveriesCommand),
    /// API keys: issue, list, roll, revoke.
    #[command(subcommand)]
    Keys(commands::keys::KeysCommand),
    /// The admin audit trail: who changed what, when, and how it ended.
    #[command(subcommand)]
    Audit(commands::audit::AuditCommand),
    /// The daily reconciliation against the bank: each POS account's report of one
    /// business day (status, counts, mismatch lines), or the API's CSV with --csv.
    Reconciliations(commands::reconciliations::ReconciliationsArgs),
    /// Send a `webhook.test` event to one endpoint.
    TestEvent(commands::endpoints::EndpointId),
    /// Run a test-mode scenario that produces a payment event.
    Trigger(TriggerArgs),
    /// Receive webhooks here: a local HTTPS receiver, registered as an endpoint, printing
    /// each event verified (Ctrl-C deletes the endpoint).
    Listen(ListenArgs),
    /// Verify a webhook's X-Svc-Signature against its raw body with the signing secret in
    /// PAYGATE_WEBHOOK_SECRET; prints `ok` or the reason.
    Verify(VerifyArgs),
    /// Serve the dashboard web page on http://127.0.0.1:3001 (each admin call signed here).
    Dashboard(dashboard::DashboardArgs),
}

/// Runs a parsed command line; returns the process exit status.
///
/// `verify` reads `stdin` only when the body comes from standard input and calls `clock`
/// only when `--now` is absent; the other commands run on a Tokio runtime made here, and
/// `listen` stops at Ctrl-C.
pub fn run(
    cli: Cli,
    stdin: impl Read,
    clock: impl FnOnce() -> i64,
    out: &mut impl Write,
    err: &mut impl Write,
) -> u8 {
    if let Command::Verify(args) = &cli.command {
        return commands::verify::run(args, stdin, clock, out, err);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(err, "error: cannot start the async runtime: {e}");
            return EXIT_ERROR;
        }
    };
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match runtime.block_on(run_async(&cli, out, ctrl_c)) {
        Ok(()) => EXIT_OK,
        Err(e) => {
            let _ = out.flush();
            let _ = writeln!(err, "error: {e}");
            EXIT_ERROR
        }
    }
}

/// Resolves the context of `cli` (credentials only for admin commands) and runs its
/// command; `shutdown` ends `listen`.
pub async fn run_async(
    cli: &Cli,
    out: &mut dyn Write,
    shutdown: impl Future<Output = ()>,
) -> Result<(), CliError> {
    let ctx = config::context(&cli.global, commands::needs_admin(&cli.command)).await?;
    commands::execute(&ctx, &cli.command, out, shutdown).await?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests;
