//! `paygate dashboard`: the merchant dashboard as a web page, served on `127.0.0.1`.
//!
//! The page (plain HTML, CSS and JavaScript compiled into the binary, [`assets`]) calls
//! this process only; this process signs each `/admin/v1/merchants/…` call with SigV4 from
//! the same credentials the other admin commands use (the AWS credential chain, or the
//! local admin credentials with `--local`) and forwards it to the API ([`server`]). So the
//! browser holds no credentials and the dashboard adds no authentication surface: what it
//! can do is what the signing identity may do. [`session`] lets in only the browser that
//! opened the printed one-time launch link (a session cookie; other local users get 401),
//! [`guard`] keeps other sites out (Host, Origin, a per-run token) and limits what is
//! forwarded.

pub mod assets;
pub mod guard;
pub mod server;
pub mod session;

use std::{
    future::Future,
    io::Write,
    net::{Ipv4Addr, SocketAddr},
    sync::Arc,
    time::{Duration, SystemTime},
};

use clap::Args;
use tokio::sync::Mutex;

use crate::{
    client::Signer,
    config::{aws_chain_credentials, Ctx},
    CliError,
};

pub use server::Dashboard;

/// The port when neither `--port` nor `PAYGATE_DASHBOARD_PORT` is given.
pub const DEFAULT_PORT: u16 = 3001;

/// Temporary credentials are resolved again this long before they expire.
const REFRESH_BEFORE: Duration = Duration::from_secs(5 * 60);

#[derive(Debug, Clone, Args)]
pub struct DashboardArgs {
    /// Port on 127.0.0.1 (0: any free port).
    #[arg(long, env = "PAYGATE_DASHBOARD_PORT", default_value_t = DEFAULT_PORT)]
    pub port: u16,
}

/// Where the signing credentials come from.
pub enum SignerSource {
    /// Fixed credentials (`--local`'s seed, or long-term keys).
    Fixed(Signer),
    /// The AWS chain, resolved again shortly before temporary credentials expire.
    Chain {
        region: String,
        current: Mutex<(Signer, Option<SystemTime>)>,
        clock: fn() -> SystemTime,
    },
}

impl SignerSource {
    /// The signer to use now.
    pub async fn current(&self) -> Result<Signer, CliError> {
        match self {
            Self::Fixed(s) => Ok(s.clone()),
            Self::Chain {
                region,
                current,
                clock,
            } => {
                let mut cur = current.lock().await;
                let stale = cur.1.is_some_and(|exp| exp <= clock() + REFRESH_BEFORE);
                if stale {
                    *cur = aws_chain_credentials(region).await?;
                }
                Ok(cur.0.clone())
            }
        }
    }
}

/// The link that opens the dashboard on `port`, while its launch secret is unspent.
pub fn launch_url(dashboard: &Dashboard, port: u16) -> Option<String> {
    dashboard
        .session
        .launch_path()
        .map(|p| format!("http://127.0.0.1:{port}{p}"))
}

/// A random per-run token (and the launch secret and session cookie): 32 bytes from the
/// OS, hex.
pub fn new_token() -> Result<String, CliError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| CliError::Listener(format!("no randomness for the dashboard token: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The merchants the selector offers: `--merchant` first, then the seed's.
pub fn merchants(ctx: &Ctx) -> Vec<String> {
    let mut out: Vec<String> = ctx.merchant.iter().cloned().collect();
    for m in &ctx.seed_merchants {
        if !out.contains(m) {
            out.push(m.clone());
        }
    }
    out
}

/// Binds `127.0.0.1:port` and builds the dashboard of `ctx` for it.
pub async fn bind(
    ctx: &Ctx,
    port: u16,
) -> Result<(tokio::net::TcpListener, Arc<Dashboard>), CliError> {
    let listener = tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
        .await
        .map_err(|e| CliError::io(format!("binding 127.0.0.1:{port}"), e))?;
    let port = listener
        .local_addr()
        .map_err(|e| CliError::io("reading the dashboard's address", e))?
        .port();
    let signer = ctx
        .signer
        .clone()
        .ok_or_else(|| CliError::Credentials("the dashboard needs admin credentials".into()))?;
    let signing = if ctx.signer_from_chain {
        format!("the AWS credential chain ({})", signer.region)
    } else {
        format!("local admin credentials ({})", signer.region)
    };
    let source = if ctx.signer_from_chain {
        // The first resolution is the context's; expiry unknown there, so resolve with it.
        let (s, exp) = aws_chain_credentials(&signer.region).await?;
        SignerSource::Chain {
            region: s.region.clone(),
            current: Mutex::new((s, exp)),
            clock: ctx.clock,
        }
    } else {
        SignerSource::Fixed(signer)
    };
    let dashboard = Dashboard {
        guard: guard::Guard::new(port, new_token()?),
        session: session::Session::new(port, new_token()?, new_token()?),
        base: ctx.base.clone(),
        signer: source,
        http: ctx.http.clone(),
        merchants: merchants(ctx),
        signing,
        clock: ctx.clock,
    };
    Ok((listener, Arc::new(dashboard)))
}

/// Serves the dashboard until `shutdown` (Ctrl-C).
pub async fn run(
    ctx: &Ctx,
    args: &DashboardArgs,
    out: &mut dyn Write,
    shutdown: impl Future<Output = ()>,
) -> Result<(), CliError> {
    let (listener, dashboard) = bind(ctx, args.port).await?;
    let addr = listener
        .local_addr()
        .map_err(|e| CliError::io("reading the dashboard's address", e))?;
    let url = launch_url(&dashboard, addr.port()).unwrap_or_default();
    writeln!(
        out,
        "paygate dashboard: {url}\n  (opens once, in one browser; API {}, signing with {}; Ctrl-C stops)",
        dashboard.base, dashboard.signing
    )?;
    out.flush()?;
    tokio::select! {
        served = server::serve(listener, dashboard, std::future::pending()) => {
            served.map_err(|e| CliError::io("serving the dashboard", e))
        }
        () = shutdown => Ok(()),
    }
}

#[cfg(test)]
mod tests;
