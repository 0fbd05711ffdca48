//! Reads shared by the adapters: one item by key, one partition's query, and queries page
//! by page, to the end, or counted.

use aws_sdk_dynamodb::{
    operation::{get_item::builders::GetItemFluentBuilder, query::builders::QueryFluentBuilder},
    types::Select,
    Client,
};
use paygate_domain::StoreError;

use crate::dynamo::{
    error::unavailable,
    item::{attrs, s, Item, PK, SK},
    schema::GsiDef,
};

/// Sends a `GetItem` and decodes the item it finds; `None` when there is none.
pub(crate) async fn get_item<T>(
    req: GetItemFluentBuilder,
    decode: impl FnOnce(&Item) -> Result<T, StoreError>,
) -> Result<Option<T>, StoreError> {
    let out = req.send().await.map_err(|e| unavailable("GetItem", &e))?;
    out.item().map(decode).transpose()
}

/// One page of a query.
pub(crate) struct QueryPage {
    /// The items, in the query's order.
    pub(crate) items: Vec<Item>,
    /// Where the next page starts; `None` after the last page.
    pub(crate) next: Option<Item>,
}

/// Sends `query` from `start` (`None`: from the beginning), reading at most `limit` items
/// when given.
pub(crate) async fn query_page(
    query: &QueryFluentBuilder,
    start: Option<Item>,
    limit: Option<usize>,
) -> Result<QueryPage, StoreError> {
    let out = query
        .clone()
        .set_limit(limit.map(|l| i32::try_from(l).unwrap_or(i32::MAX)))
        .set_exclusive_start_key(start)
        .send()
        .await
        .map_err(|e| unavailable("Query", &e))?;
    Ok(QueryPage {
        items: out.items.unwrap_or_default(),
        next: out.last_evaluated_key.filter(|k| !k.is_empty()),
    })
}

/// Every item a query finds, page after page, each decoded, in the order DynamoDB returns
/// them.
pub(crate) async fn query_all<T>(
    query: QueryFluentBuilder,
    decode: impl Fn(&Item) -> Result<T, StoreError>,
) -> Result<Vec<T>, StoreError> {
    let mut out = Vec::new();
    let mut start: Option<Item> = None;
    loop {
        let page = query_page(&query, start.take(), None).await?;
        for item in &page.items {
            out.push(decode(item)?);
        }
        match page.next {
            Some(k) => start = Some(k),
            None => break,
        }
    }
    Ok(out)
}

/// A query of one partition: the items of `table` whose partition key `key` is `value`
/// (eventually consistent unless the caller asks otherwise).
pub(crate) fn partition_query(
    client: &Client,
    table: &str,
    key: &str,
    value: &str,
) -> QueryFluentBuilder {
    client
        .query()
        .table_name(table)
        .key_condition_expression("#key = :key")
        .expression_attribute_names("#key", key)
        .expression_attribute_values(":key", s(value))
}

/// A query of one partition of a GSI: the items whose `index.hash_key` is `value`.
pub(crate) fn index_query(
    client: &Client,
    table: &str,
    index: &GsiDef,
    value: &str,
) -> QueryFluentBuilder {
    partition_query(client, table, index.hash_key, value).index_name(index.name)
}

/// How many items `query` matches: a `Select COUNT`, page after page (no item is read).
pub(crate) async fn count_all(query: QueryFluentBuilder) -> Result<u64, StoreError> {
    let query = query.select(Select::Count);
    let mut total: u64 = 0;
    let mut start: Option<Item> = None;
    loop {
        let out = query
            .clone()
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .map_err(|e| unavailable("Query", &e))?;
        total += u64::try_from(out.count()).unwrap_or(0);
        match out.last_evaluated_key.filter(|k| !k.is_empty()) {
            Some(k) => start = Some(k),
            None => return Ok(total),
        }
    }
}

/// A strongly consistent query of one partition's items whose sort key begins with
/// `sk_prefix`, in a table keyed by `pk` and `sk` (a payment's transactions, a delivery's
/// attempts).
pub(crate) fn sort_key_prefix_query(
    client: &Client,
    table: &str,
    pk: &str,
    sk_prefix: &str,
) -> QueryFluentBuilder {
    client
        .query()
        .table_name(table)
        .key_condition_expression("#pk = :pk AND begins_with(#sk, :prefix)")
        .set_expression_attribute_names(Some(attrs(&[
            ("#pk", PK.to_owned()),
            ("#sk", SK.to_owned()),
        ])))
        .set_expression_attribute_values(Some(attrs(&[(":pk", s(pk)), (":prefix", s(sk_prefix))])))
        .consistent_read(true)
}
