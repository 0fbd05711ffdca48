//! `paygate verify`: check an `X-Svc-Signature` against a raw body, as a merchant's
//! receiver would.

use std::{
    io::{Read, Write},
    path::{Path, PathBuf},
};

use clap::Args;
use paygate_webhooks::signature::{VerifyError, DEFAULT_TOLERANCE_SECS};

use crate::{EXIT_INVALID, EXIT_OK, EXIT_USAGE};

/// What `verify` warns when a secret was given as an argument.
pub const SECRET_ARG_WARNING: &str = "warning: --secret puts the signing secret in your shell \
history and the process list; set PAYGATE_WEBHOOK_SECRET instead";

/// What `verify` says when no secret is given: the environment variable, never the hidden
/// flag behind it nor the deprecated `--secret`.
pub const NO_SECRET: &str = "error: no signing secret: set PAYGATE_WEBHOOK_SECRET=whsec_… (the \
endpoint's secret; during a rotation both, comma-separated)";

/// The secret is checked in [`run`], not by clap, whose message would name the hidden
/// `--secret-from-env` flag instead of `PAYGATE_WEBHOOK_SECRET`.
#[derive(Debug, Clone, Args)]
pub struct VerifyArgs {
    /// The endpoint's signing secret, whole, `whsec_` prefix included (the HMAC key is its
    /// UTF-8 bytes), from the environment (preferred: it stays out of the shell history and
    /// the process list). During a rotation give both, comma-separated: any one that
    /// matches is enough.
    #[arg(
        long = "secret-from-env",
        hide = true,
        env = "PAYGATE_WEBHOOK_SECRET",
        hide_env_values = true,
        value_delimiter = ','
    )]
    pub env_secrets: Vec<String>,
    /// Deprecated: the signing secret as an argument (visible in the shell history and the
    /// process list; prints a warning). Use PAYGATE_WEBHOOK_SECRET. Repeatable.
    #[arg(long = "secret")]
    pub secrets: Vec<String>,
    /// The X-Svc-Signature header value, e.g. `t=1795251600,v1=9fdd…`.
    #[arg(long)]
    pub header: String,
    /// File with the raw request body, byte for byte; standard input when absent or `-`.
    #[arg(long)]
    pub body_file: Option<PathBuf>,
    /// Largest accepted distance between `t` and now, in seconds, either direction.
    #[arg(long, default_value_t = DEFAULT_TOLERANCE_SECS, value_parser = clap::value_parser!(i64).range(0..))]
    pub tolerance: i64,
    /// The time to check against, in unix seconds (default: the system clock).
    #[arg(long, allow_negative_numbers = true)]
    pub now: Option<i64>,
}

/// The `verify` check itself: `body` against `args.header` with `args.secrets` at `now`
/// (`args.now` wins over it when given).
pub fn run_verify(args: &VerifyArgs, body: &[u8], now: i64) -> Result<(), VerifyError> {
    let secrets: Vec<&str> = args
        .env_secrets
        .iter()
        .chain(&args.secrets)
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .collect();
    paygate_webhooks::signature::verify(
        &args.header,
        body,
        &secrets,
        args.now.unwrap_or(now),
        args.tolerance,
    )
}

/// The command: prints `ok`, or why not (exit 1); unreadable input is exit 2.
pub fn run(
    args: &VerifyArgs,
    stdin: impl Read,
    clock: impl FnOnce() -> i64,
    out: &mut impl Write,
    err: &mut impl Write,
) -> u8 {
    if !args.secrets.is_empty() {
        let _ = writeln!(err, "{SECRET_ARG_WARNING}");
    }
    if args
        .env_secrets
        .iter()
        .chain(&args.secrets)
        .all(|s| s.trim().is_empty())
    {
        let _ = writeln!(err, "{NO_SECRET}");
        return EXIT_USAGE;
    }
    let body = match read_body(args.body_file.as_deref(), stdin) {
        Ok(b) => b,
        Err(e) => {
            let _ = writeln!(err, "error: cannot read the body: {e}");
            return EXIT_USAGE;
        }
    };
    let now = match args.now {
        Some(n) => n,
        None => clock(),
    };
    match run_verify(args, &body, now) {
        Ok(()) => {
            let _ = writeln!(out, "ok");
            EXIT_OK
        }
        Err(e) => {
            let _ = writeln!(err, "invalid: {e}");
            EXIT_INVALID
        }
    }
}

fn read_body(file: Option<&Path>, mut stdin: impl Read) -> std::io::Result<Vec<u8>> {
    match file {
        Some(p) if p.as_os_str() != "-" => std::fs::read(p),
        _ => {
            let mut buf = Vec::new();
            stdin.read_to_end(&mut buf)?;
            Ok(buf)
        }
    }
}
