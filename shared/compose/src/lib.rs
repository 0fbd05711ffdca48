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

/// Every bank protocol the gateway speaks, registered once.
pub fn providers(
    client: &Client,
    simbank_table: &str,
    clock: Arc<dyn Clock>,
) -> (Providers, Arc<SimBank>) {
    let sim = Arc::new(SimBank::new(
        Arc::new(DynamoSimLedger::new(client.clone(), simbank_table)),
        clock,
    ));
    (Providers::new().register(sim.clone()), sim)
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
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
) -> OperationDeps {
    let (providers, _) = providers(client, &t.simbank, clock.clone());
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

pub fn points_deps(client: &Client, t: &PointsTables, clock: Arc<dyn Clock>) -> PointsDeps {
    let (providers, _) = providers(client, &t.simbank, clock);
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
