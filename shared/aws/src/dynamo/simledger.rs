//! The bank simulator's order store.

use async_trait::async_trait;
use aws_sdk_dynamodb::Client;
use paygate_domain::sim_ledger::{SimLedger, SimOrder};
use paygate_domain::{AccountId, StoreError};

use crate::dynamo::{
    item::{attrs, json_doc, n, s, Fields, Item},
    read::get_item,
    write::conditional_or,
};

fn key(account: &AccountId, order_id: &str) -> String {
    format!("{account}#{order_id}")
}

/// Simulator orders: `pk = "<accountId>#<orderId>"`, `version` (N) and the order as JSON
/// in `doc`. Writes are conditional on the version, as [`SimLedger`] requires.
#[derive(Debug, Clone)]
pub struct DynamoSimLedger {
    client: Client,
    table: String,
}

impl DynamoSimLedger {
    /// The adapter over the simulator table.
    pub fn new(client: Client, simbank_table: impl Into<String>) -> Self {
        Self {
            client,
            table: simbank_table.into(),
        }
    }
}

#[async_trait]
impl SimLedger for DynamoSimLedger {
    async fn load(
        &self,
        account: &AccountId,
        order_id: &str,
    ) -> Result<Option<SimOrder>, StoreError> {
        let req = self
            .client
            .get_item()
            .table_name(&self.table)
            .key("pk", s(key(account, order_id)))
            .consistent_read(true);
        get_item(req, |item| {
            let f = Fields::new(item, "simulator order");
            let mut order: SimOrder = f.json("doc")?;
            order.version = f.u64("version")?;
            Ok(order)
        })
        .await
    }

    async fn store(&self, order: &SimOrder) -> Result<(), StoreError> {
        if order.version == 0 {
            // Version 0 means "never stored": there is nothing it could be written over.
            return Err(StoreError::Conflict { current: None });
        }
        let item = Item::from([
            ("pk".to_owned(), s(key(&order.account_id, &order.order_id))),
            ("version".to_owned(), n(order.version)),
            ("doc".to_owned(), s(json_doc(order, "simulator order")?)),
        ]);
        let req = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item));
        let req = if order.version == 1 {
            req.condition_expression("attribute_not_exists(#pk)")
                .set_expression_attribute_names(Some(attrs(&[("#pk", "pk".to_owned())])))
        } else {
            req.condition_expression("#version = :prev")
                .set_expression_attribute_names(Some(attrs(&[("#version", "version".to_owned())])))
                .set_expression_attribute_values(Some(attrs(&[(":prev", n(order.version - 1))])))
        };
        conditional_or(
            "PutItem",
            req.send().await,
            StoreError::Conflict { current: None },
        )
    }
}
