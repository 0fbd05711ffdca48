//! `Idempotency-Key` records for the merchant POST functions: the one place the wrapper's
//! store, clock and ids are put together (Lambdas and the dev server alike).

use std::sync::Arc;

use paygate_aws::dynamo::{schema::IDEMPOTENCY, Client, DynamoIdempotency};
use paygate_domain::ports::{Clock, IdGenerator};
use paygate_http::Idempotency;

use crate::{table, ConfigError};

/// The idempotency table's name (`IDEMPOTENCY_TABLE`).
pub fn idempotency_table_from_env() -> Result<String, ConfigError> {
    table(&IDEMPOTENCY)
}

/// What every merchant POST handler runs in: records in `idempotency_table`.
pub fn idempotency(
    client: &Client,
    idempotency_table: &str,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
) -> Idempotency {
    Idempotency {
        store: Arc::new(DynamoIdempotency::new(client.clone(), idempotency_table)),
        clock,
        ids,
    }
}
