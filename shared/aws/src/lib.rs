//! The AWS adapters of the domain ports, one crate: [`dynamo`] (tables), [`sqs`] (the events
//! and deliveries queues) and [`secrets`] (Secrets Manager: webhook signing secrets and bank
//! credentials, behind one TTL cache). Every client is built here, by [`Clients`], from one
//! SDK configuration: the environment when deployed, a local endpoint (moto) otherwise.
//! [`metrics`]: CloudWatch metrics in the embedded metric format (the `Metrics` port).
//!
//! Features: `moto` ([`moto`]: starts a local moto server for tests and the dev server),
//! `faults` (`dynamo::faults`: a fault layer under the SDK's HTTP client, for tests),
//! `consumer` (`sqs::consumer`: the Lambda side of a queue).

pub mod cache;
pub mod dynamo;
pub mod metrics;
pub mod partitions;
pub mod sdk_http;
pub mod secrets;
pub mod sqs;

#[cfg(feature = "moto")]
pub mod moto;

pub use sdk_http::https_client;

use aws_credential_types::{
    provider::{
        self, error::CredentialsError, future, ProvideCredentials, SharedCredentialsProvider,
    },
    Credentials,
};
use aws_smithy_runtime_api::client::behavior_version::BehaviorVersion;
use aws_smithy_types::{retry::RetryConfig, timeout::TimeoutConfig};
use aws_types::{region::Region, SdkConfig};

/// The SDK's retries for every deployed function and for `make dev` alike: standard mode
/// (throttling, 5xx and transient transport errors, exponential backoff with jitter), three
/// attempts. A retried `TransactWriteItems` carries the same `ClientRequestToken`, so it
/// applies at most once; what is still ambiguous after it is resolved by reading back
/// (`paygate_payments::commit`).
pub fn retry_config() -> RetryConfig {
    RetryConfig::standard().with_max_attempts(3)
}

/// Time limits of every AWS call of a deployed function: one attempt at most
/// [`ATTEMPT_TIMEOUT`], the whole operation (its retries included) at most
/// [`OPERATION_TIMEOUT`]. Without them a call hangs until the function's own timeout, after
/// the bank may have answered; with them, a write after a bank call fails in time to be
/// retried or read back (`paygate_payments::commit`) inside the function's deadline.
pub fn timeout_config() -> TimeoutConfig {
    TimeoutConfig::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .operation_attempt_timeout(ATTEMPT_TIMEOUT)
        .operation_timeout(OPERATION_TIMEOUT)
        .build()
}

/// Connecting to an AWS endpoint.
pub const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);
/// One attempt of an AWS call (DynamoDB answers in milliseconds; a slow attempt is retried).
pub const ATTEMPT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);
/// One AWS call, its retries included.
pub const OPERATION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// The local stand-in (moto, one Python process) is far slower than AWS under a test suite's
/// load: the same kind of limits, loose enough never to fire on a busy CI machine.
fn local_timeout_config() -> TimeoutConfig {
    TimeoutConfig::builder()
        .operation_attempt_timeout(std::time::Duration::from_secs(30))
        .operation_timeout(std::time::Duration::from_secs(90))
        .build()
}

/// The three clients, from one SDK configuration. DynamoDB's is built at once (every
/// function's every event reads a table); SQS's and Secrets Manager's on first use
/// ([`OnFirstUse`]): the authorizer and get-payment never build them, and the other
/// functions' init does not.
#[derive(Debug, Clone)]
pub struct Clients {
    pub dynamo: dynamo::Client,
    pub sqs: sqs::Client,
    pub secrets: secrets::Client,
}

/// An SDK client built when it is first used, once, from the configuration it was given;
/// clones share it (once per container). It dereferences to the client, so adapters call it
/// as they would the client itself. Building a service client resolves its configuration
/// and runtime plugins: work a function whose events never reach that service need not do,
/// and that init need not do for any function (issue 20).
pub struct OnFirstUse<C>(std::sync::Arc<Deferred<C>>);

struct Deferred<C> {
    conf: SdkConfig,
    make: fn(&SdkConfig) -> C,
    client: std::sync::OnceLock<C>,
}

impl<C> OnFirstUse<C> {
    /// `make(conf)` on first use.
    pub fn new(conf: &SdkConfig, make: fn(&SdkConfig) -> C) -> Self {
        Self(std::sync::Arc::new(Deferred {
            conf: conf.clone(),
            make,
            client: std::sync::OnceLock::new(),
        }))
    }

    /// Whether the client has been built (an associated function, so that it never hides a
    /// method of the client).
    pub fn is_built(this: &Self) -> bool {
        this.0.client.get().is_some()
    }
}

impl<C> std::ops::Deref for OnFirstUse<C> {
    type Target = C;

    fn deref(&self) -> &C {
        self.0.client.get_or_init(|| (self.0.make)(&self.0.conf))
    }
}

impl<C> Clone for OnFirstUse<C> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<C> std::fmt::Debug for OnFirstUse<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnFirstUse")
            .field("built", &Self::is_built(self))
            .finish_non_exhaustive()
    }
}

impl Clients {
    /// From Lambda's environment ([`env_config`]), with [`retry_config`],
    /// [`timeout_config`] and [`https_client`].
    pub async fn from_env() -> Self {
        Self::from_config(&env_config(|name| std::env::var(name).ok()))
    }

    /// For a local endpoint (moto, the dev server): static `test`/`test` credentials and the
    /// deployed functions' [`retry_config`].
    pub fn local(endpoint: &str, region: &str) -> Self {
        Self::from_config(&local_config(endpoint, region, retry_config()))
    }

    /// For tests against moto, with retries off, so that moto's HTTP 500 answers to
    /// malformed expressions fail at once instead of being retried.
    pub fn local_without_retries(endpoint: &str, region: &str) -> Self {
        Self::from_config(&local_config(endpoint, region, RetryConfig::disabled()))
    }

    fn from_config(conf: &SdkConfig) -> Self {
        Self {
            dynamo: dynamo::Client::new(conf),
            sqs: OnFirstUse::new(conf, aws_sdk_sqs::Client::new),
            secrets: OnFirstUse::new(conf, aws_sdk_secretsmanager::Client::new),
        }
    }
}

/// A deployed function's SDK configuration, from the variables Lambda sets (`var` reads
/// one): the region from `AWS_REGION` (else `AWS_DEFAULT_REGION`), the credentials from
/// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`
/// ([`EnvironmentCredentials`]), and `AWS_ENDPOINT_URL` when set (a local run against moto).
///
/// Built without `aws-config`'s loader (issue 20): its default chains (profile files, SSO,
/// web identity with an STS client, the ECS container endpoint, IMDS) are of no use in a
/// Lambda function, which gets its role's credentials in those variables (this template
/// uses no SnapStart, whose restored environments need the container credentials
/// endpoint), but were linked into every function and run at its init: without them
/// get-payment and capture-payment are 1.77 MB smaller stripped (x86_64, 0.60 MB zipped) and
/// peak 1.5–1.9 MB less RSS (docs/performance.md). What it also read and this does not: the
/// service-specific `AWS_ENDPOINT_URL_<SERVICE>`, `AWS_MAX_ATTEMPTS`/`AWS_RETRY_MODE` (the
/// retries are [`retry_config`]'s), the FIPS and dual-stack switches and the profile files;
/// the template sets none of them.
fn env_config(var: impl Fn(&str) -> Option<String>) -> SdkConfig {
    let var = |name: &str| var(name).filter(|v| !v.trim().is_empty());
    let mut conf = SdkConfig::builder()
        .behavior_version(BehaviorVersion::latest())
        .credentials_provider(SharedCredentialsProvider::new(EnvironmentCredentials))
        .http_client(https_client())
        .retry_config(retry_config())
        .timeout_config(timeout_config());
    if let Some(region) = var("AWS_REGION").or_else(|| var("AWS_DEFAULT_REGION")) {
        conf = conf.region(Region::new(region));
    }
    if let Some(endpoint) = var("AWS_ENDPOINT_URL") {
        conf = conf.endpoint_url(endpoint);
    }
    conf.build()
}

/// The function role's credentials as Lambda passes them: `AWS_ACCESS_KEY_ID`,
/// `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`, read afresh each time the SDK's identity
/// cache asks (as `aws-config`'s environment provider does: they carry no expiry, so the
/// cache reloads them every 15 minutes). A missing key or secret is a credentials error of
/// the call, never a panic; the `Debug` of [`Credentials`] shows no secret.
#[derive(Debug)]
pub struct EnvironmentCredentials;

impl EnvironmentCredentials {
    fn read(var: impl Fn(&str) -> Option<String>) -> provider::Result {
        let var = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let (Some(key), Some(secret)) = (var("AWS_ACCESS_KEY_ID"), var("AWS_SECRET_ACCESS_KEY"))
        else {
            return Err(CredentialsError::not_loaded(
                "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not both set",
            ));
        };
        Ok(Credentials::new(
            key,
            secret,
            var("AWS_SESSION_TOKEN"),
            None,
            "Environment",
        ))
    }
}

impl ProvideCredentials for EnvironmentCredentials {
    fn provide_credentials<'a>(&'a self) -> future::ProvideCredentials<'a>
    where
        Self: 'a,
    {
        future::ProvideCredentials::ready(Self::read(|name| std::env::var(name).ok()))
    }
}

fn local_config(endpoint: &str, region: &str, retry: RetryConfig) -> SdkConfig {
    SdkConfig::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(endpoint)
        .region(Region::new(region.to_owned()))
        .credentials_provider(SharedCredentialsProvider::new(Credentials::new(
            "test", "test", None, None, "static",
        )))
        .http_client(https_client())
        .retry_config(retry)
        .timeout_config(local_timeout_config())
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every AWS call is bounded, and a write after a bank call (a few attempts of it, see
    /// `paygate_payments::commit`) fits the functions' 29 s with the bank's budget spent.
    #[test]
    fn every_call_is_bounded_in_time() {
        let deployed = timeout_config();
        assert_eq!(deployed.operation_attempt_timeout(), Some(ATTEMPT_TIMEOUT));
        assert_eq!(deployed.operation_timeout(), Some(OPERATION_TIMEOUT));
        assert_eq!(deployed.connect_timeout(), Some(CONNECT_TIMEOUT));
        assert!(ATTEMPT_TIMEOUT < OPERATION_TIMEOUT);
        let local = Clients::local("http://127.0.0.1:9", "eu-central-1");
        let t = local.dynamo.config().timeout_config().cloned().unwrap();
        assert!(t.operation_timeout().is_some() && t.operation_attempt_timeout().is_some());
    }

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    /// A deployed function's configuration comes from Lambda's variables: region,
    /// endpoint when set, and the deployed retries and time limits.
    #[test]
    fn the_deployed_configuration_is_read_from_lambdas_variables() {
        let conf = env_config(vars(&[
            ("AWS_REGION", "eu-central-1"),
            ("AWS_DEFAULT_REGION", "us-east-1"),
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:5000"),
            ("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"),
        ]));
        assert_eq!(conf.region().map(|r| r.as_ref()), Some("eu-central-1"));
        assert_eq!(conf.endpoint_url(), Some("http://127.0.0.1:5000"));
        assert_eq!(conf.retry_config(), Some(&retry_config()));
        assert_eq!(conf.timeout_config(), Some(&timeout_config()));
        assert_eq!(conf.behavior_version(), Some(BehaviorVersion::latest()));
        assert!(conf.http_client().is_some() && conf.credentials_provider().is_some());

        let fallback = env_config(vars(&[
            ("AWS_REGION", " "),
            ("AWS_DEFAULT_REGION", "us-east-1"),
        ]));
        assert_eq!(fallback.region().map(|r| r.as_ref()), Some("us-east-1"));
        assert_eq!(fallback.endpoint_url(), None, "AWS's own endpoints");
        let none = env_config(vars(&[]));
        assert!(none.region().is_none() && none.endpoint_url().is_none());
    }

    /// The role's credentials as Lambda passes them; without a key or a secret, an error
    /// (the call fails), never a panic nor a secret in the message.
    #[test]
    fn credentials_are_lambdas_variables() {
        let creds = EnvironmentCredentials::read(vars(&[
            ("AWS_ACCESS_KEY_ID", "ASIAEXAMPLE"),
            ("AWS_SECRET_ACCESS_KEY", "secretExample0000000001"),
            ("AWS_SESSION_TOKEN", "tokenExample0000000001"),
        ]))
        .unwrap();
        assert_eq!(creds.access_key_id(), "ASIAEXAMPLE");
        assert_eq!(creds.secret_access_key(), "secretExample0000000001");
        assert_eq!(creds.session_token(), Some("tokenExample0000000001"));
        assert_eq!(creds.expiry(), None);
        assert!(!format!("{creds:?}").contains("secretExample"));

        let long_term = EnvironmentCredentials::read(vars(&[
            ("AWS_ACCESS_KEY_ID", "AKIAEXAMPLE"),
            ("AWS_SECRET_ACCESS_KEY", "secretExample0000000001"),
            ("AWS_SESSION_TOKEN", ""),
        ]))
        .unwrap();
        assert_eq!(long_term.session_token(), None);

        for missing in [
            vec![("AWS_ACCESS_KEY_ID", "AKIAEXAMPLE")],
            vec![("AWS_SECRET_ACCESS_KEY", "secretExample0000000001")],
            vec![("AWS_ACCESS_KEY_ID", ""), ("AWS_SECRET_ACCESS_KEY", "x")],
        ] {
            let err = EnvironmentCredentials::read(vars(&missing)).unwrap_err();
            assert!(
                matches!(err, CredentialsError::CredentialsNotLoaded(_)),
                "{err:?}"
            );
            assert!(!format!("{err:?}").contains("secretExample"));
        }
    }

    /// SQS and Secrets Manager clients are built when first used, once, whoever holds a
    /// copy; DynamoDB's at once.
    #[test]
    fn deferred_clients_are_built_on_first_use_once() {
        let clients = Clients::local("http://127.0.0.1:9", "eu-central-1");
        let copy = clients.clone();
        assert!(!OnFirstUse::is_built(&clients.sqs));
        assert!(!OnFirstUse::is_built(&clients.secrets));
        let region = copy.sqs.config().region().cloned();
        assert_eq!(region.as_ref().map(|r| r.as_ref()), Some("eu-central-1"));
        assert!(
            OnFirstUse::is_built(&clients.sqs),
            "a copy's use builds the one client"
        );
        assert!(std::ptr::eq(&*clients.sqs, &*copy.sqs));
        assert!(!OnFirstUse::is_built(&clients.secrets));
    }
}
