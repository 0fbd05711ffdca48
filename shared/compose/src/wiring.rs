//! What every builder starts from.

use std::{sync::Arc, time::Duration};

use paygate_aws::Clients;
use paygate_domain::ports::{Clock, IdGenerator};

use crate::{
    system::{RandomIds, SystemClock},
    Names,
};

/// Clients, names, clock and ids, and the local knobs.
pub struct Wiring {
    pub aws: Clients,
    pub names: Names,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdGenerator>,
    pub overrides: Overrides,
}

/// The dev server's and tests' knobs; every one is `None` in a deployed function, which
/// uses the template's settings and the defaults.
#[derive(Default, Clone)]
pub struct Overrides {
    /// Bank HTTP deadline (default `paygate_bankkit::transport::DEFAULT_TIMEOUT`).
    pub bank_timeout: Option<Duration>,
    /// The stale in-flight threshold (default: `PAYGATE_STALE_IN_FLIGHT_MS` or
    /// `StaleAfter::DEFAULT`), checked against the bank timeout like the setting.
    pub stale_after: Option<paygate_domain::StaleAfter>,
    /// How long the deliver function reuses a signing secret (default
    /// `paygate_aws::secrets::DEFAULT_TTL`).
    pub signing_secret_ttl: Option<Duration>,
    /// How old an unsent event or overdue delivery must be before the sweeper acts
    /// (default `paygate_webhooks::sweep::GRACE_MS`).
    pub sweep_grace_ms: Option<i64>,
    /// The retry schedule (default: `PAYGATE_WEBHOOK_RETRY_SCHEDULE` or the spec's).
    pub retry_schedule: Option<paygate_domain::webhook::RetrySchedule>,
    /// The throttling limits (default: `PAYGATE_THROTTLE_*`, `PAYGATE_POINTS_THROTTLE_*`
    /// or `paygate_domain::throttle::Limits::default()`).
    pub throttle_limits: Option<paygate_domain::throttle::Limits>,
    /// Where metrics go (default: CloudWatch EMF on stdout).
    pub metrics: Option<Arc<dyn paygate_domain::metrics::Metrics>>,
    /// The webhook sender (default: from `PAYGATE_WEBHOOK_ALLOW_ADDRS`/`_EXTRA_CA`, strict).
    #[cfg(feature = "webhooks")]
    pub sender: Option<Arc<dyn paygate_domain::ports::WebhookSender>>,
    /// The egress policy endpoint URLs are checked with (default: from
    /// `PAYGATE_WEBHOOK_ALLOW_ADDRS`, strict).
    #[cfg(feature = "webhooks")]
    pub egress: Option<paygate_webhooks::EgressPolicy>,
}

impl Wiring {
    /// A deployed function's: clients and names from the environment, the system clock
    /// and random ids, no overrides.
    pub async fn from_env() -> Self {
        Self {
            aws: Clients::from_env().await,
            names: Names::from_env(),
            clock: Arc::new(SystemClock),
            ids: Arc::new(RandomIds),
            overrides: Overrides::default(),
        }
    }
}
