//! Points inquiry's per-card limit (`paygate_http::throttle::CardThrottle`): the function's
//! counters and gate, and the HMAC key the card is counted under, from Secrets Manager.

use std::sync::Arc;

use paygate_aws::secrets::SecretsManagerCardKey;
use paygate_http::{throttle::CardThrottle, Throttle};

use crate::{ConfigError, Wiring};

/// Environment variable: the Secrets Manager secret (ARN or name) holding the per-card
/// limit's HMAC key (the points function only; the template's `CardKeySecret`).
pub const CARD_KEY_SECRET_ENV: &str = "PAYGATE_CARD_KEY_SECRET";

/// The per-card limit over `throttle`'s counters, gate and limits (pass the function's), the
/// key from the secret `PAYGATE_CARD_KEY_SECRET` names, read on the first inquiry and kept
/// for the instance's life.
pub(crate) fn card_throttle(w: &Wiring, throttle: &Throttle) -> Result<CardThrottle, ConfigError> {
    let secret = w.names.required(CARD_KEY_SECRET_ENV)?;
    Ok(CardThrottle {
        throttle: throttle.clone(),
        key: Arc::new(SecretsManagerCardKey::new(w.aws.secrets.clone(), secret)),
    })
}

/// Creates the local stack's card key secret `name` with 32 random bytes (hex) unless it
/// exists (the dev server and the tests' stacks; deployed, the template generates it).
pub async fn create_local_card_key(
    secrets: &paygate_aws::secrets::Client,
    name: &str,
) -> Result<(), ConfigError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|_| ConfigError::Client("OS random source".into()))?;
    let value: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    SecretsManagerCardKey::new(secrets.clone(), name)
        .create_if_absent(&value)
        .await
        .map_err(|e| ConfigError::Client(format!("card key secret: {e}")))?;
    Ok(())
}
