//! The local stack: moto for DynamoDB, tables created from the same definitions as the SAM
//! template, seed data, and an HTTP server that hosts the very same function handlers behind
//! the routes of `template.yaml`, with the authorizer emulated in front of them.

pub mod router;
pub mod seed;

use std::{net::SocketAddr, path::PathBuf, sync::Arc};

use paygate_domain::ports::{Clock, IdGenerator};
use paygate_dynamo::{moto::MotoServer, Client, TableNames};
use tokio::{net::TcpListener, task::JoinHandle};

pub use seed::Seed;

/// Where the checked-in seed file lives.
pub fn default_seed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../local/seed.json")
}

/// How to start a local stack.
pub struct Options {
    /// Address to listen on; port 0 picks a free one.
    pub addr: SocketAddr,
    /// Seed data to load.
    pub seed: Seed,
    /// Table name prefix (tests use a unique one per stack).
    pub prefix: String,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdGenerator>,
}

/// A running local stack. Dropping it stops the server; moto stops with its owner.
pub struct DevServer {
    pub url: String,
    pub tables: TableNames,
    pub queues: paygate_sqs::QueueUrls,
    pub sqs: paygate_sqs::Client,
    pub client: Client,
    server: JoinHandle<()>,
    _moto: Option<MotoServer>,
}

impl Drop for DevServer {
    fn drop(&mut self) {
        self.server.abort();
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Moto(#[from] paygate_dynamo::moto::MotoError),
    #[error("creating tables: {0}")]
    Tables(String),
    #[error("seeding: {0}")]
    Seed(String),
    #[error("listening: {0}")]
    Listen(#[from] std::io::Error),
}

/// Starts a stack with its own moto server (the `make dev` case).
pub async fn start_with_own_moto(opts: Options) -> Result<DevServer, StartError> {
    let moto = MotoServer::start()?;
    let mut server = start_on(&moto, opts).await?;
    server._moto = Some(moto);
    Ok(server)
}

/// Starts a stack on an existing moto server (tests share one per binary).
pub async fn start_on(moto: &MotoServer, opts: Options) -> Result<DevServer, StartError> {
    let client = moto.client();
    paygate_dynamo::create_tables(&client, &opts.prefix)
        .await
        .map_err(|e| StartError::Tables(e.to_string()))?;
    let tables = paygate_dynamo::table_names(&opts.prefix);
    // SQS is served by the same emulator endpoint as DynamoDB.
    let sqs = paygate_sqs::client_for_endpoint(&moto.endpoint, paygate_dynamo::moto::REGION);
    let queues = paygate_sqs::create_queues(&sqs, &opts.prefix)
        .await
        .map_err(|e| StartError::Tables(e.to_string()))?;
    let app = router::App::new(
        &client,
        &sqs,
        &tables,
        &queues,
        opts.clock.clone(),
        opts.ids.clone(),
    );
    seed::load(&client, &tables, &opts.seed, opts.clock.clone())
        .await
        .map_err(|e| StartError::Seed(e.to_string()))?;
    let listener = TcpListener::bind(opts.addr).await?;
    let url = format!("http://{}", listener.local_addr()?);
    let router = router::router(Arc::new(app));
    let server = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, router).await {
            tracing::error!(error = %e, "dev server stopped");
        }
    });
    Ok(DevServer {
        url,
        tables,
        queues,
        sqs,
        client,
        server,
        _moto: None,
    })
}

/// What `make dev` prints: where it listens and which keys to use.
pub fn banner(server: &DevServer, seed: &Seed) -> String {
    let mut out = format!("\npaygate local stack is up\n  API:      {}\n", server.url);
    out.push_str("  DynamoDB: moto (tables created from the SAM definitions, seeded from infra/local/seed.json)\n\n  API keys:\n");
    for m in &seed.merchants {
        for k in &m.api_keys {
            out.push_str(&format!(
                "    {:<14} {:<5} {}\n",
                m.id,
                k.mode.as_str(),
                k.key
            ));
        }
    }
    out.push_str("\n  Seeded payments:\n");
    for p in &seed.payments {
        out.push_str(&format!(
            "    {:<24} {:<14} {:<5} {:>8} {} {}\n",
            p.id,
            p.merchant_id,
            p.mode.as_str(),
            p.amount,
            p.currency.code(),
            p.status
        ));
    }
    if let (Some(m), Some(p)) = (
        seed.merchants.first(),
        seed.payments
            .iter()
            .find(|p| p.mode == paygate_domain::Mode::Test),
    ) {
        if let Some(k) = m
            .api_keys
            .iter()
            .find(|k| k.mode == paygate_domain::Mode::Test)
        {
            out.push_str(&format!(
                "\n  Try:\n    curl -s {}/v1/payments/{} -H 'Authorization: Bearer {}'\n",
                server.url, p.id, k.key
            ));
        }
    }
    out.push_str("\n  Ctrl-C stops the server and moto.\n");
    out
}
