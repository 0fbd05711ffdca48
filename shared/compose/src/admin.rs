//! The dashboard's admin API: the `admin-endpoints` and `admin-deliveries` functions.

use std::sync::Arc;

use paygate_aws::{
    dynamo::{
        schema::{API_KEYS, AUDIT, DELIVERIES, EVENTS, POS_ACCOUNTS, WEBHOOK_ENDPOINTS},
        DynamoApiKeys, DynamoAudit,
    },
    sqs::DELIVERIES_QUEUE,
};
use paygate_http::admin::{Audit, DeliveriesDeps, EndpointsDeps};
use paygate_webhooks::EgressPolicy;

use crate::{
    adapters::{accounts, deliveries, delivery_queue, endpoints, events, outbox, signing_secrets},
    settings::retention_days,
    Build, ConfigError, Wiring,
};

/// `WEBHOOK_SECRET_PREFIX` (`paygate/<stage>/webhooks/`).
pub const WEBHOOK_SECRET_PREFIX_ENV: &str = paygate_http::admin::SECRET_PREFIX_ENV;

/// The egress policy endpoint URLs are checked with: strict unless
/// `PAYGATE_WEBHOOK_ALLOW_ADDRS` names exceptions (local development only; the template
/// never sets it).
fn egress(w: &Wiring) -> Result<EgressPolicy, ConfigError> {
    if let Some(p) = &w.overrides.egress {
        return Ok(p.clone());
    }
    match w.names.optional(paygate_webhooks::ENV_ALLOW_ADDRS) {
        Some(v) => EgressPolicy::parse_allow_list(&v)
            .map_err(|_| ConfigError::Malformed(paygate_webhooks::ENV_ALLOW_ADDRS.into())),
        None => Ok(EgressPolicy::strict()),
    }
}

/// The audit trail (`AUDIT_TABLE`), which both admin functions append to (every write is
/// recorded) and `admin-endpoints` reads (`GET …/audit`).
fn audit(w: &Wiring) -> Result<Audit, ConfigError> {
    Ok(Audit {
        log: Arc::new(DynamoAudit::new(
            w.aws.dynamo.clone(),
            w.names.table(&AUDIT)?,
        )),
        ids: w.ids.clone(),
    })
}

/// `admin-endpoints`: create, list, read, update, delete endpoints; rotate; test events;
/// API keys (issue, list, roll, revoke: `API_KEYS_TABLE` as well); the audit trail
/// (`AUDIT_TABLE`, both functions).
/// Both admin functions get the five shared names; their IAM policies decide what they may
/// use.
pub struct AdminEndpoints {
    pub admin: EndpointsDeps,
}

impl Build for AdminEndpoints {
    fn build(w: &Wiring) -> Result<Self, ConfigError> {
        let (db, n) = (&w.aws.dynamo, &w.names);
        Ok(Self {
            admin: EndpointsDeps {
                merchants: accounts(db, &n.table(&POS_ACCOUNTS)?),
                endpoints: endpoints(db, &n.table(&WEBHOOK_ENDPOINTS)?),
                deliveries: deliveries(db, &n.table(&DELIVERIES)?, retention_days(n)?),
                outbox: events(db, &n.table(&EVENTS)?, retention_days(n)?),
                queue: delivery_queue(&w.aws.sqs, &n.queue(&DELIVERIES_QUEUE)?),
                // Uncached: the admin API reads a secret only to rotate it.
                secrets: signing_secrets(&w.aws.secrets, std::time::Duration::ZERO),
                clock: w.clock.clone(),
                ids: w.ids.clone(),
                egress: egress(w)?,
                secret_prefix: n.required(WEBHOOK_SECRET_PREFIX_ENV)?,
                health: endpoints(db, &n.table(&WEBHOOK_ENDPOINTS)?),
                keys: Arc::new(DynamoApiKeys::new(db.clone(), n.table(&API_KEYS)?)),
                audit: audit(w)?,
            },
        })
    }
}

/// `admin-deliveries`: delivery history, one delivery, resend, an event's deliveries; an
/// endpoint's recover and health; the daily reconciliation reports; one payment.
pub struct AdminDeliveries {
    pub admin: DeliveriesDeps,
}

impl Build for AdminDeliveries {
    fn build(w: &Wiring) -> Result<Self, ConfigError> {
        let (db, n) = (&w.aws.dynamo, &w.names);
        // Reads only: the daily reconciliation reports and one payment with its transactions
        // (the dashboard's payment page), both items of the payments table.
        let payments = Arc::new(paygate_aws::dynamo::DynamoPayments::new(
            db.clone(),
            n.table(&paygate_aws::dynamo::schema::PAYMENTS)?,
            n.table(&EVENTS)?,
        ));
        Ok(Self {
            admin: DeliveriesDeps {
                merchants: accounts(db, &n.table(&POS_ACCOUNTS)?),
                endpoints: endpoints(db, &n.table(&WEBHOOK_ENDPOINTS)?),
                deliveries: deliveries(db, &n.table(&DELIVERIES)?, retention_days(n)?),
                outbox: outbox(db, &n.table(&EVENTS)?, retention_days(n)?),
                queue: delivery_queue(&w.aws.sqs, &n.queue(&DELIVERIES_QUEUE)?),
                clock: w.clock.clone(),
                health: endpoints(db, &n.table(&WEBHOOK_ENDPOINTS)?),
                audit: audit(w)?,
                reports: payments.clone(),
                payments,
            },
        })
    }
}
