//! API keys, by the SHA-256 of the key.

use async_trait::async_trait;
use aws_sdk_dynamodb::{types::AttributeValue, Client};
use paygate_domain::{
    ids::ApiKeyId, ports::ApiKeyLookup, ApiKeyRecord, MerchantId, Mode, StoreError,
};

use crate::dynamo::{
    error::unavailable,
    item::{s, Fields, Item},
    read::get_item,
};

const KEY_HASH: &str = "keyHash";

fn encode(key_sha256_hex: &str, r: &ApiKeyRecord) -> Item {
    Item::from([
        (KEY_HASH.to_owned(), s(key_sha256_hex.to_ascii_lowercase())),
        ("keyId".to_owned(), s(r.key_id.as_str())),
        ("merchantId".to_owned(), s(r.merchant_id.as_str())),
        ("mode".to_owned(), s(r.mode.as_str())),
        ("active".to_owned(), AttributeValue::Bool(r.active)),
    ])
}

fn decode(item: &Item) -> Result<ApiKeyRecord, StoreError> {
    let f = Fields::new(item, "api key");
    Ok(ApiKeyRecord {
        key_id: f.id("keyId", ApiKeyId::parse)?,
        merchant_id: f.id("merchantId", MerchantId::parse)?,
        mode: f.parsed("mode", Mode::parse)?,
        active: f.bool("active")?,
    })
}

/// The API keys table. Keys are looked up by the lowercase hex SHA-256 of the whole key;
/// the key itself is never stored.
#[derive(Debug, Clone)]
pub struct DynamoApiKeys {
    client: Client,
    table: String,
}

impl DynamoApiKeys {
    /// The adapter over the API keys table.
    pub fn new(client: Client, api_keys_table: impl Into<String>) -> Self {
        Self {
            client,
            table: api_keys_table.into(),
        }
    }

    /// Stores (or replaces) the record of a key, by the hex SHA-256 of the key. For seeding.
    pub async fn put_key(
        &self,
        key_sha256_hex: &str,
        record: &ApiKeyRecord,
    ) -> Result<(), StoreError> {
        self.client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(encode(key_sha256_hex, record)))
            .send()
            .await
            .map_err(|e| unavailable("PutItem", &e))?;
        Ok(())
    }
}

#[async_trait]
impl ApiKeyLookup for DynamoApiKeys {
    async fn find_key(&self, key_sha256_hex: &str) -> Result<Option<ApiKeyRecord>, StoreError> {
        let req = self
            .client
            .get_item()
            .table_name(&self.table)
            .key(KEY_HASH, s(key_sha256_hex.to_ascii_lowercase()));
        get_item(req, decode).await
    }
}
