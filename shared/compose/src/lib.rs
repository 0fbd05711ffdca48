//! Composition root: builds each function's dependencies from the real adapters. Lambdas
//! call the `*_from_env` functions once at init; the dev server calls the same builders with
//! its own table names, so local and deployed wiring cannot differ.

use std::sync::Arc;

use paygate_domain::ports::{Clock, IdGenerator};
use paygate_dynamo::{
    schema::{TableDef, API_KEYS, BINS, EVENTS, PAYMENTS, POS_ACCOUNTS, SIMBANK},
    Client, DynamoAccounts, DynamoApiKeys, DynamoBins, DynamoPayments, DynamoSimLedger,
};
use paygate_ops::{
    system::{RandomIds, SystemClock},
    EventSink, OperationDeps, PointsDeps, Providers,
};
use paygate_simbank::SimBank;

/// A required setting is missing.
#[derive(Debug, thiserror::Error)]
#[error("environment variable {0} is not set")]
pub struct ConfigError(pub &'static str);

/// The name of one table, from its environment variable.
pub fn table(def: &TableDef) -> Result<String, ConfigError> {
    std::env::var(def.env_var)
        .ok()
        .filter(|v| !v.is_empty())
        .ok_or(ConfigError(def.env_var))
}

/// Clock and ids of the running system.
pub fn system() -> (Arc<dyn Clock>, Arc<dyn IdGenerator>) {
    (Arc::new(SystemClock), Arc::new(RandomIds))
}

/// Environment variable: prefix of the per-account bank credential secrets
/// (`<prefix><accountId>`, e.g. `paygate/dev/banks/acc_…`).
pub const BANK_SECRET_PREFIX_ENV: &str = "BANK_SECRET_PREFIX";

/// What the real bank protocols need: a bounded HTTP transport and the account credentials.
#[derive(Clone)]
pub struct Banks {
    pub transport: paygate_bankkit::BankTransport,
    pub credentials: Arc<dyn paygate_bankkit::CredentialStore>,
}

impl Banks {
    /// Credentials from Secrets Manager under `prefix`, cached for five minutes.
    pub fn new(secrets: &paygate_secrets::Client, prefix: &str) -> Result<Self, ConfigError> {
        Ok(Self {
            transport: paygate_bankkit::BankTransport::new(
                paygate_bankkit::transport::DEFAULT_TIMEOUT,
            )
            .map_err(|_| ConfigError("bank HTTP client"))?,
            credentials: Arc::new(paygate_bankkit::SecretsManagerCredentials::new(
                secrets.clone(),
                prefix,
                std::time::Duration::from_secs(300),
            )),
        })
    }

    pub async fn from_env() -> Result<Self, ConfigError> {
        let prefix = std::env::var(BANK_SECRET_PREFIX_ENV)
            .ok()
            .filter(|v| !v.is_empty())
            .ok_or(ConfigError(BANK_SECRET_PREFIX_ENV))?;
        Self::new(&paygate_secrets::client_from_env().await, &prefix)
    }
}

/// Every bank protocol the gateway speaks, registered once: one line per protocol.
pub fn providers(
    client: &Client,
    simbank_table: &str,
    clock: Arc<dyn Clock>,
    banks: &Banks,
) -> Providers {
    let sim = Arc::new(SimBank::new(
        Arc::new(DynamoSimLedger::new(client.clone(), simbank_table)),
        clock,
    ));
    let (t, c) = (&banks.transport, &banks.credentials);
    Providers::new()
        .register(sim)
        .register(Arc::new(paygate_bank_nestpay::NestpayProvider::new(
            t.clone(),
            c.clone(),
        )))
        .register(Arc::new(paygate_bank_garanti::GarantiProvider::new(
            t.clone(),
            c.clone(),
        )))
        .register(Arc::new(paygate_bank_posnet::PosnetProvider::new(
            t.clone(),
            c.clone(),
        )))
}

/// A queue URL from its environment variable.
pub fn queue_url(def: &paygate_sqs::QueueDef) -> Result<String, ConfigError> {
    std::env::var(def.env_var)
        .ok()
        .filter(|v| !v.is_empty())
        .ok_or(ConfigError(def.env_var))
}

/// Table names (and the events queue) a money-moving or query function uses.
pub struct OperationTables {
    pub payments: String,
    pub events: String,
    pub pos_accounts: String,
    pub simbank: String,
    pub events_queue_url: String,
}

impl OperationTables {
    pub fn from_env() -> Result<Self, ConfigError> {
        Ok(Self {
            payments: table(&PAYMENTS)?,
            events: table(&EVENTS)?,
            pos_accounts: table(&POS_ACCOUNTS)?,
            simbank: table(&SIMBANK)?,
            events_queue_url: queue_url(&paygate_sqs::EVENTS_QUEUE)?,
        })
    }
}

/// The outbox: the events table.
pub fn outbox(client: &Client, events_table: &str) -> Arc<dyn paygate_domain::ports::Outbox> {
    Arc::new(paygate_dynamo::DynamoEvents::new(
        client.clone(),
        events_table,
    ))
}

pub fn operation_deps(
    client: &Client,
    sqs: &paygate_sqs::Client,
    t: &OperationTables,
    banks: &Banks,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
) -> OperationDeps {
    let providers = providers(client, &t.simbank, clock.clone(), banks);
    OperationDeps {
        payments: Arc::new(DynamoPayments::new(client.clone(), &t.payments, &t.events)),
        accounts: Arc::new(DynamoAccounts::new(client.clone(), &t.pos_accounts)),
        providers,
        clock,
        ids,
        events: EventSink {
            publisher: Arc::new(paygate_sqs::SqsEventPublisher::new(
                sqs.clone(),
                &t.events_queue_url,
            )),
            outbox: outbox(client, &t.events),
        },
    }
}

/// Table names the points inquiry uses.
pub struct PointsTables {
    pub pos_accounts: String,
    pub bins: String,
    pub simbank: String,
}

impl PointsTables {
    pub fn from_env() -> Result<Self, ConfigError> {
        Ok(Self {
            pos_accounts: table(&POS_ACCOUNTS)?,
            bins: table(&BINS)?,
            simbank: table(&SIMBANK)?,
        })
    }
}

pub fn points_deps(
    client: &Client,
    t: &PointsTables,
    banks: &Banks,
    clock: Arc<dyn Clock>,
) -> PointsDeps {
    let providers = providers(client, &t.simbank, clock, banks);
    PointsDeps {
        accounts: Arc::new(DynamoAccounts::new(client.clone(), &t.pos_accounts)),
        bins: Arc::new(DynamoBins::new(client.clone(), &t.bins)),
        providers,
    }
}

/// The API key lookup for the authorizer.
pub fn api_keys(client: &Client, api_keys_table: &str) -> DynamoApiKeys {
    DynamoApiKeys::new(client.clone(), api_keys_table)
}

pub fn api_keys_table_from_env() -> Result<String, ConfigError> {
    table(&API_KEYS)
}

// ---------------------------------------------------------------------------------------
// Webhook pipeline
// ---------------------------------------------------------------------------------------

/// Environment variable overriding the retry schedule (default: the spec's).
pub const RETRY_SCHEDULE_ENV: &str = "PAYGATE_WEBHOOK_RETRY_SCHEDULE";

/// The retry schedule: `PAYGATE_WEBHOOK_RETRY_SCHEDULE` (e.g. `1s,1s,1s,1s,1s,1s,1s,1s` for
/// a local trial) or the spec's `30s,2m,10m,30m,2h,6h,12h,24h`. A malformed value is an
/// error at start-up, never a silent fallback.
pub fn retry_schedule_from_env() -> Result<paygate_domain::webhook::RetrySchedule, ConfigError> {
    match std::env::var(RETRY_SCHEDULE_ENV) {
        Ok(v) if !v.trim().is_empty() => {
            paygate_domain::webhook::RetrySchedule::parse(&v).ok_or(ConfigError(RETRY_SCHEDULE_ENV))
        }
        _ => Ok(paygate_domain::webhook::RetrySchedule::default()),
    }
}

/// Tables and queues of the webhook pipeline.
pub struct PipelineTables {
    pub events: String,
    pub webhook_endpoints: String,
    pub deliveries: String,
    pub events_queue_url: String,
    pub deliveries_queue_url: String,
}

impl PipelineTables {
    /// Every pipeline function gets all five names; its IAM policy decides what it may use.
    pub fn from_env() -> Result<Self, ConfigError> {
        use paygate_dynamo::schema::{DELIVERIES, WEBHOOK_ENDPOINTS};
        Ok(Self {
            events: table(&EVENTS)?,
            webhook_endpoints: table(&WEBHOOK_ENDPOINTS)?,
            deliveries: table(&DELIVERIES)?,
            events_queue_url: queue_url(&paygate_sqs::EVENTS_QUEUE)?,
            deliveries_queue_url: queue_url(&paygate_sqs::DELIVERIES_QUEUE)?,
        })
    }
}

pub fn fanout_deps(
    client: &Client,
    sqs: &paygate_sqs::Client,
    t: &PipelineTables,
    clock: Arc<dyn Clock>,
) -> paygate_pipeline::FanoutDeps {
    paygate_pipeline::FanoutDeps {
        endpoints: Arc::new(paygate_dynamo::DynamoEndpoints::new(
            client.clone(),
            &t.webhook_endpoints,
        )),
        deliveries: Arc::new(paygate_dynamo::DynamoDeliveries::new(
            client.clone(),
            &t.deliveries,
        )),
        queue: Arc::new(paygate_sqs::SqsDeliveryQueue::new(
            sqs.clone(),
            &t.deliveries_queue_url,
        )),
        clock,
    }
}

#[allow(clippy::too_many_arguments)]
pub fn deliver_deps(
    client: &Client,
    sqs: &paygate_sqs::Client,
    secrets: &paygate_secrets::Client,
    t: &PipelineTables,
    sender: Arc<dyn paygate_domain::ports::WebhookSender>,
    clock: Arc<dyn Clock>,
    schedule: paygate_domain::webhook::RetrySchedule,
) -> paygate_pipeline::DeliverDeps {
    paygate_pipeline::DeliverDeps {
        deliveries: Arc::new(paygate_dynamo::DynamoDeliveries::new(
            client.clone(),
            &t.deliveries,
        )),
        outbox: outbox(client, &t.events),
        endpoints: Arc::new(paygate_dynamo::DynamoEndpoints::new(
            client.clone(),
            &t.webhook_endpoints,
        )),
        secrets: Arc::new(paygate_secrets::SecretsManagerSigning::new(
            secrets.clone(),
            paygate_secrets::DEFAULT_TTL,
        )),
        sender,
        queue: Arc::new(paygate_sqs::SqsDeliveryQueue::new(
            sqs.clone(),
            &t.deliveries_queue_url,
        )),
        clock,
        schedule,
    }
}

/// The sweeper's deps; `grace_ms` is how old an unsent event or overdue delivery must be
/// (`paygate_pipeline::sweep::GRACE_MS` when deployed).
pub fn sweep_deps(
    client: &Client,
    sqs: &paygate_sqs::Client,
    t: &PipelineTables,
    clock: Arc<dyn Clock>,
    grace_ms: i64,
) -> paygate_pipeline::SweepDeps {
    paygate_pipeline::SweepDeps {
        outbox: outbox(client, &t.events),
        publisher: Arc::new(paygate_sqs::SqsEventPublisher::new(
            sqs.clone(),
            &t.events_queue_url,
        )),
        deliveries: Arc::new(paygate_dynamo::DynamoDeliveries::new(
            client.clone(),
            &t.deliveries,
        )),
        queue: Arc::new(paygate_sqs::SqsDeliveryQueue::new(
            sqs.clone(),
            &t.deliveries_queue_url,
        )),
        clock,
        grace_ms,
    }
}

// ---------------------------------------------------------------------------------------
// The dashboard's admin API
// ---------------------------------------------------------------------------------------

/// Tables and the queue of the admin functions (the secret prefix is read separately).
pub struct AdminTables {
    pub webhook_endpoints: String,
    pub deliveries: String,
    pub events: String,
    /// Which merchants exist (a merchant has POS accounts).
    pub pos_accounts: String,
    pub deliveries_queue_url: String,
}

impl AdminTables {
    /// Both admin functions get all five names; their IAM policies decide what they may use.
    pub fn from_env() -> Result<Self, ConfigError> {
        use paygate_dynamo::schema::{DELIVERIES, WEBHOOK_ENDPOINTS};
        Ok(Self {
            webhook_endpoints: table(&WEBHOOK_ENDPOINTS)?,
            deliveries: table(&DELIVERIES)?,
            events: table(&EVENTS)?,
            pos_accounts: table(&POS_ACCOUNTS)?,
            deliveries_queue_url: queue_url(&paygate_sqs::DELIVERIES_QUEUE)?,
        })
    }
}

/// `WEBHOOK_SECRET_PREFIX` (`paygate/<stage>/webhooks/`).
pub fn webhook_secret_prefix_from_env() -> Result<String, ConfigError> {
    std::env::var(paygate_admin::SECRET_PREFIX_ENV)
        .ok()
        .filter(|v| !v.is_empty())
        .ok_or(ConfigError(paygate_admin::SECRET_PREFIX_ENV))
}

/// The egress policy endpoint URLs are checked with: strict unless
/// `PAYGATE_WEBHOOK_ALLOW_ADDRS` names exceptions (local development only; the template
/// never sets it).
pub fn egress_policy_from_env() -> Result<paygate_webhooks::EgressPolicy, ConfigError> {
    match std::env::var(paygate_webhooks::ENV_ALLOW_ADDRS) {
        Ok(v) if !v.trim().is_empty() => paygate_webhooks::EgressPolicy::parse_allow_list(&v)
            .map_err(|_| ConfigError(paygate_webhooks::ENV_ALLOW_ADDRS)),
        _ => Ok(paygate_webhooks::EgressPolicy::strict()),
    }
}

/// What the admin functions share: clients and names.
pub struct AdminParts<'a> {
    pub client: &'a Client,
    pub sqs: &'a paygate_sqs::Client,
    pub tables: &'a AdminTables,
    pub clock: Arc<dyn Clock>,
}

/// The `admin-endpoints` function's dependencies.
pub fn admin_endpoints_deps(
    p: &AdminParts<'_>,
    secrets: &paygate_secrets::Client,
    ids: Arc<dyn IdGenerator>,
    egress: paygate_webhooks::EgressPolicy,
    secret_prefix: &str,
) -> paygate_admin::EndpointsDeps {
    let t = p.tables;
    paygate_admin::EndpointsDeps {
        merchants: Arc::new(DynamoAccounts::new(p.client.clone(), &t.pos_accounts)),
        endpoints: Arc::new(paygate_dynamo::DynamoEndpoints::new(
            p.client.clone(),
            &t.webhook_endpoints,
        )),
        deliveries: Arc::new(paygate_dynamo::DynamoDeliveries::new(
            p.client.clone(),
            &t.deliveries,
        )),
        outbox: Arc::new(paygate_dynamo::DynamoEvents::new(
            p.client.clone(),
            &t.events,
        )),
        queue: Arc::new(paygate_sqs::SqsDeliveryQueue::new(
            p.sqs.clone(),
            &t.deliveries_queue_url,
        )),
        // Uncached: the admin API reads a secret only to rotate it.
        secrets: Arc::new(paygate_secrets::SecretsManagerSigning::new(
            secrets.clone(),
            std::time::Duration::ZERO,
        )),
        clock: p.clock.clone(),
        ids,
        egress,
        secret_prefix: secret_prefix.to_owned(),
    }
}

/// The `admin-deliveries` function's dependencies.
pub fn admin_deliveries_deps(p: &AdminParts<'_>) -> paygate_admin::DeliveriesDeps {
    let t = p.tables;
    let deliveries = Arc::new(paygate_dynamo::DynamoDeliveries::new(
        p.client.clone(),
        &t.deliveries,
    ));
    paygate_admin::DeliveriesDeps {
        merchants: Arc::new(DynamoAccounts::new(p.client.clone(), &t.pos_accounts)),
        endpoints: Arc::new(paygate_dynamo::DynamoEndpoints::new(
            p.client.clone(),
            &t.webhook_endpoints,
        )),
        deliveries,
        outbox: outbox(p.client, &t.events),
        queue: Arc::new(paygate_sqs::SqsDeliveryQueue::new(
            p.sqs.clone(),
            &t.deliveries_queue_url,
        )),
        clock: p.clock.clone(),
    }
}
