//! The dashboard's admin API: the `admin-endpoints` and `admin-deliveries` functions.

use std::sync::Arc;

use paygate_aws::dynamo::{
    schema::{DELIVERIES, EVENTS, POS_ACCOUNTS, WEBHOOK_ENDPOINTS},
    Client,
};
use paygate_domain::ports::{Clock, IdGenerator};
use paygate_webhooks::EgressPolicy;

use crate::{
    adapters::{accounts, deliveries, delivery_queue, endpoints, events, outbox, signing_secrets},
    queue_url, required_env, table, ConfigError,
};

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
        Ok(Self {
            webhook_endpoints: table(&WEBHOOK_ENDPOINTS)?,
            deliveries: table(&DELIVERIES)?,
            events: table(&EVENTS)?,
            pos_accounts: table(&POS_ACCOUNTS)?,
            deliveries_queue_url: queue_url(&paygate_aws::sqs::DELIVERIES_QUEUE)?,
        })
    }
}

/// `WEBHOOK_SECRET_PREFIX` (`paygate/<stage>/webhooks/`).
pub fn webhook_secret_prefix_from_env() -> Result<String, ConfigError> {
    required_env(paygate_http::admin::SECRET_PREFIX_ENV)
}

/// The egress policy endpoint URLs are checked with: strict unless
/// `PAYGATE_WEBHOOK_ALLOW_ADDRS` names exceptions (local development only; the template
/// never sets it).
pub fn egress_policy_from_env() -> Result<EgressPolicy, ConfigError> {
    match std::env::var(paygate_webhooks::ENV_ALLOW_ADDRS) {
        Ok(v) if !v.trim().is_empty() => EgressPolicy::parse_allow_list(&v)
            .map_err(|_| ConfigError(paygate_webhooks::ENV_ALLOW_ADDRS)),
        _ => Ok(EgressPolicy::strict()),
    }
}

/// What the admin functions share: clients and names.
pub struct AdminParts<'a> {
    pub client: &'a Client,
    pub sqs: &'a paygate_aws::sqs::Client,
    pub tables: &'a AdminTables,
    pub clock: Arc<dyn Clock>,
}

/// The `admin-endpoints` function's dependencies.
pub fn admin_endpoints_deps(
    p: &AdminParts<'_>,
    secrets: &paygate_aws::secrets::Client,
    ids: Arc<dyn IdGenerator>,
    egress: EgressPolicy,
    secret_prefix: &str,
) -> paygate_http::admin::EndpointsDeps {
    let t = p.tables;
    paygate_http::admin::EndpointsDeps {
        merchants: accounts(p.client, &t.pos_accounts),
        endpoints: endpoints(p.client, &t.webhook_endpoints),
        deliveries: deliveries(p.client, &t.deliveries),
        outbox: events(p.client, &t.events),
        queue: delivery_queue(p.sqs, &t.deliveries_queue_url),
        // Uncached: the admin API reads a secret only to rotate it.
        secrets: signing_secrets(secrets, std::time::Duration::ZERO),
        clock: p.clock.clone(),
        ids,
        egress,
        secret_prefix: secret_prefix.to_owned(),
    }
}

/// The `admin-deliveries` function's dependencies.
pub fn admin_deliveries_deps(p: &AdminParts<'_>) -> paygate_http::admin::DeliveriesDeps {
    let t = p.tables;
    paygate_http::admin::DeliveriesDeps {
        merchants: accounts(p.client, &t.pos_accounts),
        endpoints: endpoints(p.client, &t.webhook_endpoints),
        deliveries: deliveries(p.client, &t.deliveries),
        outbox: outbox(p.client, &t.events),
        queue: delivery_queue(p.sqs, &t.deliveries_queue_url),
        clock: p.clock.clone(),
    }
}
