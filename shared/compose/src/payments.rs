//! The payment functions: money-moving and query operations, points inquiry, the bank
//! providers they reach, and the authorizer's API keys.

use std::sync::Arc;

use paygate_aws::dynamo::{
    schema::{API_KEYS, BINS, EVENTS, PAYMENTS, POS_ACCOUNTS, SIMBANK},
    Client, DynamoApiKeys, DynamoBins, DynamoPayments, DynamoSimLedger,
};
use paygate_bank_simulator::SimBank;
use paygate_domain::ports::{Clock, IdGenerator};
use paygate_payments::{
    EventSink, OperationDeps, PointsDeps, Providers, ReconcilerDeps, ReconcilerLimits,
};

use crate::{
    adapters::{accounts, event_publisher},
    queue_url, required_env, table, ConfigError,
};

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
    pub fn new(secrets: &paygate_aws::secrets::Client, prefix: &str) -> Result<Self, ConfigError> {
        Ok(Self {
            transport: paygate_bankkit::BankTransport::new(
                paygate_bankkit::transport::DEFAULT_TIMEOUT,
            )
            .map_err(|_| ConfigError("bank HTTP client"))?,
            credentials: Arc::new(paygate_aws::secrets::SecretsManagerCredentials::new(
                secrets.clone(),
                prefix,
                std::time::Duration::from_secs(300),
            )),
        })
    }

    pub async fn from_env() -> Result<Self, ConfigError> {
        let prefix = required_env(BANK_SECRET_PREFIX_ENV)?;
        Self::new(&paygate_aws::Clients::from_env().await.secrets, &prefix)
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
            events_queue_url: queue_url(&paygate_aws::sqs::EVENTS_QUEUE)?,
        })
    }
}

pub fn operation_deps(
    client: &Client,
    sqs: &paygate_aws::sqs::Client,
    t: &OperationTables,
    banks: &Banks,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
) -> OperationDeps {
    let providers = providers(client, &t.simbank, clock.clone(), banks);
    OperationDeps {
        payments: Arc::new(DynamoPayments::new(client.clone(), &t.payments, &t.events)),
        accounts: accounts(client, &t.pos_accounts),
        providers,
        clock,
        ids,
        events: EventSink {
            publisher: event_publisher(sqs, &t.events_queue_url),
        },
    }
}

/// Environment variable: minutes a payment may stay unsettled before the reconciler reports
/// it over the limit (the alarm's figure); default 30.
pub const RECONCILE_ALARM_AFTER_ENV: &str = "RECONCILE_ALARM_AFTER_MINUTES";

/// The reconciler's limits: the defaults, with the alarm limit from the environment. A
/// malformed value is an error at start-up.
pub fn reconciler_limits_from_env() -> Result<ReconcilerLimits, ConfigError> {
    let mut limits = ReconcilerLimits::default();
    if let Ok(v) = std::env::var(RECONCILE_ALARM_AFTER_ENV) {
        if !v.trim().is_empty() {
            let minutes: i64 = v
                .trim()
                .parse()
                .ok()
                .filter(|m| *m > 0)
                .ok_or(ConfigError(RECONCILE_ALARM_AFTER_ENV))?;
            limits.alarm_after_ms = minutes.saturating_mul(60_000);
        }
    }
    Ok(limits)
}

/// The reconciler's dependencies: a money function's, plus the `unsettled` index.
pub fn reconciler_deps(
    client: &Client,
    sqs: &paygate_aws::sqs::Client,
    t: &OperationTables,
    banks: &Banks,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    limits: ReconcilerLimits,
) -> ReconcilerDeps {
    ReconcilerDeps {
        ops: operation_deps(client, sqs, t, banks, clock, ids),
        unsettled: Arc::new(DynamoPayments::new(client.clone(), &t.payments, &t.events)),
        limits,
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
        accounts: accounts(client, &t.pos_accounts),
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
