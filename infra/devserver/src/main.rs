//! `make dev`: the whole local stack in one process. Ctrl-C stops everything it started.

use std::{net::SocketAddr, sync::Arc};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
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
    let opts = paygate_devserver::Options {
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
        seed: seed.clone(),
        prefix: String::new(),
        clock: Arc::new(paygate_ops::system::SystemClock),
        ids: Arc::new(paygate_ops::system::RandomIds),
    };
    let server = paygate_devserver::start_with_own_moto(opts).await?;
    println!("{}", paygate_devserver::banner(&server, &seed));
    tokio::signal::ctrl_c().await?;
    println!("stopping: dev server and moto");
    drop(server);
    Ok(())
}
