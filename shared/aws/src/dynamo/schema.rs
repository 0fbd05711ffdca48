//! The tables, as data. `template.yaml` declares the same tables from these definitions;
//! [`create_tables`] creates them in a local stack (moto).

use std::time::Duration;

use aws_sdk_dynamodb::{
    client::Waiters,
    types::{
        AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
        Projection, ProjectionType, ScalarAttributeType, TimeToLiveSpecification,
    },
    Client,
};
use paygate_domain::StoreError;

use crate::dynamo::error::{build_error, unavailable};

/// A global secondary index. Its key attributes are strings (type `S`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GsiDef {
    /// Index name.
    pub name: &'static str,
    /// Partition-key attribute.
    pub hash_key: &'static str,
    /// Sort-key attribute, if any.
    pub range_key: Option<&'static str>,
}

impl GsiDef {
    /// An index keyed by `hash_key` and sorted by `range_key` (every index of the stack is).
    pub const fn new(name: &'static str, hash_key: &'static str, range_key: &'static str) -> Self {
        Self {
            name,
            hash_key,
            range_key: Some(range_key),
        }
    }
}

/// One table: its CloudFormation logical id, the environment variable that carries its name
/// to the functions, its key schema (all key attributes are strings, type `S`), its GSIs
/// (projection ALL) and its TTL attribute, if any. Billing is PAY_PER_REQUEST.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableDef {
    /// CloudFormation logical id; also the name suffix after the stack prefix.
    pub logical_id: &'static str,
    /// Environment variable carrying the table name to the functions.
    pub env_var: &'static str,
    /// Partition-key attribute.
    pub hash_key: &'static str,
    /// Sort-key attribute, if any.
    pub range_key: Option<&'static str>,
    /// Global secondary indexes (projection ALL).
    pub gsis: &'static [GsiDef],
    /// Attribute DynamoDB expires items by, if TTL is enabled.
    pub ttl_attribute: Option<&'static str>,
}

impl TableDef {
    /// A table keyed by `hash_key` alone, without GSIs or TTL.
    pub const fn new(
        logical_id: &'static str,
        env_var: &'static str,
        hash_key: &'static str,
    ) -> Self {
        Self {
            logical_id,
            env_var,
            hash_key,
            range_key: None,
            gsis: &[],
            ttl_attribute: None,
        }
    }

    /// The same table with the sort key `range_key`.
    pub const fn with_sort_key(self, range_key: &'static str) -> Self {
        Self {
            range_key: Some(range_key),
            ..self
        }
    }

    /// The same table with these GSIs.
    pub const fn with_gsis(self, gsis: &'static [GsiDef]) -> Self {
        Self { gsis, ..self }
    }

    /// The same table with TTL on `attribute`.
    pub const fn with_ttl(self, attribute: &'static str) -> Self {
        Self {
            ttl_attribute: Some(attribute),
            ..self
        }
    }

    /// The table's name in a stack whose tables are named `{prefix}{logical_id}`.
    pub fn name(&self, prefix: &str) -> String {
        format!("{prefix}{}", self.logical_id)
    }

    /// Every key attribute of the table and its GSIs, each once.
    pub fn key_attributes(&self) -> Vec<&'static str> {
        let mut out = vec![self.hash_key];
        out.extend(self.range_key);
        for g in self.gsis {
            out.push(g.hash_key);
            out.extend(g.range_key);
        }
        let mut seen = Vec::new();
        out.retain(|a| {
            let fresh = !seen.contains(a);
            seen.push(*a);
            fresh
        });
        out
    }
}

/// The sparse index of payments that need settling from the bank's records (the
/// reconciler's work list), by shard and due time.
pub const UNSETTLED_INDEX: GsiDef = GsiDef::new("unsettled", "unsettledShard", "reconcileAt");

/// Transactions by POS account and business day (`accountDay = <account id>#<YYYY-MM-DD>`,
/// the Istanbul day of `createdAt`): the daily reconciliation's side of ours.
pub const ACCOUNT_DAY_INDEX: GsiDef = GsiDef::new("byAccountDay", "accountDay", "createdAt");

/// Payments (`sk = "PAYMENT"`) and their transactions (`sk = "TXN#<txn id>"`), under
/// `pk = <payment id>`; and the daily reconciliation reports (`pk = "RECON#<merchant id>"`,
/// `sk = "<YYYY-MM-DD>#<account id>"`).
pub const PAYMENTS: TableDef = TableDef::new("PaymentsTable", "PAYMENTS_TABLE", "pk")
    .with_sort_key("sk")
    .with_gsis(&[UNSETTLED_INDEX, ACCOUNT_DAY_INDEX]);

/// The sparse index of events not yet sent to the queue.
pub const UNSENT_INDEX: GsiDef = GsiDef::new("unsent", "unsentShard", "createdAt");

/// The outbox: one item per event, by event id.
///
/// Retention: an event gets `expiresAt` (number, epoch seconds) = its creation + the
/// retention only when it is marked handed over (its deliveries exist, so its
/// `unsentShard` goes); an event not yet handed over has no `expiresAt` and TTL never
/// deletes it. The deliveries that need it (every attempt and a resend read it) are kept
/// for the same retention.
pub const EVENTS: TableDef = TableDef::new("EventsTable", "EVENTS_TABLE", "id")
    .with_gsis(&[UNSENT_INDEX])
    .with_ttl("expiresAt");

/// A merchant's API keys, by key id (the admin API's list, roll and revoke).
pub const BY_MERCHANT_INDEX: GsiDef = GsiDef::new("byMerchant", "merchantId", "keyId");

/// API keys by the lowercase hex SHA-256 of the whole key.
pub const API_KEYS: TableDef =
    TableDef::new("ApiKeysTable", "API_KEYS_TABLE", "keyHash").with_gsis(&[BY_MERCHANT_INDEX]);

/// POS accounts, by merchant and account id.
pub const POS_ACCOUNTS: TableDef =
    TableDef::new("PosAccountsTable", "POS_ACCOUNTS_TABLE", "merchantId")
        .with_sort_key("accountId");

/// The BIN → issuing bank table.
pub const BINS: TableDef = TableDef::new("BinsTable", "BINS_TABLE", "bin");

/// The bank simulator's orders, by `"<accountId>#<orderId>"`.
pub const SIMBANK: TableDef = TableDef::new("SimBankTable", "SIMBANK_TABLE", "pk");

/// Merchants' webhook endpoints, by merchant and endpoint id. Signing secrets are not
/// here: each endpoint names its Secrets Manager secret (`secretId`).
pub const WEBHOOK_ENDPOINTS: TableDef = TableDef::new(
    "WebhookEndpointsTable",
    "WEBHOOK_ENDPOINTS_TABLE",
    "merchantId",
)
.with_sort_key("endpointId");

/// A webhook endpoint's deliveries, newest first by `createdAt` (delivery items only:
/// attempt items carry no `endpointId`).
pub const BY_ENDPOINT_INDEX: GsiDef = GsiDef::new("byEndpoint", "endpointId", "createdAt");

/// An event's deliveries (one per endpoint it went to; delivery items only).
pub const BY_EVENT_INDEX: GsiDef = GsiDef::new("byEvent", "eventId", "createdAt");

/// The sparse index of pending deliveries by when their next attempt is due: only a pending
/// delivery carries `dueShard` (always `"0"`, see [`DUE_SHARD`]). The sweeper reads it to
/// re-enqueue deliveries whose queue message was lost.
pub const DUE_INDEX: GsiDef = GsiDef::new("due", "dueShard", "nextAttemptAt");

/// The sparse index of an endpoint's pending deliveries: only a pending delivery carries
/// `pendingEndpoint` (its endpoint id). Counted (`Select COUNT`) for the endpoint's backlog.
pub const PENDING_INDEX: GsiDef = GsiDef::new("pendingByEndpoint", "pendingEndpoint", "createdAt");

/// The one `dueShard` value. Only pending deliveries are in the `due` index, so one
/// partition is enough; shard it like the outbox's `unsent` index if that ever changes.
pub const DUE_SHARD: &str = "0";

/// How long events (once handed over) and deliveries with their attempts are kept by
/// default: 90 days after they were created (`PAYGATE_RETENTION_DAYS` sets it, one figure
/// for both, so a delivery's history never outlives the event it resends).
pub const DELIVERY_RETENTION_DAYS: i64 = paygate_domain::webhook::DELIVERY_RETENTION_DAYS;

/// [`DELIVERY_RETENTION_DAYS`] in seconds, the adapters' default.
pub const DEFAULT_RETENTION_SECS: i64 = DELIVERY_RETENTION_DAYS * 86_400;

/// Deliveries and their attempts, under `pk = <delivery id>`: the delivery item
/// (`sk = "DELIVERY"`) and one item per attempt (`sk = "ATTEMPT#0001"`, `"ATTEMPT#0002"`, …).
///
/// Retention: every item carries `expiresAt` (number, epoch seconds) = the delivery's
/// `createdAt` + [`DELIVERY_RETENTION_DAYS`]; DynamoDB's TTL deletes it some time after that
/// (usually within days, not at the exact second), so history older than 90 days may still
/// be read for a while and then disappears, attempts together with their delivery.
pub const DELIVERIES: TableDef = TableDef::new("DeliveriesTable", "DELIVERIES_TABLE", "pk")
    .with_sort_key("sk")
    .with_gsis(&[BY_ENDPOINT_INDEX, BY_EVENT_INDEX, DUE_INDEX, PENDING_INDEX])
    .with_ttl("expiresAt");

/// `Idempotency-Key` records, one per key scoped to merchant and mode
/// (`pk = "<merchantId>#<mode>#<key>"`): a lock while the first request runs, then its
/// answer. Every item carries `expiresAt` (number, epoch seconds) = when its request took
/// the key + 24 h; DynamoDB's TTL deletes it some time after that, and until then reads
/// treat it as absent (`paygate_domain::idempotency`).
pub const IDEMPOTENCY: TableDef =
    TableDef::new("IdempotencyTable", "IDEMPOTENCY_TABLE", "pk").with_ttl("expiresAt");

/// Per-API-key throttling counters (`paygate_domain::throttle`), one item per key, scope
/// and clock minute (`pk = "<keyId>#<scope>#<unix minute>"`) with the minute's total and
/// each second's count. Every item carries `expiresAt` (epoch seconds) two minutes after
/// its minute started; it is never read once its minute is over, and TTL deletes it.
pub const THROTTLE: TableDef =
    TableDef::new("ThrottleTable", "THROTTLE_TABLE", "pk").with_ttl("expiresAt");

/// The admin audit trail, by merchant and `<unix millis>#<aud_id>#<half>`: append-only
/// (`crate::dynamo::DynamoAudit`).
pub const AUDIT: TableDef =
    TableDef::new("AuditTable", "AUDIT_TABLE", "merchantId").with_sort_key("sk");

/// Every table of the stack.
pub const TABLES: &[TableDef] = &[
    PAYMENTS,
    EVENTS,
    API_KEYS,
    POS_ACCOUNTS,
    BINS,
    SIMBANK,
    WEBHOOK_ENDPOINTS,
    DELIVERIES,
    IDEMPOTENCY,
    THROTTLE,
    AUDIT,
];

/// The actual table names of one stack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableNames {
    /// [`PAYMENTS`] (`PAYMENTS_TABLE`).
    pub payments: String,
    /// [`EVENTS`] (`EVENTS_TABLE`).
    pub events: String,
    /// [`API_KEYS`] (`API_KEYS_TABLE`).
    pub api_keys: String,
    /// [`POS_ACCOUNTS`] (`POS_ACCOUNTS_TABLE`).
    pub pos_accounts: String,
    /// [`BINS`] (`BINS_TABLE`).
    pub bins: String,
    /// [`SIMBANK`] (`SIMBANK_TABLE`).
    pub simbank: String,
    /// [`WEBHOOK_ENDPOINTS`] (`WEBHOOK_ENDPOINTS_TABLE`).
    pub webhook_endpoints: String,
    /// [`DELIVERIES`] (`DELIVERIES_TABLE`).
    pub deliveries: String,
    /// [`IDEMPOTENCY`] (`IDEMPOTENCY_TABLE`).
    pub idempotency: String,
    /// [`THROTTLE`] (`THROTTLE_TABLE`).
    pub throttle: String,
    /// [`AUDIT`] (`AUDIT_TABLE`).
    pub audit: String,
}

/// A table-name environment variable is not set (or is empty).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("environment variable {0} is not set")]
pub struct MissingEnvVar(pub &'static str);

impl TableNames {
    /// Reads every table name from its environment variable ([`TableDef::env_var`]).
    pub fn from_env() -> Result<Self, MissingEnvVar> {
        Self::from_lookup(|var| std::env::var(var).ok())
    }

    /// Like [`TableNames::from_env`], from any variable lookup.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, MissingEnvVar> {
        Self::try_each(|def| {
            lookup(def.env_var)
                .filter(|v| !v.is_empty())
                .ok_or(MissingEnvVar(def.env_var))
        })
    }

    /// `(env var, table name)` pairs, e.g. to set a local function's environment.
    pub fn env_pairs(&self) -> Vec<(&'static str, String)> {
        self.by_table()
            .into_iter()
            .map(|(def, name)| (def.env_var, name.clone()))
            .collect()
    }

    /// Every table's name, `name(def)` of its definition: the one list of fields.
    fn try_each<E>(mut name: impl FnMut(&TableDef) -> Result<String, E>) -> Result<Self, E> {
        Ok(Self {
            payments: name(&PAYMENTS)?,
            events: name(&EVENTS)?,
            api_keys: name(&API_KEYS)?,
            pos_accounts: name(&POS_ACCOUNTS)?,
            bins: name(&BINS)?,
            simbank: name(&SIMBANK)?,
            webhook_endpoints: name(&WEBHOOK_ENDPOINTS)?,
            deliveries: name(&DELIVERIES)?,
            idempotency: name(&IDEMPOTENCY)?,
            throttle: name(&THROTTLE)?,
            audit: name(&AUDIT)?,
        })
    }

    /// Each field with the table it names, in [`TABLES`] order.
    fn by_table(&self) -> [(&'static TableDef, &String); 11] {
        [
            (&PAYMENTS, &self.payments),
            (&EVENTS, &self.events),
            (&API_KEYS, &self.api_keys),
            (&POS_ACCOUNTS, &self.pos_accounts),
            (&BINS, &self.bins),
            (&SIMBANK, &self.simbank),
            (&WEBHOOK_ENDPOINTS, &self.webhook_endpoints),
            (&DELIVERIES, &self.deliveries),
            (&IDEMPOTENCY, &self.idempotency),
            (&THROTTLE, &self.throttle),
            (&AUDIT, &self.audit),
        ]
    }
}

/// The names of a stack whose tables are named `{prefix}{logical_id}`.
pub fn table_names(prefix: &str) -> TableNames {
    match TableNames::try_each(|def| Ok::<_, std::convert::Infallible>(def.name(prefix))) {
        Ok(names) => names,
        Err(never) => match never {},
    }
}

fn key(attr: &str, kind: KeyType) -> Result<KeySchemaElement, StoreError> {
    KeySchemaElement::builder()
        .attribute_name(attr)
        .key_type(kind)
        .build()
        .map_err(|e| build_error("key schema", e))
}

fn key_schema(hash: &str, range: Option<&str>) -> Result<Vec<KeySchemaElement>, StoreError> {
    let mut out = vec![key(hash, KeyType::Hash)?];
    if let Some(r) = range {
        out.push(key(r, KeyType::Range)?);
    }
    Ok(out)
}

/// Creates one table (and its TTL setting); an existing table is left as it is.
pub async fn create_table(client: &Client, def: &TableDef, prefix: &str) -> Result<(), StoreError> {
    let name = def.name(prefix);
    let mut req = client
        .create_table()
        .table_name(&name)
        .billing_mode(BillingMode::PayPerRequest)
        .set_key_schema(Some(key_schema(def.hash_key, def.range_key)?));
    for attr in def.key_attributes() {
        req = req.attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name(attr)
                .attribute_type(ScalarAttributeType::S)
                .build()
                .map_err(|e| build_error("attribute definition", e))?,
        );
    }
    for g in def.gsis {
        req = req.global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name(g.name)
                .set_key_schema(Some(key_schema(g.hash_key, g.range_key)?))
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::All)
                        .build(),
                )
                .build()
                .map_err(|e| build_error("GSI", e))?,
        );
    }
    match req.send().await {
        Ok(_) => {}
        Err(e)
            if e.as_service_error()
                .is_some_and(|se| se.is_resource_in_use_exception()) =>
        {
            tracing::debug!(table = %name, "table exists already");
            return Ok(());
        }
        Err(e) => return Err(unavailable("CreateTable", &e)),
    }
    client
        .wait_until_table_exists()
        .table_name(&name)
        .wait(Duration::from_secs(300))
        .await
        .map_err(|e| StoreError::Unavailable(format!("waiting for table {name}: {e}")))?;
    if let Some(attr) = def.ttl_attribute {
        client
            .update_time_to_live()
            .table_name(&name)
            .time_to_live_specification(
                TimeToLiveSpecification::builder()
                    .attribute_name(attr)
                    .enabled(true)
                    .build()
                    .map_err(|e| build_error("TTL specification", e))?,
            )
            .send()
            .await
            .map_err(|e| unavailable("UpdateTimeToLive", &e))?;
    }
    Ok(())
}

/// Creates every table of [`TABLES`] as `{prefix}{logical_id}` (PAY_PER_REQUEST, GSIs with
/// projection ALL) and waits until they are active. Tables that exist already are kept, so
/// running it twice is harmless.
pub async fn create_tables(client: &Client, prefix: &str) -> Result<(), StoreError> {
    for def in TABLES {
        create_table(client, def, prefix).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_prefix_and_the_env() {
        let names = table_names("dev-");
        assert_eq!(names.payments, "dev-PaymentsTable");
        assert_eq!(names.simbank, "dev-SimBankTable");
        let env: std::collections::HashMap<String, String> = names
            .env_pairs()
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
        // One pair per table, in TABLES order.
        let vars: Vec<_> = names.env_pairs().into_iter().map(|(k, _)| k).collect();
        let expected: Vec<_> = TABLES.iter().map(|t| t.env_var).collect();
        assert_eq!(vars, expected);
        assert_eq!(TableNames::from_lookup(|k| env.get(k).cloned()), Ok(names));
        let err = TableNames::from_lookup(|k| (k != "BINS_TABLE").then(|| "x".to_owned()));
        assert_eq!(err, Err(MissingEnvVar("BINS_TABLE")));
        assert_eq!(
            err.unwrap_err().to_string(),
            "environment variable BINS_TABLE is not set"
        );
    }

    #[test]
    fn key_attributes_cover_the_gsis_once() {
        assert_eq!(
            EVENTS.key_attributes(),
            vec!["id", "unsentShard", "createdAt"]
        );
        assert_eq!(
            PAYMENTS.key_attributes(),
            vec![
                "pk",
                "sk",
                "unsettledShard",
                "reconcileAt",
                "accountDay",
                "createdAt"
            ]
        );
        assert_eq!(
            DELIVERIES.key_attributes(),
            vec![
                "pk",
                "sk",
                "endpointId",
                "createdAt",
                "eventId",
                "dueShard",
                "nextAttemptAt",
                "pendingEndpoint"
            ]
        );
        assert_eq!(
            API_KEYS.key_attributes(),
            vec!["keyHash", "merchantId", "keyId"]
        );
        let ids: Vec<_> = TABLES.iter().map(|t| t.logical_id).collect();
        assert_eq!(ids.len(), 11);
        let vars: std::collections::HashSet<_> = TABLES.iter().map(|t| t.env_var).collect();
        assert_eq!(vars.len(), TABLES.len(), "env vars are distinct");
    }
}
