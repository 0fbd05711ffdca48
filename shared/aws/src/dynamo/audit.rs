//! The admin audit trail (`AUDIT_TABLE`): append-only.
//!
//! One item per half of a record ([`paygate_domain::audit`]): `merchantId` (partition),
//! `sk` (`<entry key>#1` for the intent, `#2` for the result), `kind` (`intent` or
//! `result`) and `doc` (the half as JSON). Every put is conditional on no item being
//! there (`attribute_not_exists(sk)`), so an item is never replaced; this adapter has no
//! update or delete, and the template grants the admin functions only `PutItem` and
//! `Query` on the table.

use async_trait::async_trait;
use aws_sdk_dynamodb::Client;
use paygate_domain::{
    audit::{
        entry_of_cursor, invalid_cursor, merge, page_of, AuditItem, AuditLog, AuditPart,
        AuditRecord,
    },
    ports::Page,
    MerchantId, StoreError,
};

use crate::dynamo::{
    item::{attrs, json_doc, s, Fields, Item},
    read::query_page,
    write::conditional_or,
};

const MERCHANT_ID: &str = "merchantId";
const SK: &str = "sk";

fn encode(item: &AuditItem) -> Result<Item, StoreError> {
    let (kind, doc) = match &item.part {
        AuditPart::Intent(i) => ("intent", json_doc(i, "audit intent")?),
        AuditPart::Result(r) => ("result", json_doc(r, "audit result")?),
    };
    Ok(attrs(&[
        (MERCHANT_ID, s(item.merchant_id.as_str())),
        (SK, s(item.sort_key())),
        ("kind", s(kind)),
        ("doc", s(doc)),
    ]))
}

fn decode(item: &Item) -> Result<AuditItem, StoreError> {
    let f = Fields::new(item, "audit");
    let sk = f.str(SK)?;
    let entry = sk
        .rsplit_once('#')
        .map(|(entry, _)| entry.to_owned())
        .ok_or_else(|| f.corrupt(SK, "has no half"))?;
    let part = match f.str("kind")? {
        "intent" => AuditPart::Intent(f.json("doc")?),
        "result" => AuditPart::Result(f.json("doc")?),
        _ => return Err(f.corrupt("kind", "is neither intent nor result")),
    };
    Ok(AuditItem {
        merchant_id: f.id(MERCHANT_ID, MerchantId::parse)?,
        entry,
        part,
    })
}

/// The audit table.
#[derive(Debug, Clone)]
pub struct DynamoAudit {
    client: Client,
    table: String,
}

impl DynamoAudit {
    pub fn new(client: Client, audit_table: impl Into<String>) -> Self {
        Self {
            client,
            table: audit_table.into(),
        }
    }
}

#[async_trait]
impl AuditLog for DynamoAudit {
    async fn append(&self, item: &AuditItem) -> Result<(), StoreError> {
        let res = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(encode(item)?))
            .condition_expression("attribute_not_exists(#sk)")
            .expression_attribute_names("#sk", SK)
            .send()
            .await;
        conditional_or("PutItem", res, StoreError::AlreadyExists)
    }

    /// Reads newest first, two items a record, until `limit` records are complete and one
    /// more is seen (so the page knows whether another follows), or the trail ends.
    async fn list(
        &self,
        merchant: &MerchantId,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page<AuditRecord>, StoreError> {
        let before = match cursor {
            Some(c) => Some(entry_of_cursor(c).ok_or_else(invalid_cursor)?),
            None => None,
        };
        let mut query = self
            .client
            .query()
            .table_name(&self.table)
            .scan_index_forward(false)
            .expression_attribute_names("#m", MERCHANT_ID)
            .expression_attribute_values(":m", s(merchant.as_str()));
        query = match &before {
            Some(entry) => query
                .key_condition_expression("#m = :m AND #sk < :before")
                .expression_attribute_names("#sk", SK)
                .expression_attribute_values(":before", s(entry)),
            None => query.key_condition_expression("#m = :m"),
        };
        let mut items: Vec<AuditItem> = Vec::new();
        let mut start = None;
        loop {
            let page = query_page(&query, start, Some(2 * limit + 2)).await?;
            for item in &page.items {
                items.push(decode(item)?);
            }
            // An entry is complete once its intent (`#1`, read after its result) is in.
            let complete = merge(&items).len();
            match page.next {
                Some(next) if complete <= limit => start = Some(next),
                _ => break,
            }
        }
        Ok(page_of(merge(&items), limit))
    }
}
