//! What operations report: one `Operation` metric per operation that reached the bank, by
//! kind and outcome, and one `BankCall` per call to the bank, by provider.

use paygate_domain::{
    metrics::{Metric, OperationOutcome},
    testkit::{RecordingMetrics, SaveFault},
};

use super::*;

fn operations(m: &RecordingMetrics) -> Vec<(&'static str, OperationOutcome)> {
    m.all()
        .into_iter()
        .filter_map(|x| match x {
            Metric::Operation { operation, outcome } => Some((operation, outcome)),
            _ => None,
        })
        .collect()
}

fn bank_calls(m: &RecordingMetrics) -> Vec<(&'static str, &'static str, OperationOutcome)> {
    m.all()
        .into_iter()
        .filter_map(|x| match x {
            Metric::BankCall {
                provider,
                operation,
                outcome,
                ..
            } => Some((provider, operation, outcome)),
            _ => None,
        })
        .collect()
}

fn measured(w: &mut World) -> Arc<RecordingMetrics> {
    let m = Arc::new(RecordingMetrics::new());
    w.deps.banks.providers = w.deps.banks.providers.clone().with_metrics(m.clone());
    m
}

#[tokio::test(start_paused = true)]
async fn every_outcome_is_reported_by_kind_and_every_bank_call_by_provider() {
    let mut w = world();
    let m = measured(&mut w);
    let id = w
        .payment(
            "pay_1",
            "acc_all",
            PaymentStatus::Captured,
            20_000,
            InitialBankState::Approved,
        )
        .await;
    // Declined (5100), approved, unknown (9900: the simulator does not answer), then a query.
    assert!(w
        .op(&id, TransactionType::Refund, Some(5100))
        .await
        .is_err());
    w.op(&id, TransactionType::Refund, Some(1000))
        .await
        .unwrap();
    assert!(w
        .op(&id, TransactionType::Refund, Some(9900))
        .await
        .is_err());
    // Refused before the bank (an unknown outcome is pending): not an operation.
    assert!(w.op(&id, TransactionType::Refund, Some(10)).await.is_err());
    query_payment(&w.deps, &w.principal, &id).await.unwrap();
    // The store refuses the commit: the bank's answer is not recorded.
    w.store.script_saves(
        std::iter::once(None).chain(std::iter::repeat_n(Some(SaveFault::Throttled), 8)),
    );
    assert!(matches!(
        w.op(&id, TransactionType::Refund, Some(500)).await,
        Err(OpError::NotRecorded { .. })
    ));
    use OperationOutcome::*;
    assert_eq!(
        operations(&m),
        [
            ("refund", Declined),
            ("refund", Approved),
            ("refund", Unknown),
            ("query", Approved),
            ("refund", NotRecorded),
        ]
    );
    assert_eq!(
        bank_calls(&m),
        [
            (PROVIDER_CODE, "refund", Declined),
            (PROVIDER_CODE, "refund", Approved),
            (PROVIDER_CODE, "refund", Unknown),
            (PROVIDER_CODE, "query", Approved),
            (PROVIDER_CODE, "refund", Approved),
        ]
    );
}

/// The registry's order does not matter: a provider registered after `with_metrics` is
/// measured too (the composition root may name the metrics first).
#[tokio::test(start_paused = true)]
async fn a_provider_registered_after_the_metrics_is_measured() {
    let mut w = world();
    let m = Arc::new(RecordingMetrics::new());
    w.deps.banks = BankAccess::new(
        w.accounts.clone(),
        Providers::new()
            .with_metrics(m.clone())
            .register(w.bank.clone()),
    );
    let id = w
        .payment(
            "pay_1",
            "acc_all",
            PaymentStatus::Captured,
            20_000,
            InitialBankState::Approved,
        )
        .await;
    w.op(&id, TransactionType::Refund, Some(1000))
        .await
        .unwrap();
    assert_eq!(
        bank_calls(&m),
        [(PROVIDER_CODE, "refund", OperationOutcome::Approved)]
    );
}
