//! Seeded webhook endpoints (seed.json `webhookEndpoints`, with fixed local-only secrets):
//! the endpoint item in the endpoints table, its signing secret in Secrets Manager.
//! Endpoints made at run time go through the dashboard's admin API ([`crate::admin`]), whose
//! `paygate_http::admin::new_signing_secret` makes their secrets.

use paygate_aws::secrets::SecretsManagerSigning;
use paygate_domain::secret::SecretDoc;
use paygate_domain::{
    webhook::{EventFilter, WebhookEndpoint, WebhookEndpointId},
    MerchantId, Mode, StoreError, Timestamp,
};

/// The Secrets Manager name of an endpoint's signing secret in the local stack.
pub fn secret_name(endpoint: &WebhookEndpointId) -> String {
    format!("paygate/local/webhooks/{endpoint}")
}

/// Stores `secret` as the current signing secret under `name`, creating the secret or
/// overwriting an existing one (seeds load into every stack on a shared moto). Returns
/// the id to store on the endpoint.
pub async fn ensure_secret(
    signing: &SecretsManagerSigning,
    name: &str,
    secret: &str,
) -> Result<String, StoreError> {
    let doc = SecretDoc {
        current: secret.to_owned(),
        previous: Vec::new(),
        version: 0,
    };
    match signing.create(name, &doc).await {
        Ok(id) => Ok(id),
        Err(create_err) => match signing.read(name).await {
            Ok(existing) => {
                if existing != doc {
                    signing.put(name, &doc).await?;
                }
                Ok(name.to_owned())
            }
            // Neither created nor there: the create's error is the one that explains it.
            Err(_) => Err(create_err),
        },
    }
}

/// What to register.
#[derive(Debug, Clone)]
pub struct NewEndpoint {
    pub id: WebhookEndpointId,
    pub merchant_id: MerchantId,
    pub url: String,
    pub events: Vec<EventFilter>,
    pub mode: Mode,
    pub enabled: bool,
    pub description: String,
    pub secret: String,
}

/// Writes the secret, then the endpoint (replacing one with the same merchant and id).
pub async fn put(
    endpoints: &paygate_aws::dynamo::DynamoEndpoints,
    signing: &SecretsManagerSigning,
    new: NewEndpoint,
    now: Timestamp,
) -> Result<WebhookEndpoint, StoreError> {
    let secret_id = ensure_secret(signing, &secret_name(&new.id), &new.secret).await?;
    let endpoint = WebhookEndpoint {
        id: new.id,
        merchant_id: new.merchant_id,
        url: new.url,
        events: new.events,
        mode: new.mode,
        enabled: new.enabled,
        description: new.description,
        secret_id,
        secret_version: 0,
        created_at: now,
        updated_at: now,
        disabled_reason: None,
    };
    endpoints.put_endpoint(&endpoint, false).await?;
    Ok(endpoint)
}
