//! The functions that reach a bank, and the bank protocols, registered once.

use std::{sync::Arc, time::Duration};

use lambda_http::{Body, Request, Response};
use paygate_aws::dynamo::{
    schema::{BINS, EVENTS, IDEMPOTENCY, PAYMENTS, POS_ACCOUNTS, SIMBANK},
    DynamoBins, DynamoIdempotency, DynamoPayments, DynamoSimLedger,
};
use paygate_aws::sqs::EVENTS_QUEUE;
use paygate_bank_simulator::SimBank;
use paygate_domain::{
    ports::{Clock, IdGenerator, PaymentWriter},
    StaleAfter,
};
use paygate_http::{
    handlers::{payment_operation, PaymentOperation},
    throttle::Scope,
    throttled, Idempotency, Throttle,
};
use paygate_payments::{
    BankAccess, EventSink, OperationDeps, PointsDeps, Providers, ReconcilerDeps, ReconcilerLimits,
};

use crate::{
    adapters::{accounts, event_publisher},
    settings,
    throttle::throttle,
    Build, ConfigError, Wiring,
};

/// Environment variable: prefix of the per-account bank credential secrets
/// (`<prefix><accountId>`, e.g. `paygate/dev/banks/acc_…`).
pub const BANK_SECRET_PREFIX_ENV: &str = "BANK_SECRET_PREFIX";

/// Environment variable: minutes a payment may stay unsettled before the reconciler reports
/// it over the limit (the alarm's figure); default 30.
pub const RECONCILE_ALARM_AFTER_ENV: &str = "RECONCILE_ALARM_AFTER_MINUTES";

/// What the real bank protocols need: a bounded HTTP transport and the account credentials.
#[derive(Clone)]
pub struct Banks {
    pub transport: paygate_bankkit::BankTransport,
    pub credentials: Arc<dyn paygate_bankkit::CredentialStore>,
}

impl Banks {
    /// Credentials from Secrets Manager under `BANK_SECRET_PREFIX`, cached for
    /// `PAYGATE_BANK_CREDENTIALS_CACHE_SECS` (five minutes); each call bounded by
    /// `PAYGATE_BANK_TIMEOUT_MS` (8 s).
    pub fn build(w: &Wiring) -> Result<Self, ConfigError> {
        let prefix = w.names.required(BANK_SECRET_PREFIX_ENV)?;
        let timeout = settings::bank_timeout(w, paygate_bankkit::transport::DEFAULT_TIMEOUT)?;
        let cache = settings::duration(
            &w.names,
            settings::BANK_CREDENTIALS_CACHE_ENV,
            std::time::Duration::from_secs(1),
            std::time::Duration::from_secs(300),
        )?;
        Ok(Self {
            transport: paygate_bankkit::BankTransport::new(timeout),
            credentials: Arc::new(paygate_aws::secrets::SecretsManagerCredentials::new(
                w.aws.secrets.clone(),
                prefix,
                cache,
            )),
        })
    }
}

/// Every bank protocol the gateway speaks, registered once: one line per protocol.
pub fn providers(w: &Wiring) -> Result<Providers, ConfigError> {
    let banks = Banks::build(w)?;
    let sim = Arc::new(SimBank::new(
        Arc::new(DynamoSimLedger::new(
            w.aws.dynamo.clone(),
            w.names.table(&SIMBANK)?,
        )),
        w.clock.clone(),
    ));
    let (t, c) = (banks.transport, banks.credentials);
    Ok(Providers::new()
        // Every bank call timed and counted (paygate_payments::providers); named first, so
        // each provider is wrapped once, as it is registered.
        .with_metrics(crate::settings::metrics(w))
        .register(sim)
        .register(Arc::new(paygate_bank_nestpay::NestpayProvider::new(
            paygate_bank_nestpay::Nestpay,
            t.clone(),
            c.clone(),
        )))
        .register(Arc::new(paygate_bank_garanti::GarantiProvider::new(
            paygate_bank_garanti::Garanti::default(),
            t.clone(),
            c.clone(),
        )))
        .register(Arc::new(paygate_bank_posnet::PosnetProvider::new(
            paygate_bank_posnet::Posnet::default(),
            t.clone(),
            c.clone(),
        )))
        .register(Arc::new(paygate_bank_payflex::PayFlexProvider::new(
            paygate_bank_payflex::PayFlex,
            t.clone(),
            c.clone(),
        )))
        .register(Arc::new(paygate_bank_interpos::InterPosProvider::new(
            paygate_bank_interpos::InterPos,
            t.clone(),
            c.clone(),
        )))
        .register(Arc::new(
            paygate_bank_vakifkatilim::VakifKatilimProvider::new(
                paygate_bank_vakifkatilim::VakifKatilim,
                t.clone(),
                c.clone(),
            ),
        ))
        .register(Arc::new(paygate_bank_payfor::PayForProvider::new(
            paygate_bank_payfor::PayFor,
            t.clone(),
            c.clone(),
        )))
        .register(Arc::new(paygate_bank_parampos::ParamPosProvider::new(
            paygate_bank_parampos::ParamPos,
            t.clone(),
            c.clone(),
        )))
        .register(Arc::new(paygate_bank_toslapos::ToslaPosProvider::new(
            paygate_bank_toslapos::ToslaPos::new(w.clock.clone()),
            t.clone(),
            c.clone(),
        )))
        .register(Arc::new(paygate_bank_posnetv1::PosNetV1Provider::new(
            paygate_bank_posnetv1::PosNetV1::new(),
            t.clone(),
            c.clone(),
        )))
        .register(Arc::new(paygate_bank_kuveytpos::KuveytPosProvider::new(
            paygate_bank_kuveytpos::KuveytPos::new(w.clock.clone()),
            t.clone(),
            c.clone(),
        )))
        .register(Arc::new(paygate_bank_akbankpos::AkbankPosProvider::new(
            paygate_bank_akbankpos::AkbankPos::new(w.clock.clone()),
            t,
            c,
        ))))
}

/// The merchants' POS accounts and every registered provider.
fn bank_access(w: &Wiring) -> Result<BankAccess, ConfigError> {
    let timeout = settings::bank_timeout(w, paygate_bankkit::transport::DEFAULT_TIMEOUT)?;
    // A found account is reused for 60 s per instance (paygate_payments::cache).
    let accounts = Arc::new(paygate_payments::cache::CachedAccounts::new(
        accounts(&w.aws.dynamo, &w.names.table(&POS_ACCOUNTS)?),
        w.clock.clone(),
    ));
    Ok(BankAccess::new(accounts, providers(w)?).with_bank_budget(bank_work(timeout)))
}

/// Bank HTTP calls one operation makes at most, each bounded by the bank timeout: e.g. a
/// Posnet or Garanti cancel of a captured pre-authorization reads the order, then sends two
/// reversals; a PayFlex operation looks the order up first. Retrying a second step is
/// bounded by the step retry's budget instead ([`paygate_bankkit::StepRetry`]).
const BANK_CALLS_PER_OPERATION: u32 = 3;

/// The longest an operation's bank calls can take with calls bounded by `timeout`: its
/// calls one after the other, or a step retry's whole budget, whichever is longer.
pub fn bank_work(timeout: Duration) -> Duration {
    timeout
        .saturating_mul(BANK_CALLS_PER_OPERATION)
        .max(paygate_bankkit::StepRetry::default().budget)
}

/// The stale in-flight threshold (`PAYGATE_STALE_IN_FLIGHT_MS`), checked against the bank
/// timeout in force.
fn stale_after(w: &Wiring) -> Result<StaleAfter, ConfigError> {
    let timeout = settings::bank_timeout(w, paygate_bankkit::transport::DEFAULT_TIMEOUT)?;
    settings::stale_after(w, bank_work(timeout))
}

/// Payments (with the outbox), writing `reconcileAt` under `stale`.
fn payments(w: &Wiring, stale: StaleAfter) -> Result<Arc<DynamoPayments>, ConfigError> {
    Ok(Arc::new(payments_store(w, stale)?))
}

fn payments_store(w: &Wiring, stale: StaleAfter) -> Result<DynamoPayments, ConfigError> {
    Ok(DynamoPayments::new(
        w.aws.dynamo.clone(),
        w.names.table(&PAYMENTS)?,
        w.names.table(&EVENTS)?,
    )
    .with_stale_after(stale))
}

fn operation_deps(w: &Wiring, stale: StaleAfter) -> Result<OperationDeps, ConfigError> {
    Ok(OperationDeps {
        payments: payments(w, stale)?,
        banks: bank_access(w)?,
        clock: w.clock.clone(),
        ids: w.ids.clone(),
        events: EventSink {
            publisher: event_publisher(&w.aws.sqs, &w.names.queue(&EVENTS_QUEUE)?),
        },
        stale_after: stale,
        pending_grace: settings::pending_grace(&w.names)?,
    })
}

/// Capture, cancel, refund and query: one operation over the payment and its bank.
pub struct MoneyOperation {
    pub ops: OperationDeps,
    /// `Idempotency-Key` records.
    pub idempotency: Idempotency,
    /// Per-API-key throttling.
    pub throttle: Throttle,
}

impl Build for MoneyOperation {
    fn build(w: &Wiring) -> Result<Self, ConfigError> {
        let stale = stale_after(w)?;
        let mut ops = operation_deps(w, stale)?;
        // A keyed reservation binds its `Idempotency-Key` in the same transaction.
        ops.payments = Arc::new(
            payments_store(w, stale)?.with_idempotency_table(w.names.table(&IDEMPOTENCY)?),
        );
        Ok(Self {
            idempotency: idempotency(w)?,
            ops,
            throttle: throttle(w)?,
        })
    }
}

impl MoneyOperation {
    /// The one handler of the four money functions (`POST /v1/payments/{id}/capture`,
    /// `cancel`, `refund`, `query`): `op` under the request's `Idempotency-Key`
    /// (`paygate_http::idempotency`), within the API key's limits.
    pub async fn handle(&self, op: PaymentOperation, req: &Request) -> Response<Body> {
        let run = payment_operation(&self.ops, &self.idempotency, op, req);
        throttled(&self.throttle, Scope::Api, req, run).await
    }
}

/// `POST /v1/points/inquiry`. No `Idempotency-Key` records: the inquiry is a read, and a
/// record would keep a digest of the card (see `fn_points_inquiry`).
pub struct PointsInquiry {
    pub points: PointsDeps,
    /// Per-API-key and per-merchant throttling (points inquiry's own, stricter limits; fail
    /// closed). The per-card limit is in `points`.
    pub throttle: Throttle,
}

impl Build for PointsInquiry {
    fn build(w: &Wiring) -> Result<Self, ConfigError> {
        let throttle = throttle(w)?;
        Ok(Self {
            points: PointsDeps {
                banks: bank_access(w)?,
                bins: Arc::new(DynamoBins::new(w.aws.dynamo.clone(), w.names.table(&BINS)?)),
                // The card's limit across merchants, over the same counters and gate.
                card_gate: Arc::new(crate::card::card_throttle(w, &throttle)?),
            },
            throttle,
        })
    }
}

/// `POST /v1/test_helpers/payments`.
pub struct TestCreatePayment {
    /// Where the payment is created (never an event: nothing happened to it).
    pub payments: Arc<dyn PaymentWriter>,
    /// The caller's test accounts and their banks, which register the order.
    pub banks: BankAccess,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdGenerator>,
    /// `Idempotency-Key` records.
    pub idempotency: Idempotency,
    /// Per-API-key throttling.
    pub throttle: Throttle,
}

impl Build for TestCreatePayment {
    fn build(w: &Wiring) -> Result<Self, ConfigError> {
        Ok(Self {
            idempotency: idempotency(w)?,
            throttle: throttle(w)?,
            // It writes payments only, never an event (nor an operation in flight; the
            // threshold is set like every payment writer's all the same).
            payments: Arc::new(
                DynamoPayments::new(w.aws.dynamo.clone(), w.names.table(&PAYMENTS)?, "")
                    .with_stale_after(stale_after(w)?),
            ),
            banks: bank_access(w)?,
            clock: w.clock.clone(),
            ids: w.ids.clone(),
        })
    }
}

/// The scheduled reconciler, and the daily reconciliation it runs on its second schedule.
pub struct Reconciler {
    pub reconciler: ReconcilerDeps,
    pub daily: paygate_payments::DailyDeps,
    /// The `Stage` metric dimension (`STAGE`, e.g. `dev`).
    pub stage: String,
}

impl Build for Reconciler {
    fn build(w: &Wiring) -> Result<Self, ConfigError> {
        let stale = stale_after(w)?;
        let ops = operation_deps(w, stale)?;
        let store = payments(w, stale)?;
        let daily = paygate_payments::DailyDeps {
            accounts: accounts(&w.aws.dynamo, &w.names.table(&POS_ACCOUNTS)?),
            ledger: store.clone(),
            reports: store.clone(),
            payments: store.clone(),
            providers: ops.banks.providers.clone(),
            clock: w.clock.clone(),
        };
        Ok(Self {
            reconciler: ReconcilerDeps {
                ops,
                unsettled: store,
                limits: reconciler_limits(w)?,
            },
            daily,
            stage: crate::settings::stage(w),
        })
    }
}

/// The reconciler's limits: the defaults, with the alarm limit from
/// `RECONCILE_ALARM_AFTER_MINUTES`, the batch from `PAYGATE_RECONCILE_BATCH` and the
/// concurrency from `PAYGATE_RECONCILE_CONCURRENCY`. A malformed value is an error at
/// start-up.
fn reconciler_limits(w: &Wiring) -> Result<ReconcilerLimits, ConfigError> {
    let mut limits = ReconcilerLimits::default();
    let count = |key: &str, default: usize| -> Result<usize, ConfigError> {
        let n = settings::positive(&w.names, key, u64::try_from(default).unwrap_or(1))?;
        usize::try_from(n).map_err(|_| ConfigError::Malformed(key.to_owned()))
    };
    limits.batch = count(settings::RECONCILE_BATCH_ENV, limits.batch)?;
    limits.concurrency = count(settings::RECONCILE_CONCURRENCY_ENV, limits.concurrency)?;
    if let Some(v) = w.names.optional(RECONCILE_ALARM_AFTER_ENV) {
        let minutes: i64 = v
            .trim()
            .parse()
            .ok()
            .filter(|m| *m > 0)
            .ok_or_else(|| ConfigError::Malformed(RECONCILE_ALARM_AFTER_ENV.into()))?;
        limits.alarm_after_ms = minutes.saturating_mul(60_000);
    }
    Ok(limits)
}

/// What every merchant POST handler runs in: `Idempotency-Key` records.
fn idempotency(w: &Wiring) -> Result<Idempotency, ConfigError> {
    Ok(Idempotency {
        store: Arc::new(DynamoIdempotency::new(
            w.aws.dynamo.clone(),
            w.names.table(&IDEMPOTENCY)?,
        )),
        clock: w.clock.clone(),
        ids: w.ids.clone(),
    })
}
