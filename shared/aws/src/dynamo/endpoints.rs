//! Merchants' webhook endpoints.

use async_trait::async_trait;
use aws_sdk_dynamodb::{types::ReturnValue, Client};
use paygate_domain::{
    ports::{EndpointAdmin, EndpointReader},
    webhook::{WebhookEndpoint, WebhookEndpointId},
    MerchantId, StoreError, Timestamp,
};

use crate::dynamo::{
    error::unavailable,
    item::{attrs, s, t},
    read::{get_item, query_all},
    webhook_item::{attr, decode_endpoint, encode_endpoint},
    write::conditional_or,
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

    /// Replaces an endpoint with `endpoint` if it exists and its stored `updatedAt` is still
    /// `expected_updated_at` (optimistic locking; the caller sets the new `updated_at`).
    /// Otherwise `StoreError::Conflict { current: None }` (changed meanwhile, or deleted).
    pub async fn update_endpoint(
        &self,
        endpoint: &WebhookEndpoint,
        expected_updated_at: Timestamp,
    ) -> Result<(), StoreError> {
        let res = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(encode_endpoint(endpoint)))
            .condition_expression("attribute_exists(#id) AND #updated = :expected")
            .set_expression_attribute_names(Some(attrs(&[
                ("#id", attr::ENDPOINT_ID.to_owned()),
                ("#updated", attr::UPDATED_AT.to_owned()),
            ])))
            .expression_attribute_values(":expected", t(expected_updated_at))
            .send()
            .await;
        conditional_or("PutItem", res, StoreError::Conflict { current: None })
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
}

#[async_trait]
impl EndpointReader for DynamoEndpoints {
    /// All of a merchant's endpoints, ordered by endpoint id.
    async fn list_endpoints(
        &self,
        merchant: &MerchantId,
    ) -> Result<Vec<WebhookEndpoint>, StoreError> {
        let query = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("#m = :m")
            .expression_attribute_names("#m", attr::MERCHANT_ID)
            .expression_attribute_values(":m", s(merchant.as_str()))
            .consistent_read(true);
        let mut out = query_all(query, decode_endpoint).await?;
        out.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(out)
    }

    async fn get_endpoint(
        &self,
        merchant: &MerchantId,
        id: &WebhookEndpointId,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        let req = self
            .client
            .get_item()
            .table_name(&self.table)
            .key(attr::MERCHANT_ID, s(merchant.as_str()))
            .key(attr::ENDPOINT_ID, s(id.as_str()))
            .consistent_read(true);
        get_item(req, decode_endpoint).await
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
