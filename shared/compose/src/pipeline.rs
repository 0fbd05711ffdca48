//! The webhook pipeline: fan-out, delivery and the sweeper.

use std::sync::Arc;

use paygate_aws::{
    dynamo::schema::{DELIVERIES, EVENTS, WEBHOOK_ENDPOINTS},
    sqs::{DELIVERIES_QUEUE, EVENTS_QUEUE},
};
use paygate_domain::webhook::DisablePolicy;
use paygate_domain::{ports::WebhookSender, webhook::RetrySchedule};
use paygate_webhooks::{DeliverDeps, FanoutDeps, SweepDeps};

use crate::{
    adapters::{deliveries, delivery_queue, endpoints, event_publisher, outbox, signing_secrets},
    settings::retention_days,
    Build, ConfigError, Wiring,
};

/// Environment variable overriding the retry schedule (default: the spec's).
pub const RETRY_SCHEDULE_ENV: &str = "PAYGATE_WEBHOOK_RETRY_SCHEDULE";

/// The retry schedule: `PAYGATE_WEBHOOK_RETRY_SCHEDULE` (e.g. `1s,1s,1s,1s,1s,1s,1s,1s` for
/// a local trial) or the spec's `30s,2m,10m,30m,2h,6h,12h,24h`. A malformed value is an
/// error at start-up, never a silent fallback.
fn retry_schedule(w: &Wiring) -> Result<RetrySchedule, ConfigError> {
    match &w.overrides.retry_schedule {
        Some(s) => Ok(s.clone()),
        None => schedule_from(&w.names),
    }
}

/// The auto-disable policy: 3 days to the warning, 5 to the disable, and at least
/// `PAYGATE_WEBHOOK_DISABLE_MIN_ATTEMPTS` (default 20) failed attempts.
fn disable_policy(names: &crate::Names) -> Result<DisablePolicy, ConfigError> {
    let env = paygate_domain::webhook::health::MIN_ATTEMPTS_ENV;
    let mut p = DisablePolicy::default();
    if let Some(v) = names.optional(env) {
        p.min_attempts = v
            .trim()
            .parse()
            .ok()
            .filter(|n: &u32| *n >= 1)
            .ok_or_else(|| ConfigError::Malformed(env.into()))?;
    }
    Ok(p)
}

/// The retry schedule of this process's environment (the dev server's `make dev`).
pub fn retry_schedule_from_env() -> Result<RetrySchedule, ConfigError> {
    schedule_from(&crate::Names::from_env())
}

fn schedule_from(names: &crate::Names) -> Result<RetrySchedule, ConfigError> {
    match names.optional(RETRY_SCHEDULE_ENV) {
        Some(v) => RetrySchedule::parse(&v)
            .ok_or_else(|| ConfigError::Malformed(RETRY_SCHEDULE_ENV.into())),
        None => Ok(RetrySchedule::default()),
    }
}

/// The SSRF-guarded sender, with the strict egress policy unless
/// `PAYGATE_WEBHOOK_ALLOW_ADDRS` names exceptions (local development only; the template
/// never sets it).
fn sender(w: &Wiring) -> Result<Arc<dyn WebhookSender>, ConfigError> {
    if let Some(s) = &w.overrides.sender {
        return Ok(s.clone());
    }
    let config = paygate_webhooks::SenderConfig::from_vars(|k| w.names.optional(k))
        .map_err(|e| ConfigError::Client(format!("webhook sender: {e}")))?;
    let sender = paygate_webhooks::HttpSender::new(config)
        .map_err(|e| ConfigError::Client(format!("webhook sender: {e}")))?;
    Ok(Arc::new(sender))
}

/// `webhook-fanout`: an event in, one delivery per subscribed endpoint out.
pub struct WebhookFanout {
    pub fanout: FanoutDeps,
}

impl Build for WebhookFanout {
    fn build(w: &Wiring) -> Result<Self, ConfigError> {
        let (db, n) = (&w.aws.dynamo, &w.names);
        Ok(Self {
            fanout: FanoutDeps {
                endpoints: endpoints(db, &n.table(&WEBHOOK_ENDPOINTS)?),
                deliveries: deliveries(db, &n.table(&DELIVERIES)?, retention_days(n)?),
                queue: delivery_queue(&w.aws.sqs, &n.queue(&DELIVERIES_QUEUE)?),
                outbox: outbox(db, &n.table(&EVENTS)?, retention_days(n)?),
                clock: w.clock.clone(),
            },
        })
    }
}

/// `webhook-deliver`: one attempt per delivery message.
pub struct WebhookDeliver {
    pub deliver: DeliverDeps,
}

impl Build for WebhookDeliver {
    fn build(w: &Wiring) -> Result<Self, ConfigError> {
        let (db, n) = (&w.aws.dynamo, &w.names);
        let ttl = match w.overrides.signing_secret_ttl {
            Some(t) => t,
            None => crate::settings::duration(
                n,
                crate::settings::SIGNING_SECRET_CACHE_ENV,
                std::time::Duration::from_secs(1),
                paygate_aws::secrets::DEFAULT_TTL,
            )?,
        };
        Ok(Self {
            deliver: DeliverDeps {
                deliveries: deliveries(db, &n.table(&DELIVERIES)?, retention_days(n)?),
                outbox: outbox(db, &n.table(&EVENTS)?, retention_days(n)?),
                endpoints: endpoints(db, &n.table(&WEBHOOK_ENDPOINTS)?),
                secrets: signing_secrets(&w.aws.secrets, ttl),
                sender: sender(w)?,
                queue: delivery_queue(&w.aws.sqs, &n.queue(&DELIVERIES_QUEUE)?),
                clock: w.clock.clone(),
                schedule: retry_schedule(w)?,
                health: endpoints(db, &n.table(&WEBHOOK_ENDPOINTS)?),
                disable_policy: disable_policy(&w.names)?,
                metrics: crate::settings::metrics(w),
            },
        })
    }
}

/// `outbox-sweeper`: events left unsent and deliveries left unqueued, handed over again.
pub struct OutboxSweeper {
    pub sweep: SweepDeps,
}

impl Build for OutboxSweeper {
    fn build(w: &Wiring) -> Result<Self, ConfigError> {
        let (db, n) = (&w.aws.dynamo, &w.names);
        Ok(Self {
            sweep: SweepDeps {
                outbox: outbox(db, &n.table(&EVENTS)?, retention_days(n)?),
                publisher: event_publisher(&w.aws.sqs, &n.queue(&EVENTS_QUEUE)?),
                deliveries: deliveries(db, &n.table(&DELIVERIES)?, retention_days(n)?),
                queue: delivery_queue(&w.aws.sqs, &n.queue(&DELIVERIES_QUEUE)?),
                clock: w.clock.clone(),
                grace_ms: match w.overrides.sweep_grace_ms {
                    Some(ms) => ms,
                    None => {
                        let default =
                            u64::try_from(paygate_webhooks::sweep::GRACE_MS / 1000).unwrap_or(60);
                        let secs = crate::settings::positive(
                            n,
                            crate::settings::SWEEP_GRACE_ENV,
                            default,
                        )?;
                        i64::try_from(secs.saturating_mul(1000)).map_err(|_| {
                            ConfigError::Malformed(crate::settings::SWEEP_GRACE_ENV.into())
                        })?
                    }
                },
                batch: usize::try_from(crate::settings::positive(
                    n,
                    crate::settings::SWEEP_BATCH_ENV,
                    u64::try_from(paygate_webhooks::sweep::BATCH).unwrap_or(200),
                )?)
                .map_err(|_| ConfigError::Malformed(crate::settings::SWEEP_BATCH_ENV.into()))?,
            },
        })
    }
}
