//! The `paygate` command line.
//!
//! Subcommands so far: `verify` (check an `X-Svc-Signature` against a body, as a merchant's
//! receiver would). The dashboard work adds endpoints, deliveries, test-event, trigger and
//! listen here.
//!
//! Everything runs through [`run`], which takes its input, clock and output as arguments,
//! so the binary is a thin shell and tests need no process.

use std::{
    io::{Read, Write},
    path::PathBuf,
};

use clap::{Args, Parser, Subcommand};
use paygate_signature::{VerifyError, DEFAULT_TOLERANCE_SECS};

/// Exit status: the check passed.
pub const EXIT_OK: u8 = 0;
/// Exit status: the signature did not verify.
pub const EXIT_INVALID: u8 = 1;
/// Exit status: bad usage or unreadable input (clap uses 2 for usage errors too).
pub const EXIT_USAGE: u8 = 2;

#[derive(Debug, Parser)]
#[command(name = "paygate", version, about = "paygate command line tools")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Verify a webhook's X-Svc-Signature against its raw body; prints `ok` or the reason.
    Verify(VerifyArgs),
}

#[derive(Debug, Clone, Args)]
pub struct VerifyArgs {
    /// The endpoint's signing secret, whole, `whsec_` prefix included (the HMAC key is
    /// its UTF-8 bytes). Repeat during a rotation: any one that matches is enough.
    #[arg(
        long = "secret",
        required = true,
        env = "PAYGATE_WEBHOOK_SECRET",
        hide_env_values = true
    )]
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
    paygate_signature::verify(
        &args.header,
        body,
        &args.secrets,
        args.now.unwrap_or(now),
        args.tolerance,
    )
}

/// Runs a parsed command line; returns the process exit status.
///
/// `stdin` is read only when the body comes from standard input; `clock` is called only
/// when `--now` is absent.
pub fn run(
    cli: Cli,
    stdin: impl Read,
    clock: impl FnOnce() -> i64,
    out: &mut impl Write,
    err: &mut impl Write,
) -> u8 {
    match cli.command {
        Command::Verify(args) => {
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
            match run_verify(&args, &body, now) {
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
    }
}

fn read_body(file: Option<&std::path::Path>, mut stdin: impl Read) -> std::io::Result<Vec<u8>> {
    match file {
        Some(p) if p.as_os_str() != "-" => std::fs::read(p),
        _ => {
            let mut buf = Vec::new();
            stdin.read_to_end(&mut buf)?;
            Ok(buf)
        }
    }
}
