//! Merchants' webhook endpoints.

use async_trait::async_trait;
use aws_sdk_dynamodb::{
    types::{AttributeValue, ReturnValue},
    Client,
};
use paygate_domain::{
    ports::{EndpointAdmin, EndpointHealthStore, EndpointReader},
    webhook::{DisabledReason, EndpointHealth, WebhookEndpoint, WebhookEndpointId},
    MerchantId, StoreError, Timestamp,
};

use crate::dynamo::{
    error::unavailable,
    item::{attrs, json_doc, n, s, t, Item},
    read::{get_item, partition_query, query_all},
    webhook_item::{attr, decode_endpoint, decode_health, encode_endpoint},
    write::{conditional, conditional_or},
};

/// The webhook endpoints table, by merchant and endpoint id. Reads are strongly consistent
/// so that the dashboard sees its own writes.
#[derive(Debug, Clone)]
pub struct DynamoEndpoints {
    client: Client,
    table: String,
}

impl DynamoEndpoints {
    /// The adapter over the webhook endpoints table.
    pub fn new(client: Client, webhook_endpoints_table: impl Into<String>) -> Self {
        Self {
            client,
            table: webhook_endpoints_table.into(),
        }
    }

    /// Stores an endpoint. With `expect_absent`, only if no endpoint with its merchant and
    /// id exists (else `StoreError::AlreadyExists`); without, it replaces any such endpoint.
    pub async fn put_endpoint(
        &self,
        endpoint: &WebhookEndpoint,
        expect_absent: bool,
    ) -> Result<(), StoreError> {
        let mut req = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(encode_endpoint(endpoint)));
        if expect_absent {
            req = req
                .condition_expression("attribute_not_exists(#id)")
                .expression_attribute_names("#id", attr::ENDPOINT_ID);
        }
        conditional_or("PutItem", req.send().await, StoreError::AlreadyExists)
    }

    /// Replaces an endpoint's settings with `endpoint`'s if it exists and its stored
    /// `updatedAt` is still `expected_updated_at` (optimistic locking; the caller sets the
    /// new `updated_at`). Otherwise `StoreError::Conflict { current: None }` (changed
    /// meanwhile, or deleted). An UpdateItem of the settings only: the health attributes,
    /// written by the deliver function, stay.
    pub async fn update_endpoint(
        &self,
        endpoint: &WebhookEndpoint,
        expected_updated_at: Timestamp,
    ) -> Result<(), StoreError> {
        let mut names = attrs(&[
            ("#id", attr::ENDPOINT_ID.to_owned()),
            ("#updated", attr::UPDATED_AT.to_owned()),
        ]);
        let mut values = attrs(&[(":expected", t(expected_updated_at))]);
        let mut sets = Vec::new();
        let mut item: Vec<_> = encode_endpoint(endpoint).into_iter().collect();
        item.sort_by(|a, b| a.0.cmp(&b.0));
        for (i, (name, value)) in item.into_iter().enumerate() {
            if name == attr::MERCHANT_ID || name == attr::ENDPOINT_ID {
                continue;
            }
            if name == attr::UPDATED_AT {
                sets.push("#updated = :updated".to_owned());
                values.insert(":updated".to_owned(), value);
                continue;
            }
            names.insert(format!("#a{i}"), name);
            values.insert(format!(":v{i}"), value);
            sets.push(format!("#a{i} = :v{i}"));
        }
        let mut expression = format!("SET {}", sets.join(", "));
        if endpoint.disabled_reason.is_none() {
            names.insert("#reason".to_owned(), attr::DISABLED_REASON.to_owned());
            expression.push_str(" REMOVE #reason");
        }
        let res = self
            .client
            .update_item()
            .table_name(&self.table)
            .key(attr::MERCHANT_ID, s(endpoint.merchant_id.as_str()))
            .key(attr::ENDPOINT_ID, s(endpoint.id.as_str()))
            .update_expression(expression)
            .condition_expression("attribute_exists(#id) AND #updated = :expected")
            .set_expression_attribute_names(Some(names))
            .set_expression_attribute_values(Some(values))
            .send()
            .await;
        conditional_or("UpdateItem", res, StoreError::Conflict { current: None })
    }

    /// Deletes an endpoint; `true` if it existed. Its deliveries stay (history), and its
    /// signing secret is the caller's to delete.
    pub async fn delete_endpoint(
        &self,
        merchant: &MerchantId,
        id: &WebhookEndpointId,
    ) -> Result<bool, StoreError> {
        let out = self
            .client
            .delete_item()
            .table_name(&self.table)
            .key(attr::MERCHANT_ID, s(merchant.as_str()))
            .key(attr::ENDPOINT_ID, s(id.as_str()))
            .return_values(ReturnValue::AllOld)
            .send()
            .await
            .map_err(|e| unavailable("DeleteItem", &e))?;
        Ok(out.attributes().is_some_and(|a| !a.is_empty()))
    }

    /// A merchant's endpoints, each decoded by `decode` (strongly consistent).
    async fn list_with<T>(
        &self,
        merchant: &MerchantId,
        decode: impl Fn(&Item) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        let query = partition_query(
            &self.client,
            &self.table,
            attr::MERCHANT_ID,
            merchant.as_str(),
        )
        .consistent_read(true);
        query_all(query, decode).await
    }

    /// One endpoint, decoded by `decode` (strongly consistent); `None` when there is none.
    async fn get_with<T>(
        &self,
        merchant: &MerchantId,
        id: &WebhookEndpointId,
        decode: impl FnOnce(&Item) -> Result<T, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        let req = self
            .client
            .get_item()
            .table_name(&self.table)
            .key(attr::MERCHANT_ID, s(merchant.as_str()))
            .key(attr::ENDPOINT_ID, s(id.as_str()))
            .consistent_read(true);
        get_item(req, decode).await
    }
}

/// The endpoint and its health counters, from one item.
fn with_health(item: &Item) -> Result<(WebhookEndpoint, EndpointHealth), StoreError> {
    Ok((decode_endpoint(item)?, decode_health(item)?))
}

#[async_trait]
impl EndpointReader for DynamoEndpoints {
    /// All of a merchant's endpoints, ordered by endpoint id.
    async fn list_endpoints(
        &self,
        merchant: &MerchantId,
    ) -> Result<Vec<WebhookEndpoint>, StoreError> {
        let mut out = self.list_with(merchant, decode_endpoint).await?;
        out.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(out)
    }

    async fn get_endpoint(
        &self,
        merchant: &MerchantId,
        id: &WebhookEndpointId,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        self.get_with(merchant, id, decode_endpoint).await
    }
}

/// Health counters on the endpoint item (`health`, `healthVersion`): read with the endpoint
/// (strongly consistent), written by version.
#[async_trait]
impl EndpointHealthStore for DynamoEndpoints {
    async fn get_health(
        &self,
        merchant: &MerchantId,
        id: &WebhookEndpointId,
    ) -> Result<Option<(WebhookEndpoint, EndpointHealth)>, StoreError> {
        self.get_with(merchant, id, with_health).await
    }

    async fn list_health(
        &self,
        merchant: &MerchantId,
    ) -> Result<Vec<(WebhookEndpoint, EndpointHealth)>, StoreError> {
        let mut out = self.list_with(merchant, with_health).await?;
        out.sort_by(|a, b| a.0.id.cmp(&b.0.id));
        Ok(out)
    }

    /// One conditional UpdateItem: the health document and its version, on condition of the
    /// version read (absent for version 0); with `disable_at`, also `enabled` false, reason
    /// `failing` and `updatedAt`, on condition that the endpoint is enabled.
    async fn put_health(
        &self,
        merchant: &MerchantId,
        id: &WebhookEndpointId,
        health: &EndpointHealth,
        disable_at: Option<Timestamp>,
    ) -> Result<bool, StoreError> {
        let Some(expected) = health.version.checked_sub(1) else {
            return Err(StoreError::Corrupt(
                "health version 0 is never written".into(),
            ));
        };
        let mut names = attrs(&[
            ("#id", attr::ENDPOINT_ID.to_owned()),
            ("#h", attr::HEALTH.to_owned()),
            ("#hv", attr::HEALTH_VERSION.to_owned()),
        ]);
        let mut values = attrs(&[
            (":h", s(json_doc(health, "endpoint health")?)),
            (":hv", n(health.version)),
        ]);
        let mut set = "SET #h = :h, #hv = :hv".to_owned();
        let mut cond = if expected == 0 {
            "attribute_exists(#id) AND attribute_not_exists(#hv)".to_owned()
        } else {
            values.insert(":expected".to_owned(), n(expected));
            "attribute_exists(#id) AND #hv = :expected".to_owned()
        };
        if let Some(at) = disable_at {
            names.insert("#en".to_owned(), attr::ENABLED.to_owned());
            names.insert("#reason".to_owned(), attr::DISABLED_REASON.to_owned());
            names.insert("#updated".to_owned(), attr::UPDATED_AT.to_owned());
            values.insert(":false".to_owned(), AttributeValue::Bool(false));
            values.insert(":true".to_owned(), AttributeValue::Bool(true));
            values.insert(":failing".to_owned(), s(DisabledReason::Failing.as_str()));
            values.insert(":at".to_owned(), t(at));
            set.push_str(", #en = :false, #reason = :failing, #updated = :at");
            cond.push_str(" AND #en = :true");
        }
        let res = self
            .client
            .update_item()
            .table_name(&self.table)
            .key(attr::MERCHANT_ID, s(merchant.as_str()))
            .key(attr::ENDPOINT_ID, s(id.as_str()))
            .update_expression(set)
            .condition_expression(cond)
            .set_expression_attribute_names(Some(names))
            .set_expression_attribute_values(Some(values))
            .send()
            .await;
        Ok(conditional("UpdateItem", res)?.is_some())
    }
}

/// The dashboard's port over the inherent writes.
#[async_trait]
impl EndpointAdmin for DynamoEndpoints {
    async fn create_endpoint(&self, endpoint: &WebhookEndpoint) -> Result<(), StoreError> {
        self.put_endpoint(endpoint, true).await
    }

    async fn update_endpoint(
        &self,
        endpoint: &WebhookEndpoint,
        expected_updated_at: Timestamp,
    ) -> Result<(), StoreError> {
        DynamoEndpoints::update_endpoint(self, endpoint, expected_updated_at).await
    }

    async fn delete_endpoint(
        &self,
        merchant: &MerchantId,
        id: &WebhookEndpointId,
    ) -> Result<bool, StoreError> {
        DynamoEndpoints::delete_endpoint(self, merchant, id).await
    }
}
