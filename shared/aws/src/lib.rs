//! The AWS adapters of the domain ports, one crate: [`dynamo`] (tables), [`sqs`] (the events
//! and deliveries queues) and [`secrets`] (Secrets Manager: webhook signing secrets and bank
//! credentials, behind one TTL cache). Every client is built here, by [`Clients`], from one
//! SDK configuration: the environment when deployed, a local endpoint (moto) otherwise.
//!
//! Features: `moto` ([`moto`]: starts a local moto server for tests and the dev server),
//! `faults` (`dynamo::faults`: a fault layer under the SDK's HTTP client, for tests),
//! `consumer` (`sqs::consumer`: the Lambda side of a queue).

pub mod cache;
pub mod dynamo;
pub mod secrets;
pub mod sqs;

#[cfg(feature = "moto")]
pub mod moto;

use aws_config::{retry::RetryConfig, BehaviorVersion, Region, SdkConfig};
use aws_credential_types::{provider::SharedCredentialsProvider, Credentials};

/// The SDK's retries for every deployed function and for `make dev` alike: standard mode
/// (throttling, 5xx and transient transport errors, exponential backoff with jitter), three
/// attempts. A retried `TransactWriteItems` carries the same `ClientRequestToken`, so it
/// applies at most once; what is still ambiguous after it is resolved by reading back
/// (`paygate_payments::commit`).
pub fn retry_config() -> RetryConfig {
    RetryConfig::standard().with_max_attempts(3)
}

/// The three clients, built from one SDK configuration.
#[derive(Debug, Clone)]
pub struct Clients {
    pub dynamo: dynamo::Client,
    pub sqs: sqs::Client,
    pub secrets: secrets::Client,
}

impl Clients {
    /// From the environment (region, credentials, and `AWS_ENDPOINT_URL` when set, e.g. to
    /// point a local run at moto), with [`retry_config`].
    pub async fn from_env() -> Self {
        let conf = aws_config::load_defaults(BehaviorVersion::latest()).await;
        Self::from_config(&conf.into_builder().retry_config(retry_config()).build())
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
            sqs: sqs::Client::new(conf),
            secrets: secrets::Client::new(conf),
        }
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
        .retry_config(retry)
        .build()
}
