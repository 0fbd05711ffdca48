//! Where the names of tables, queues and secret prefixes (and a few settings) come from:
//! the function's environment when deployed, a map with the same keys (the environment
//! variable names of `template.yaml`) in the dev server. Every key a builder reads is
//! recorded, so a test can hold each function's reads against its template variables.

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::Mutex,
};

use paygate_aws::{
    dynamo::schema::{TableDef, TableNames},
    sqs::{QueueDef, QueueUrls, DELIVERIES_QUEUE, EVENTS_QUEUE},
};

use crate::ConfigError;

enum Source {
    Env,
    Map(BTreeMap<String, String>),
}

/// Names by environment variable.
pub struct Names {
    source: Source,
    read: Mutex<BTreeMap<String, Option<String>>>,
}

impl Names {
    /// The process environment (a Lambda's variables from `template.yaml`).
    pub fn from_env() -> Self {
        Self::with(Source::Env)
    }

    /// Any set of variables (the dev server, tests).
    pub fn from_map<K: Into<String>, V: Into<String>>(
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        Self::with(Source::Map(
            vars.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        ))
    }

    /// A local stack's names: its tables and queues under their template variables, plus
    /// `extra` (secret prefixes, stage, settings).
    pub fn local<'a>(
        tables: &TableNames,
        queues: &QueueUrls,
        extra: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Self {
        let mut vars: BTreeMap<String, String> = tables
            .env_pairs()
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
        vars.insert(EVENTS_QUEUE.env_var.into(), queues.events.clone());
        vars.insert(DELIVERIES_QUEUE.env_var.into(), queues.deliveries.clone());
        vars.extend(extra.into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())));
        Self::with(Source::Map(vars))
    }

    fn with(source: Source) -> Self {
        Self {
            source,
            read: Mutex::new(BTreeMap::new()),
        }
    }

    /// A variable, if set and not empty.
    pub fn optional(&self, key: &str) -> Option<String> {
        let v = match &self.source {
            Source::Env => std::env::var(key).ok(),
            Source::Map(m) => m.get(key).cloned(),
        }
        .filter(|v| !v.trim().is_empty());
        if let Ok(mut r) = self.read.lock() {
            r.insert(key.to_owned(), v.clone());
        }
        v
    }

    /// A required variable: set and not empty.
    pub fn required(&self, key: &str) -> Result<String, ConfigError> {
        self.optional(key)
            .ok_or_else(|| ConfigError::Missing(key.to_owned()))
    }

    /// The name of one table.
    pub fn table(&self, def: &TableDef) -> Result<String, ConfigError> {
        self.required(def.env_var)
    }

    /// A queue URL.
    pub fn queue(&self, def: &QueueDef) -> Result<String, ConfigError> {
        self.required(def.env_var)
    }

    /// Every key read so far.
    pub fn keys_read(&self) -> BTreeSet<String> {
        self.handed_out().into_keys().collect()
    }

    /// Every key read so far, with the value it gave (`None`: unset).
    pub fn handed_out(&self) -> BTreeMap<String, Option<String>> {
        self.read.lock().map(|r| r.clone()).unwrap_or_default()
    }
}
