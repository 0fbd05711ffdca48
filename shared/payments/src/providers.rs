//! The provider registry: provider code → adapter. Adding a protocol is one `register` line
//! in the composition root.
//!
//! Every provider handed out is measured: each call to the bank emits
//! [`Metric::BankCall`] (provider, operation, outcome, latency in ms) to the registry's
//! metrics ([`Providers::with_metrics`]; none by default), so every path that reaches a bank
//! (operations, query, the reconciler, points inquiry, test orders aside) is counted in one
//! place without touching the bank crates.

use std::{collections::HashMap, sync::Arc, time::Instant};

use async_trait::async_trait;
use paygate_domain::{
    metrics::{Metric, Metrics, NoMetrics, OperationOutcome},
    ports::{BankOperation, PosProvider, TestOrders},
    BankOutcome, BankState, BankStatus, CardDetails, Currency, Operation, OperationSet,
    PointsResult, PosAccount,
};

#[derive(Clone)]
pub struct Providers {
    /// As registered.
    raw: HashMap<&'static str, Arc<dyn PosProvider>>,
    /// The same, each behind [`Measured`]; what `get` hands out.
    measured: HashMap<&'static str, Arc<dyn PosProvider>>,
    metrics: Arc<dyn Metrics>,
}

impl Default for Providers {
    fn default() -> Self {
        Self {
            raw: HashMap::new(),
            measured: HashMap::new(),
            metrics: Arc::new(NoMetrics),
        }
    }
}

impl Providers {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn register(mut self, provider: Arc<dyn PosProvider>) -> Self {
        let code = provider.code();
        self.measured.insert(code, self.measure(&provider));
        self.raw.insert(code, provider);
        self
    }

    /// Where bank calls and operation outcomes are reported.
    pub fn with_metrics(mut self, metrics: Arc<dyn Metrics>) -> Self {
        self.metrics = metrics;
        self.remeasure();
        self
    }

    /// Every provider again behind the registry's (new) metrics.
    fn remeasure(&mut self) {
        self.measured = self
            .raw
            .iter()
            .map(|(code, p)| (*code, self.measure(p)))
            .collect();
    }

    fn measure(&self, provider: &Arc<dyn PosProvider>) -> Arc<dyn PosProvider> {
        Arc::new(Measured {
            inner: provider.clone(),
            metrics: self.metrics.clone(),
        })
    }

    /// The registry's metrics (operations report their outcome there).
    pub fn metrics(&self) -> &dyn Metrics {
        self.metrics.as_ref()
    }

    pub fn get(&self, code: &str) -> Option<&Arc<dyn PosProvider>> {
        self.measured.get(code)
    }

    /// What `account` can do: what the bank enabled for it and its provider speaks.
    pub fn support(&self, account: &PosAccount) -> OperationSet {
        self.get(&account.provider_code)
            .map(|p| account.effective_support(&p.supported()))
            .unwrap_or_default()
    }

    pub fn supports(&self, account: &PosAccount, op: Operation) -> bool {
        self.support(account).contains(op)
    }
}

/// A provider whose every bank call is timed and reported.
struct Measured {
    inner: Arc<dyn PosProvider>,
    metrics: Arc<dyn Metrics>,
}

impl Measured {
    fn report(&self, operation: &'static str, outcome: OperationOutcome, started: Instant) {
        let millis = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.metrics.emit(Metric::BankCall {
            provider: self.inner.code(),
            operation,
            outcome,
            millis,
        });
    }
}

/// A money operation's answer, as an outcome.
pub(crate) fn outcome_of(o: &BankOutcome) -> OperationOutcome {
    match o {
        BankOutcome::Approved { .. } => OperationOutcome::Approved,
        BankOutcome::Declined { .. } => OperationOutcome::Declined,
        BankOutcome::Error { .. } => OperationOutcome::Error,
        BankOutcome::Unknown { .. } => OperationOutcome::Unknown,
    }
}

/// A status query's answer: a record (or "no record") is an answer; "could not tell" is not.
fn status_outcome(s: &BankStatus) -> OperationOutcome {
    if s.found && s.state == BankState::Unknown {
        OperationOutcome::Unknown
    } else {
        OperationOutcome::Approved
    }
}

#[async_trait]
impl PosProvider for Measured {
    fn code(&self) -> &'static str {
        self.inner.code()
    }

    fn supported(&self) -> OperationSet {
        self.inner.supported()
    }

    async fn capture(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        let started = Instant::now();
        let o = self.inner.capture(account, op).await;
        self.report("capture", outcome_of(&o), started);
        o
    }

    async fn cancel(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        let started = Instant::now();
        let o = self.inner.cancel(account, op).await;
        self.report("cancel", outcome_of(&o), started);
        o
    }

    async fn refund(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        let started = Instant::now();
        let o = self.inner.refund(account, op).await;
        self.report("refund", outcome_of(&o), started);
        o
    }

    async fn query(&self, account: &PosAccount, order_id: &str) -> BankStatus {
        let started = Instant::now();
        let s = self.inner.query(account, order_id).await;
        self.report("query", status_outcome(&s), started);
        s
    }

    async fn points_inquiry(
        &self,
        account: &PosAccount,
        card: &CardDetails,
        currency: Currency,
    ) -> PointsResult {
        let started = Instant::now();
        let r = self.inner.points_inquiry(account, card, currency).await;
        let outcome = match &r {
            PointsResult::Ok { .. } => OperationOutcome::Approved,
            PointsResult::Declined { .. } => OperationOutcome::Declined,
            PointsResult::Error { .. } => OperationOutcome::Error,
        };
        self.report("points_inquiry", outcome, started);
        r
    }

    async fn day_history(
        &self,
        account: &PosAccount,
        day: paygate_domain::daily::BusinessDay,
    ) -> paygate_domain::daily::DayHistory {
        use paygate_domain::daily::DayHistory;
        let started = Instant::now();
        let h = self.inner.day_history(account, day).await;
        let outcome = match &h {
            DayHistory::Lines(_) => Some(OperationOutcome::Approved),
            DayHistory::Unavailable { .. } => Some(OperationOutcome::Error),
            // No call was made.
            DayHistory::Unsupported => None,
        };
        if let Some(outcome) = outcome {
            self.report("day_history", outcome, started);
        }
        h
    }

    fn test_orders(&self) -> Option<&dyn TestOrders> {
        self.inner.test_orders()
    }

    fn decline_code(&self, outcome: &BankOutcome) -> Option<paygate_domain::DeclineCode> {
        self.inner.decline_code(outcome)
    }

    fn decline_codes(&self) -> &'static [(&'static str, paygate_domain::DeclineCode)] {
        self.inner.decline_codes()
    }
}
