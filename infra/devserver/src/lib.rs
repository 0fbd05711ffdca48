//! The local stack: moto for DynamoDB, SQS and Secrets Manager, tables and queues created
//! from the same definitions as the SAM template, seed data, an HTTP server that hosts the
//! very same function handlers behind the routes of `template.yaml` (the authorizer
//! emulated in front of them), and the webhook pipeline (`fanout`, `deliver`, `sweep`) run
//! by background pollers the way the event source mappings and the schedule run it.

pub mod admin;
pub mod banks;
mod banner;
pub mod endpoints;
mod gateway;
pub mod host;
pub mod pipeline;
pub mod reconciler;
pub mod router;
pub mod seed;
pub mod sigv4;

use std::{net::SocketAddr, path::PathBuf, sync::Arc, time::Duration};

use paygate_aws::dynamo::{
    Client, DynamoDeliveries, DynamoEndpoints, DynamoEvents, DynamoPayments, TableNames,
};
use paygate_aws::moto::MotoServer;
use paygate_aws::secrets::SecretsManagerSigning;
use paygate_compose::{
    Build, Names, OutboxSweeper, Overrides, WebhookDeliver, WebhookFanout, Wiring,
};
use paygate_domain::{
    ports::{Clock, IdGenerator},
    webhook::{EventFilter, RetrySchedule, WebhookEndpoint, WebhookEndpointId},
    MerchantId, Mode, StoreError,
};
use tokio::{net::TcpListener, task::JoinHandle};

pub use banks::DEFAULT_BANK_TIMEOUT;
pub use banner::{banner, schedule_notation};
pub use pipeline::WebhookOptions;
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
    /// Table and queue name prefix (tests use a unique one per stack).
    pub prefix: String,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdGenerator>,
    /// The webhook pipeline's sender, retry schedule and timings.
    pub webhook: WebhookOptions,
    /// The bound on one bank call ([`DEFAULT_BANK_TIMEOUT`] as deployed; tests use ~1 s to
    /// reach the unknown-outcome path quickly).
    pub bank_timeout: Duration,
    /// How often the reconciler runs (`None`: not at all; `make dev`: every 10 s, see
    /// [`reconciler::every_from_env`]).
    pub reconcile_every: Option<Duration>,
    /// Per-API-key throttling limits (`None`: the defaults, as a function deployed without
    /// `PAYGATE_THROTTLE_*` settings; `make dev`: from its environment, see
    /// `paygate_compose::throttle_limits_from_env`).
    pub throttle: Option<paygate_domain::throttle::Limits>,
    /// How long an operation may stay in flight before it counts as stale (`None`: the
    /// default, as a function deployed without `PAYGATE_STALE_IN_FLIGHT_MS`; `make dev`:
    /// from its environment, see `paygate_compose::stale_after_from_env`). Checked by the
    /// compose builders against the bank timeout, like the deployed setting.
    pub stale_after: Option<paygate_domain::StaleAfter>,
}

/// What the stack's webhook pipeline runs with (shown in the banner).
#[derive(Debug, Clone)]
pub struct WebhookSettings {
    pub schedule: RetrySchedule,
    /// Addresses exempt from the private-network refusal.
    pub allow_addrs: Vec<std::net::IpAddr>,
    /// Whether extra root certificates are trusted.
    pub extra_ca: bool,
    /// Deadline of one attempt.
    pub timeout: Duration,
    pub sweep_every: Duration,
}

/// A running local stack. Dropping it stops the server and the webhook pipeline; moto
/// stops with its owner.
pub struct DevServer {
    pub url: String,
    pub tables: TableNames,
    pub queues: paygate_aws::sqs::QueueUrls,
    pub sqs: paygate_aws::sqs::Client,
    pub client: Client,
    pub secrets: paygate_aws::secrets::Client,
    pub webhook: WebhookSettings,
    /// What every function of this stack was built from.
    wiring: Arc<Wiring>,
    /// The stale in-flight threshold its functions run with.
    stale_after: paygate_domain::StaleAfter,
    server: JoinHandle<()>,
    _pipeline: pipeline::Pipeline,
    /// The bank protocol simulators (see [`banks`]), alive as long as the server.
    banks: banks::BankSims,
    /// The reconciler's timer, when it runs.
    _reconciler: Option<reconciler::Reconciler>,
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
    Moto(#[from] paygate_aws::moto::MotoError),
    #[error("creating tables: {0}")]
    Tables(String),
    #[error("seeding: {0}")]
    Seed(String),
    #[error("webhook sender: {0}")]
    Webhooks(#[from] paygate_webhooks::ConfigError),
    #[error("listening: {0}")]
    Listen(#[from] std::io::Error),
    #[error("bank simulators: {0}")]
    Banks(String),
    #[error("wiring: {0}")]
    Wiring(#[from] paygate_compose::ConfigError),
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
    // Before anything is stored: e.g. a live account on the simulator is refused here.
    opts.seed
        .validate()
        .map_err(|e| StartError::Seed(e.to_string()))?;
    // The deployed functions' SDK retry configuration, not the tests' (retries off).
    let aws = paygate_aws::Clients::local(&moto.endpoint, paygate_aws::moto::REGION);
    let client = aws.dynamo.clone();
    paygate_aws::dynamo::create_tables(&client, &opts.prefix)
        .await
        .map_err(|e| StartError::Tables(e.to_string()))?;
    let tables = paygate_aws::dynamo::table_names(&opts.prefix);
    // SQS and Secrets Manager are served by the same emulator endpoint as DynamoDB.
    let sqs = aws.sqs.clone();
    let secrets = aws.secrets.clone();
    let queues = paygate_aws::sqs::create_queues(&sqs, &opts.prefix)
        .await
        .map_err(|e| StartError::Tables(e.to_string()))?;
    // Bank credentials live in Secrets Manager like in AWS, under a per-stack prefix; the
    // real protocols' accounts point at in-process simulators.
    let bank_secret_prefix = format!("paygate/local/{}banks/", opts.prefix);
    let bank_sims = banks::start(&opts.seed, &secrets, &bank_secret_prefix, opts.bank_timeout)
        .await
        .map_err(StartError::Banks)?;
    // The points per-card limit's HMAC key: generated here, by the template when deployed.
    let card_key = card_key_secret(&opts.prefix);
    paygate_compose::create_local_card_key(&secrets, &card_key).await?;
    let w = &opts.webhook;
    let sender = Arc::new(paygate_webhooks::HttpSender::new(w.sender.clone())?);
    // Every function's dependencies come from the same compose builders the Lambdas call;
    // only the names (this stack's tables, queues and prefixes) and the local knobs differ.
    let wiring = Arc::new(Wiring {
        aws: aws.clone(),
        names: local_names(&tables, &queues, &bank_secret_prefix, &card_key),
        clock: opts.clock.clone(),
        ids: opts.ids.clone(),
        overrides: Overrides {
            bank_timeout: Some(opts.bank_timeout),
            stale_after: opts.stale_after,
            signing_secret_ttl: Some(w.secret_cache_ttl),
            sweep_grace_ms: Some(i64::try_from(w.sweep_grace.as_millis()).unwrap_or(i64::MAX)),
            retry_schedule: Some(w.schedule.clone()),
            sender: Some(sender),
            egress: Some(w.sender.policy.clone()),
            throttle_limits: opts.throttle,
            // The same EMF records as deployed, on the `paygate::metrics` log target (DEBUG).
            metrics: Some(Arc::new(paygate_aws::metrics::EmfMetrics::new(
                "local",
                opts.clock.clone(),
                paygate_aws::metrics::Output::Log,
            ))),
        },
    });
    let app = router::App::new(&wiring)?;
    let signing = SecretsManagerSigning::new(secrets.clone(), paygate_aws::secrets::DEFAULT_TTL);
    seed::load(&client, &signing, &tables, &opts.seed, opts.clock.clone())
        .await
        .map_err(|e| StartError::Seed(e.to_string()))?;
    banks::register_seed_orders(&paygate_compose::providers(&wiring)?, &opts.seed)
        .await
        .map_err(StartError::Seed)?;

    let webhook = WebhookSettings {
        schedule: w.schedule.clone(),
        allow_addrs: w.sender.policy.allow.clone(),
        extra_ca: w.sender.extra_ca_pem.is_some(),
        timeout: w.sender.timeout.min(paygate_webhooks::DELIVERY_TIMEOUT),
        sweep_every: w.sweep_every,
    };
    let pipeline = pipeline::spawn(pipeline::PipelineParts {
        sqs: sqs.clone(),
        events_queue_url: queues.events.clone(),
        deliveries_queue_url: queues.deliveries.clone(),
        fanout: WebhookFanout::build(&wiring)?.fanout,
        deliver: WebhookDeliver::build(&wiring)?.deliver,
        sweep: OutboxSweeper::build(&wiring)?.sweep,
        idle_poll: w.idle_poll,
        sweep_every: w.sweep_every,
    });

    // The reconciler: the scheduled function's handler, wired like the Lambda.
    let reconciler = match opts.reconcile_every {
        Some(every) => Some(reconciler::spawn(
            paygate_compose::Reconciler::build(&wiring)?,
            every,
        )),
        None => None,
    };

    let listener = TcpListener::bind(opts.addr).await?;
    let url = format!("http://{}", listener.local_addr()?);
    // The dashboard's admin routes, behind the emulated IAM (SigV4) authorization.
    let admin = admin::AdminApp::new(&wiring, opts.seed.admin.clone())?;
    let router = router::router(Arc::new(app)).merge(admin::router(Arc::new(admin)));
    // Only requests addressed to 127.0.0.1, localhost or [::1] with this port (DNS rebinding).
    let router = host::guard(
        router,
        host::AllowedHosts::from_env(listener.local_addr()?.port()),
    );
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
        secrets,
        webhook,
        wiring,
        stale_after: opts.stale_after.unwrap_or_default(),
        server,
        _pipeline: pipeline,
        banks: bank_sims,
        _reconciler: reconciler,
        _moto: None,
    })
}

/// The Secrets Manager name of a local stack's card key (the points per-card limit's HMAC
/// key, `PAYGATE_CARD_KEY_SECRET`), created with the stack.
pub fn card_key_secret(prefix: &str) -> String {
    format!("paygate/local/{prefix}card-key")
}

/// A local stack's names, under the template's variables: its tables and queues, the
/// secret prefixes, the card key's secret and the stage; and `PAYGATE_PENDING_NOT_FOUND_GRACE_MS` when this
/// process's environment sets it (`make dev`), checked by the same builders as deployed.
pub fn local_names(
    tables: &TableNames,
    queues: &paygate_aws::sqs::QueueUrls,
    bank_secret_prefix: &str,
    card_key_secret: &str,
) -> Names {
    let pending_grace = std::env::var(paygate_compose::PENDING_NOT_FOUND_GRACE_ENV).ok();
    Names::local(
        tables,
        queues,
        [
            (paygate_compose::BANK_SECRET_PREFIX_ENV, bank_secret_prefix),
            (paygate_compose::CARD_KEY_SECRET_ENV, card_key_secret),
            (
                paygate_compose::WEBHOOK_SECRET_PREFIX_ENV,
                admin::SECRET_PREFIX,
            ),
            (paygate_compose::STAGE_ENV, "local"),
        ]
        .into_iter()
        .chain(
            pending_grace
                .as_deref()
                .map(|v| (paygate_compose::PENDING_NOT_FOUND_GRACE_ENV, v)),
        ),
    )
}

impl DevServer {
    /// The webhook endpoints table.
    pub fn endpoints(&self) -> DynamoEndpoints {
        DynamoEndpoints::new(self.client.clone(), &self.tables.webhook_endpoints)
    }

    /// Deliveries and their attempts.
    pub fn deliveries(&self) -> DynamoDeliveries {
        DynamoDeliveries::new(self.client.clone(), &self.tables.deliveries)
    }

    /// The outbox (events table).
    pub fn outbox(&self) -> DynamoEvents {
        DynamoEvents::new(self.client.clone(), &self.tables.events)
    }

    /// Payments, written atomically with their outbox event (under the stack's stale
    /// in-flight threshold, as its functions write them).
    pub fn payments(&self) -> DynamoPayments {
        DynamoPayments::new(
            self.client.clone(),
            &self.tables.payments,
            &self.tables.events,
        )
        .with_stale_after(self.stale_after)
    }

    /// Signing secrets (uncached reads with `read`; writes with `create` / `put`).
    pub fn signing(&self) -> SecretsManagerSigning {
        SecretsManagerSigning::new(self.secrets.clone(), paygate_aws::secrets::DEFAULT_TTL)
    }

    /// Runs the daily reconciliation of `day` now, as the nightly schedule runs it (the
    /// same `fn_reconciler::handle_daily`): `make dev` has no nightly timer, tests and
    /// `paygate` users call this (or invoke the function with `{"job":
    /// "daily-reconciliation", "date": ...}` when deployed).
    pub async fn reconcile_day(
        &self,
        day: paygate_domain::daily::BusinessDay,
    ) -> Result<paygate_payments::DailyRun, StoreError> {
        let deps = paygate_compose::Reconciler::build(&self.wiring)
            .map_err(|e| StoreError::Unavailable(e.to_string()))?;
        fn_reconciler::handle_daily(&deps, Some(day), None)
            .await
            .map_err(|e| StoreError::Unavailable(e.to_string()))
    }

    /// The bank protocols of this stack (e.g. to act at a simulated bank directly, as a
    /// merchant does in the bank's own panel).
    pub fn providers(&self) -> Result<paygate_payments::Providers, StoreError> {
        paygate_compose::providers(&self.wiring).map_err(|e| StoreError::Unavailable(e.to_string()))
    }

    /// The admin API's `admin-endpoints` dependencies over this stack (what the local
    /// admin routes run), for tests that drive the handlers directly.
    pub fn admin_endpoints(&self) -> Result<paygate_http::admin::EndpointsDeps, StoreError> {
        paygate_compose::AdminEndpoints::build(&self.wiring)
            .map(|d| d.admin)
            .map_err(|e| StoreError::Unavailable(e.to_string()))
    }

    /// Registers an enabled webhook endpoint through the dashboard's create handler (the
    /// one behind `POST /admin/v1/merchants/{merchantId}/webhook-endpoints`): a new `whe_`
    /// id, a new signing secret in Secrets Manager (`paygate/local/webhooks/<endpointId>`),
    /// the endpoint item. Returns the endpoint and its secret (shown once).
    pub async fn register_endpoint(
        &self,
        merchant: &MerchantId,
        url: &str,
        events: &[EventFilter],
        mode: Mode,
    ) -> Result<(WebhookEndpoint, String), StoreError> {
        let body = serde_json::json!({
            "url": url,
            "events": events.iter().map(|e| e.as_str()).collect::<Vec<_>>(),
            "mode": mode.as_str(),
        });
        let body = body.as_object().cloned().unwrap_or_default();
        let made = paygate_http::admin::endpoints::create(
            &self.admin_endpoints()?,
            merchant.as_str(),
            &body,
        )
        .await
        .map_err(|e| StoreError::Unavailable(format!("{}: {}", e.code, e.message)))?;
        let id = WebhookEndpointId::parse(&made.endpoint.id)
            .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let endpoint =
            paygate_domain::ports::EndpointReader::get_endpoint(&self.endpoints(), merchant, &id)
                .await?
                .ok_or_else(|| StoreError::Corrupt("the created endpoint is not there".into()))?;
        Ok((endpoint, made.secret))
    }
}
