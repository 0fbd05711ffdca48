//! Seeded webhook endpoints (seed.json `webhookEndpoints`, with fixed local-only secrets):
//! the endpoint item in the endpoints table, its signing secret in Secrets Manager.
//! Endpoints made at run time go through the dashboard's admin API ([`crate::admin`]), whose
//! `paygate_http::admin::new_signing_secret` makes their secrets.

use paygate_aws::secrets::SecretsManagerSigning;
use paygate_domain::secret::SecretDoc;
use paygate_domain::{
    webhook::{WebhookEndpoint, WebhookEndpointId},
    StoreError, Timestamp,
};

use crate::seed::SeedWebhookEndpoint;

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

/// Writes a seeded endpoint's secret, then the endpoint (replacing one with the same
/// merchant and id).
pub async fn put(
    endpoints: &paygate_aws::dynamo::DynamoEndpoints,
    signing: &SecretsManagerSigning,
    seeded: &SeedWebhookEndpoint,
    now: Timestamp,
) -> Result<WebhookEndpoint, StoreError> {
    let secret_id = ensure_secret(signing, &secret_name(&seeded.id), &seeded.secret).await?;
    let endpoint = WebhookEndpoint {
        id: seeded.id.clone(),
        merchant_id: seeded.merchant_id.clone(),
        url: seeded.url.clone(),
        events: seeded.events.clone(),
        mode: seeded.mode,
        enabled: seeded.enabled,
        description: seeded.description.clone(),
        secret_id,
        secret_version: 0,
        created_at: now,
        updated_at: now,
        disabled_reason: None,
    };
    endpoints.put_endpoint(&endpoint, false).await?;
    Ok(endpoint)
}
