//! API keys, by the SHA-256 of the key; a merchant's keys through the `byMerchant` index.
//!
//! One item per key: `keyHash` (the table key), `keyId`, `merchantId`, `mode`, `active`
//! (false once revoked) and the public metadata (`name`, `last4`, `createdAt`, `expiresAt`,
//! `lastUsedAt`, `revokedAt`). The key itself is never stored.

use async_trait::async_trait;
use aws_sdk_dynamodb::{
    types::{AttributeValue, ReturnValue},
    Client,
};
use paygate_domain::{
    apikey::{ApiKey, TOUCH_INTERVAL_MS},
    ids::ApiKeyId,
    ports::{ApiKeyAdmin, ApiKeyLookup},
    ApiKeyRecord, MerchantId, Mode, StoreError, Timestamp,
};

use crate::dynamo::{
    error::unavailable,
    item::{attrs, s, t, Fields, Item},
    read::{get_item, index_query, query_all},
    schema::BY_MERCHANT_INDEX,
    write::{conditional, conditional_or},
};

const KEY_HASH: &str = "keyHash";
const KEY_ID: &str = "keyId";
const MERCHANT_ID: &str = "merchantId";
const ACTIVE: &str = "active";
const EXPIRES_AT: &str = "expiresAt";
const LAST_USED_AT: &str = "lastUsedAt";
const REVOKED_AT: &str = "revokedAt";

fn encode(key_sha256_hex: &str, r: &ApiKeyRecord) -> Item {
    let mut item = Item::from([
        (KEY_HASH.to_owned(), s(key_sha256_hex.to_ascii_lowercase())),
        (KEY_ID.to_owned(), s(r.key_id.as_str())),
        (MERCHANT_ID.to_owned(), s(r.merchant_id.as_str())),
        ("mode".to_owned(), s(r.mode.as_str())),
        (ACTIVE.to_owned(), AttributeValue::Bool(r.active)),
    ]);
    if let Some(e) = r.expires_at {
        item.insert(EXPIRES_AT.to_owned(), t(e));
    }
    if let Some(u) = r.last_used_at {
        item.insert(LAST_USED_AT.to_owned(), t(u));
    }
    item
}

fn encode_key(key_sha256_hex: &str, k: &ApiKey) -> Item {
    let mut item = encode(key_sha256_hex, &k.record());
    item.insert("name".to_owned(), s(&k.name));
    item.insert("last4".to_owned(), s(&k.last4));
    item.insert("createdAt".to_owned(), t(k.created_at));
    if let Some(r) = k.revoked_at {
        item.insert(REVOKED_AT.to_owned(), t(r));
    }
    item
}

fn opt_time(f: &Fields<'_>, name: &str) -> Result<Option<Timestamp>, StoreError> {
    if f.has(name) {
        f.time(name).map(Some)
    } else {
        Ok(None)
    }
}

fn decode(item: &Item) -> Result<ApiKeyRecord, StoreError> {
    let f = Fields::new(item, "api key");
    Ok(ApiKeyRecord {
        key_id: f.id(KEY_ID, ApiKeyId::parse)?,
        merchant_id: f.id(MERCHANT_ID, MerchantId::parse)?,
        mode: f.parsed("mode", Mode::parse)?,
        active: f.bool(ACTIVE)?,
        expires_at: opt_time(&f, EXPIRES_AT)?,
        last_used_at: opt_time(&f, LAST_USED_AT)?,
    })
}

fn decode_key(item: &Item) -> Result<ApiKey, StoreError> {
    let r = decode(item)?;
    let f = Fields::new(item, "api key");
    // Seeded keys (put_key) carry no metadata: no name, no last four, created at the epoch;
    // a key inactive without `revokedAt` counts as revoked at the epoch.
    let revoked_at = match opt_time(&f, REVOKED_AT)? {
        Some(at) => Some(at),
        None if !r.active => Some(Timestamp::from_unix_millis(0)),
        None => None,
    };
    Ok(ApiKey {
        id: r.key_id,
        merchant_id: r.merchant_id,
        mode: r.mode,
        name: f.text("name")?,
        last4: f.text("last4")?,
        created_at: opt_time(&f, "createdAt")?.unwrap_or(Timestamp::from_unix_millis(0)),
        expires_at: r.expires_at,
        last_used_at: r.last_used_at,
        revoked_at,
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

    /// Stores (or replaces) a key with its metadata, unconditionally. For seeding.
    pub async fn seed_key(&self, key_sha256_hex: &str, key: &ApiKey) -> Result<(), StoreError> {
        self.client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(encode_key(key_sha256_hex, key)))
            .send()
            .await
            .map_err(|e| unavailable("PutItem", &e))?;
        Ok(())
    }

    /// The item of a merchant's key, found through `byMerchant` (eventually consistent).
    async fn find_item(
        &self,
        merchant: &MerchantId,
        id: &ApiKeyId,
    ) -> Result<Option<Item>, StoreError> {
        let query = self
            .client
            .query()
            .table_name(&self.table)
            .index_name(BY_MERCHANT_INDEX.name)
            .key_condition_expression("#m = :m AND #k = :k")
            .set_expression_attribute_names(Some(attrs(&[
                ("#m", MERCHANT_ID.to_owned()),
                ("#k", KEY_ID.to_owned()),
            ])))
            .set_expression_attribute_values(Some(attrs(&[
                (":m", s(merchant.as_str())),
                (":k", s(id.as_str())),
            ])));
        let mut items = query_all(query, |i: &Item| Ok(i.clone())).await?;
        Ok(items.pop())
    }

    fn hash_of(item: &Item) -> Result<AttributeValue, StoreError> {
        item.get(KEY_HASH).cloned().ok_or_else(|| {
            StoreError::Corrupt("api key item: attribute `keyHash` is missing".into())
        })
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

    /// One conditional UpdateItem: only when `lastUsedAt` is absent or a minute old, so a
    /// busy key costs one write a minute; a failed condition is not an error.
    async fn touch_key(&self, key_sha256_hex: &str, now: Timestamp) -> Result<(), StoreError> {
        let res = self
            .client
            .update_item()
            .table_name(&self.table)
            .key(KEY_HASH, s(key_sha256_hex.to_ascii_lowercase()))
            .update_expression("SET #u = :now")
            .condition_expression(
                "attribute_exists(#h) AND (attribute_not_exists(#u) OR #u <= :cutoff)",
            )
            .set_expression_attribute_names(Some(attrs(&[
                ("#h", KEY_HASH.to_owned()),
                ("#u", LAST_USED_AT.to_owned()),
            ])))
            .set_expression_attribute_values(Some(attrs(&[
                (":now", t(now)),
                (":cutoff", t(now.plus_millis(-TOUCH_INTERVAL_MS))),
            ])))
            .send()
            .await;
        conditional("UpdateItem", res).map(drop)
    }
}

#[async_trait]
impl ApiKeyAdmin for DynamoApiKeys {
    async fn create_key(&self, key_sha256_hex: &str, key: &ApiKey) -> Result<(), StoreError> {
        let res = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(encode_key(key_sha256_hex, key)))
            .condition_expression("attribute_not_exists(#h)")
            .expression_attribute_names("#h", KEY_HASH)
            .send()
            .await;
        conditional_or("PutItem", res, StoreError::AlreadyExists)
    }

    async fn list_keys(&self, merchant: &MerchantId) -> Result<Vec<ApiKey>, StoreError> {
        let query = index_query(
            &self.client,
            &self.table,
            &BY_MERCHANT_INDEX,
            merchant.as_str(),
        );
        let mut keys = query_all(query, decode_key).await?;
        keys.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        Ok(keys)
    }

    async fn get_key(
        &self,
        merchant: &MerchantId,
        id: &ApiKeyId,
    ) -> Result<Option<ApiKey>, StoreError> {
        self.find_item(merchant, id)
            .await?
            .as_ref()
            .map(decode_key)
            .transpose()
    }

    async fn set_key_expiry(
        &self,
        merchant: &MerchantId,
        id: &ApiKeyId,
        expires_at: Timestamp,
        expected: Option<Timestamp>,
    ) -> Result<(), StoreError> {
        let Some(item) = self.find_item(merchant, id).await? else {
            return Err(StoreError::Conflict { current: None });
        };
        let mut values = attrs(&[
            (":exp", t(expires_at)),
            (":true", AttributeValue::Bool(true)),
            (":m", s(merchant.as_str())),
        ]);
        let expected_cond = match expected {
            Some(e) => {
                values.insert(":expected".to_owned(), t(e));
                "#e = :expected"
            }
            None => "attribute_not_exists(#e)",
        };
        let res = self
            .client
            .update_item()
            .table_name(&self.table)
            .key(KEY_HASH, Self::hash_of(&item)?)
            .update_expression("SET #e = :exp")
            .condition_expression(format!("#a = :true AND #m = :m AND {expected_cond}"))
            .set_expression_attribute_names(Some(attrs(&[
                ("#e", EXPIRES_AT.to_owned()),
                ("#a", ACTIVE.to_owned()),
                ("#m", MERCHANT_ID.to_owned()),
            ])))
            .set_expression_attribute_values(Some(values))
            .send()
            .await;
        conditional_or("UpdateItem", res, StoreError::Conflict { current: None })
    }

    async fn revoke_key(
        &self,
        merchant: &MerchantId,
        id: &ApiKeyId,
        at: Timestamp,
    ) -> Result<Option<ApiKey>, StoreError> {
        let Some(item) = self.find_item(merchant, id).await? else {
            return Ok(None);
        };
        let hash = Self::hash_of(&item)?;
        let res = self
            .client
            .update_item()
            .table_name(&self.table)
            .key(KEY_HASH, hash.clone())
            .update_expression("SET #a = :false, #r = :at")
            .condition_expression("#m = :m AND attribute_not_exists(#r)")
            .set_expression_attribute_names(Some(attrs(&[
                ("#a", ACTIVE.to_owned()),
                ("#r", REVOKED_AT.to_owned()),
                ("#m", MERCHANT_ID.to_owned()),
            ])))
            .set_expression_attribute_values(Some(attrs(&[
                (":false", AttributeValue::Bool(false)),
                (":at", t(at)),
                (":m", s(merchant.as_str())),
            ])))
            .return_values(ReturnValue::AllNew)
            .send()
            .await;
        if let Some(out) = conditional("UpdateItem", res)? {
            if let Some(item) = out.attributes() {
                return decode_key(item).map(Some);
            }
        }
        // Revoked already (the first revocation stands): the key as it is, read strongly.
        let req = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(Item::from([(KEY_HASH.to_owned(), hash)])))
            .consistent_read(true);
        get_item(req, decode_key).await
    }
}
