//! One module per command family; [`execute`] runs any command but `verify` (which needs
//! no network and stays synchronous, see [`crate::run`]).

pub mod audit;
pub mod deliveries;
pub mod endpoints;
pub mod keys;
pub mod listen;
pub mod reconciliations;
pub mod trigger;
pub mod verify;

use std::{future::Future, io::Write};

use crate::{config::Ctx, CliError, Command};

/// Whether `command` calls the admin API (and so needs credentials).
pub fn needs_admin(command: &Command) -> bool {
    match command {
        Command::Trigger(_) | Command::Verify(_) => false,
        Command::Listen(a) => !a.init_cert && a.secret.is_none(),
        Command::Endpoints(_)
        | Command::Deliveries(_)
        | Command::TestEvent(_)
        | Command::Keys(_)
        | Command::Audit(_)
        | Command::Reconciliations(_)
        | Command::Dashboard(_) => true,
    }
}

/// Runs `command` in `ctx`; `shutdown` ends `listen`.
pub async fn execute(
    ctx: &Ctx,
    command: &Command,
    out: &mut dyn Write,
    shutdown: impl Future<Output = ()>,
) -> Result<(), CliError> {
    match command {
        Command::Endpoints(c) => endpoints::run(ctx, c, out).await,
        Command::Deliveries(c) => deliveries::run(ctx, c, out).await,
        Command::Keys(c) => keys::run(ctx, c, out).await,
        Command::Audit(c) => audit::run(ctx, c, out).await,
        Command::Reconciliations(a) => reconciliations::run(ctx, a, out).await,
        Command::TestEvent(a) => endpoints::test_event(ctx, &a.id, out).await.map(drop),
        Command::Trigger(a) => trigger::run(ctx, a, out).await.map(drop),
        Command::Listen(a) => listen::run(ctx, a, out, shutdown).await,
        Command::Dashboard(a) => crate::dashboard::run(ctx, a, out, shutdown).await,
        Command::Verify(_) => Err(CliError::usage("verify runs without a context")),
    }
}
