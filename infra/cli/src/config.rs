//! Where a command's settings come from: the global flags (and their environment
//! variables), the AWS credential chain, or, with `--local`, the local stack's seed file.

use std::{
    path::{Path, PathBuf},
    time::SystemTime,
};

use crate::sigv4::AdminCredentials;
use serde::Deserialize as _;
use serde_json::Value;
use url::Url;

use crate::{
    client::{self, AdminClient, MerchantClient, Signer},
    CliError, Global,
};

/// `--api-url` when neither the flag, `PAYGATE_API_URL` nor `PAYGATE_PORT` is given: `make
/// dev`'s address.
pub const DEFAULT_API_URL: &str = "http://127.0.0.1:3000";

/// `--api-url` when neither the flag nor `PAYGATE_API_URL` is given: `make dev`'s address on
/// `PAYGATE_PORT` (which picks `make dev`'s port), so `PAYGATE_PORT=8080` set for both
/// reaches the stack.
pub fn default_api_url() -> String {
    api_url_for_port(std::env::var("PAYGATE_PORT").ok().as_deref())
}

/// [`DEFAULT_API_URL`] on `port` when one is given (not empty).
pub fn api_url_for_port(port: Option<&str>) -> String {
    match port.map(str::trim).filter(|p| !p.is_empty()) {
        Some(port) => format!("http://127.0.0.1:{port}"),
        None => DEFAULT_API_URL.to_owned(),
    }
}
/// The signing region when neither `--region`, `AWS_REGION` nor `AWS_DEFAULT_REGION` is set.
pub const DEFAULT_REGION: &str = "us-east-1";
/// The seed file `--local` reads, relative to the repository root.
pub const SEED_PATH: &str = "infra/local/seed.json";

/// Everything a command runs with, resolved once.
pub struct Ctx {
    pub base: Url,
    pub merchant: Option<String>,
    pub api_key: Option<String>,
    /// Present when the command calls the admin API.
    pub signer: Option<Signer>,
    /// Whether `signer` came from the AWS credential chain (and so may expire and be
    /// resolved again: `paygate dashboard` runs for hours).
    pub signer_from_chain: bool,
    /// Every merchant of the seed file with `--local` (seed order), else none.
    pub seed_merchants: Vec<String>,
    /// Print the API's JSON as is.
    pub json: bool,
    pub http: reqwest::Client,
    pub clock: fn() -> SystemTime,
}

impl Ctx {
    /// The signed admin API of `--merchant`.
    pub fn admin(&self) -> Result<AdminClient<'_>, CliError> {
        let signer = self.signer.as_ref().ok_or_else(|| {
            CliError::Credentials("this command needs admin credentials".to_owned())
        })?;
        let merchant = self.merchant.as_deref().ok_or_else(|| {
            CliError::usage(
                "no merchant: pass --merchant mch_… or set PAYGATE_MERCHANT (with --local: the seed's first merchant)",
            )
        })?;
        Ok(AdminClient {
            http: &self.http,
            base: &self.base,
            signer,
            merchant,
            clock: self.clock,
        })
    }

    /// The merchant API with `--api-key`.
    pub fn merchant_api(&self) -> Result<MerchantClient<'_>, CliError> {
        let api_key = self.api_key.as_deref().ok_or_else(|| {
            CliError::usage(
                "no API key: pass --api-key sk_test_… or set PAYGATE_API_KEY (with --local: the seed's test key of the merchant)",
            )
        })?;
        Ok(MerchantClient {
            http: &self.http,
            base: &self.base,
            api_key,
        })
    }
}

/// The signing region: `--region` / `AWS_REGION`, else `AWS_DEFAULT_REGION`, else
/// [`DEFAULT_REGION`].
pub fn resolve_region(flag: Option<&str>, var: impl Fn(&str) -> Option<String>) -> String {
    flag.map(str::to_owned)
        .filter(|r| !r.trim().is_empty())
        .or_else(|| var("AWS_DEFAULT_REGION").filter(|r| !r.trim().is_empty()))
        .unwrap_or_else(|| DEFAULT_REGION.to_owned())
}

/// What `--local` takes from the seed file.
#[derive(Debug, Clone)]
pub struct LocalSeed {
    /// `"admin"`: the credentials the dev server verifies signatures against.
    pub admin: AdminCredentials,
    /// Merchant ids, in seed order.
    pub merchants: Vec<String>,
    /// `(merchant, test key)` pairs.
    pub test_keys: Vec<(String, String)>,
}

impl LocalSeed {
    /// The test-mode key of `merchant`.
    pub fn test_key(&self, merchant: &str) -> Option<&str> {
        self.test_keys
            .iter()
            .find(|(m, _)| m == merchant)
            .map(|(_, k)| k.as_str())
    }
}

/// The seed file: `--seed` / `PAYGATE_SEED`, else `infra/local/seed.json` under the
/// current directory, else the one of the repository this CLI was built from.
pub fn seed_path(flag: Option<&Path>) -> PathBuf {
    if let Some(p) = flag {
        return p.to_path_buf();
    }
    let here = PathBuf::from(SEED_PATH);
    if here.is_file() {
        return here;
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../local/seed.json")
}

/// Reads the admin credentials, merchants and test keys of a seed file.
pub fn read_seed(path: &Path) -> Result<LocalSeed, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::io(format!("--local: reading {}", path.display()), e))?;
    parse_seed(&text).map_err(|m| CliError::usage(format!("--local: {}: {m}", path.display())))
}

/// [`read_seed`] on the file's text.
pub fn parse_seed(text: &str) -> Result<LocalSeed, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let admin = v
        .get("admin")
        .ok_or("no \"admin\" credentials")
        .and_then(|a| {
            AdminCredentials::deserialize(a)
                .map_err(|_| "\"admin\" must be {accessKeyId, secretAccessKey, region}")
        })?;
    let mut merchants = Vec::new();
    let mut test_keys = Vec::new();
    for m in v
        .get("merchants")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(id) = m.get("id").and_then(Value::as_str) else {
            continue;
        };
        merchants.push(id.to_owned());
        let keys = m
            .get("apiKeys")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        for k in keys {
            if k.get("mode").and_then(Value::as_str) == Some("test") {
                if let Some(key) = k.get("key").and_then(Value::as_str) {
                    test_keys.push((id.to_owned(), key.to_owned()));
                }
            }
        }
    }
    Ok(LocalSeed {
        admin,
        merchants,
        test_keys,
    })
}

/// Credentials from the standard AWS chain (environment, profiles, SSO, process, web
/// identity, container and instance roles), resolved once.
pub async fn aws_chain_signer(region: &str) -> Result<Signer, CliError> {
    aws_chain_credentials(region).await.map(|(s, _)| s)
}

/// [`aws_chain_signer`] and when the credentials expire (`None`: long-term keys).
pub async fn aws_chain_credentials(region: &str) -> Result<(Signer, Option<SystemTime>), CliError> {
    use aws_credential_types::provider::ProvideCredentials;
    let conf = aws_config::defaults(aws_config::BehaviorVersion::latest())
        .region(aws_config::Region::new(region.to_owned()))
        .load()
        .await;
    let hint = "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), or use --local for the local stack's admin credentials";
    let provider = conf
        .credentials_provider()
        .ok_or_else(|| CliError::Credentials(format!("no credentials provider; {hint}")))?;
    let creds = provider
        .provide_credentials()
        .await
        .map_err(|e| CliError::Credentials(format!("{}; {hint}", client::error_chain(&e))))?;
    let signer = Signer {
        key: crate::sigv4::AccessKey {
            access_key_id: creds.access_key_id().to_owned(),
            secret_access_key: creds.secret_access_key().to_owned(),
        },
        session_token: creds.session_token().map(str::to_owned),
        region: region.to_owned(),
    };
    Ok((signer, creds.expiry()))
}

/// Builds the context of a command. `admin`: whether it calls the admin API (only then are
/// credentials resolved).
pub async fn context(global: &Global, admin: bool) -> Result<Ctx, CliError> {
    let base = client::parse_base_url(&global.api_url)?;
    let mut merchant = global.merchant.clone();
    let mut api_key = global.api_key.clone();
    let mut signer = None;
    let mut seed_merchants = Vec::new();
    if global.local {
        let seed = read_seed(&seed_path(global.seed.as_deref()))?;
        seed_merchants.clone_from(&seed.merchants);
        if merchant.is_none() {
            merchant = seed.merchants.first().cloned();
        }
        if api_key.is_none() {
            api_key = merchant
                .as_deref()
                .and_then(|m| seed.test_key(m))
                .map(str::to_owned);
        }
        if admin {
            // The dev server verifies against the seed's region, whatever AWS_REGION says.
            signer = Some(Signer {
                key: seed.admin.access_key(),
                session_token: None,
                region: seed.admin.region.clone(),
            });
        }
    } else if admin {
        let region = resolve_region(global.region.as_deref(), |k| std::env::var(k).ok());
        signer = Some(aws_chain_signer(&region).await?);
    }
    Ok(Ctx {
        base,
        merchant,
        api_key,
        signer_from_chain: signer.is_some() && !global.local,
        signer,
        seed_merchants,
        json: global.json,
        http: client::http_client()?,
        clock: client::system_now,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_order() {
        let none = |_: &str| None;
        let default_var = |k: &str| (k == "AWS_DEFAULT_REGION").then(|| "eu-west-1".to_owned());
        assert_eq!(
            resolve_region(Some("eu-central-1"), default_var),
            "eu-central-1"
        );
        assert_eq!(resolve_region(None, default_var), "eu-west-1");
        assert_eq!(resolve_region(Some(" "), none), DEFAULT_REGION);
        assert_eq!(resolve_region(None, none), DEFAULT_REGION);
    }

    #[test]
    fn the_checked_in_seed_gives_admin_credentials_and_test_keys() {
        let seed = read_seed(&seed_path(None)).unwrap();
        assert!(seed.admin.access_key_id.starts_with("AKIA"));
        assert_eq!(
            seed.merchants.first().map(String::as_str),
            Some("mch_anatolia")
        );
        assert!(seed
            .test_key("mch_anatolia")
            .unwrap()
            .starts_with("sk_test_"));
        assert_eq!(seed.test_key("mch_nobody"), None);
    }

    #[test]
    fn seeds_without_admin_are_refused() {
        assert!(parse_seed(r#"{"merchants": []}"#)
            .unwrap_err()
            .contains("admin"));
        assert!(parse_seed(r#"{"admin": {"accessKeyId": "A"}}"#).is_err());
        assert!(parse_seed("nope").is_err());
    }
}
