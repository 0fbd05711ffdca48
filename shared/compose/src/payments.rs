//! The payment functions: the authorizer's key lookup, get-payment, the money-moving and
//! query operations, points inquiry, test payments and the reconciler, with the bank
//! providers they reach.

use std::sync::Arc;

use paygate_aws::dynamo::{
    schema::{API_KEYS, PAYMENTS},
    DynamoApiKeys, DynamoPayments,
};
use paygate_domain::ports::{ApiKeyLookup, PaymentReader};

use crate::{Build, ConfigError, Wiring};

#[cfg(feature = "banks")]
mod banks;
#[cfg(feature = "banks")]
pub use banks::{
    bank_work, providers, Banks, MoneyOperation, PointsInquiry, Reconciler, TestCreatePayment,
    BANK_SECRET_PREFIX_ENV, RECONCILE_ALARM_AFTER_ENV,
};

/// The authorizer: API keys.
pub struct Authorizer {
    pub keys: Arc<dyn ApiKeyLookup>,
    /// Expiry of rolled keys, `lastUsedAt`.
    pub clock: Arc<dyn paygate_domain::ports::Clock>,
}

impl Build for Authorizer {
    fn build(w: &Wiring) -> Result<Self, ConfigError> {
        Ok(Self {
            // A found key is reused for 30 s per instance: no key read on a warm request;
            // a revocation takes up to that long (paygate_payments::cache).
            keys: Arc::new(paygate_payments::cache::CachedKeys::new(
                Arc::new(DynamoApiKeys::new(
                    w.aws.dynamo.clone(),
                    w.names.table(&API_KEYS)?,
                )),
                w.clock.clone(),
            )),
            clock: w.clock.clone(),
        })
    }
}

/// `GET /v1/payments/{id}`: reads payments only (and counts the request).
pub struct GetPayment {
    pub payments: Arc<dyn PaymentReader>,
    /// Per-API-key throttling.
    pub throttle: paygate_http::Throttle,
}

impl Build for GetPayment {
    fn build(w: &Wiring) -> Result<Self, ConfigError> {
        // The events table is never written by this function: it gets no name for it,
        // deployed or local.
        Ok(Self {
            payments: Arc::new(DynamoPayments::new(
                w.aws.dynamo.clone(),
                w.names.table(&PAYMENTS)?,
                "",
            )),
            throttle: crate::throttle::throttle(w)?,
        })
    }
}
