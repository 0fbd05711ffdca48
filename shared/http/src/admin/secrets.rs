//! Endpoint signing secrets: generated from the OS CSPRNG, stored in Secrets Manager as
//! `<prefix><endpointId>` (`paygate/<stage>/webhooks/whe_…`, the only names the deliver
//! function may read), shown to the merchant once. The vault port is
//! `paygate_domain::secret::SecretVault`; its adapter, `paygate_aws::secrets`.

pub use paygate_domain::secret::SecretVault;
use paygate_domain::{webhook::WebhookEndpointId, StoreError};

/// Environment variable: the name prefix of signing secrets (`paygate/<stage>/webhooks/`;
/// template.yaml's `WebhookSecretPrefix` output).
pub const SECRET_PREFIX_ENV: &str = "WEBHOOK_SECRET_PREFIX";

/// Random bytes in a signing secret.
pub const SECRET_BYTES: usize = 32;

/// A fresh signing secret: `whsec_` and [`SECRET_BYTES`] bytes from the OS CSPRNG in
/// lowercase hex (64 characters).
pub fn new_signing_secret() -> Result<String, StoreError> {
    let mut bytes = [0u8; SECRET_BYTES];
    getrandom::fill(&mut bytes)
        .map_err(|e| StoreError::Unavailable(format!("OS random source: {e}")))?;
    let mut out = String::with_capacity(6 + 2 * SECRET_BYTES);
    out.push_str("whsec_");
    for b in bytes {
        out.push_str(&format!("{b:02x}"));
    }
    Ok(out)
}

/// The Secrets Manager name of an endpoint's signing secrets.
pub fn secret_name(prefix: &str, endpoint: &WebhookEndpointId) -> String {
    format!("{prefix}{endpoint}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_prefixed_32_random_bytes() {
        let a = new_signing_secret().unwrap();
        let b = new_signing_secret().unwrap();
        assert!(a.starts_with("whsec_"));
        assert_eq!(a.len(), 6 + 64);
        assert!(a[6..]
            .bytes()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        assert_ne!(a, b);
    }

    #[test]
    fn names_follow_the_template_prefix() {
        let id = WebhookEndpointId::parse("whe_abc").unwrap();
        assert_eq!(
            secret_name("paygate/prod/webhooks/", &id),
            "paygate/prod/webhooks/whe_abc"
        );
    }
}
