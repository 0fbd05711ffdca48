//! `paygate`: see the library for the commands.

use std::process::ExitCode;

use clap::Parser;
use paygate_cli::output::terminal::Escaped;

/// The wall clock, read at this edge only (the library takes time as an argument).
#[allow(clippy::disallowed_methods)]
fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

fn main() -> ExitCode {
    let cli = paygate_cli::Cli::parse();
    // Control characters from the API, a merchant's endpoint or a webhook are written
    // escaped, never sent to the terminal.
    let code = paygate_cli::run(
        cli,
        std::io::stdin().lock(),
        unix_now,
        &mut Escaped::new(std::io::stdout().lock()),
        &mut Escaped::new(std::io::stderr().lock()),
    );
    ExitCode::from(code)
}
