//! The scheduled reconciler over in-memory stores and the simulator bank: it settles what
//! the merchant never queried, with the usual events, backs off on what the bank cannot
//! tell yet, and reports what stays unsettled past the alarm limit.

use paygate_domain::{payment::reconcile_backoff_ms, StaleAfter, NOT_FOUND_GRACE_MS};

use super::*;
use crate::reconciler::{run_reconciler, ReconcilerDeps, ReconcilerLimits};

fn reconciler(
    w: World,
) -> (
    ReconcilerDeps,
    Arc<MemoryPayments>,
    Arc<ManualClock>,
    Arc<MemoryPublisher>,
) {
    let (store, clock, publisher) = (w.store.clone(), w.clock.clone(), w.publisher.clone());
    let deps = ReconcilerDeps {
        ops: w.deps,
        unsettled: store.clone(),
        limits: ReconcilerLimits {
            batch: 50,
            concurrency: 4,
            alarm_after_ms: 30 * 60 * 1000,
        },
    };
    (deps, store, clock, publisher)
}

#[tokio::test]
async fn an_unanswered_refund_is_settled_without_a_merchant_call() {
    let w = world();
    let id = w
        .payment(
            "pay_1",
            "acc_all",
            PaymentStatus::Captured,
            20_000,
            InitialBankState::Approved,
        )
        .await;
    // The bank applies the refund and its answer is lost.
    assert!(matches!(
        w.op(&id, TransactionType::Refund, Some(9900)).await,
        Err(OpError::Provider { .. })
    ));
    let (deps, store, _clock, publisher) = reconciler(w);
    let report = run_reconciler(&deps).await.unwrap();
    assert_eq!((report.due, report.settled), (1, 1), "{report:?}");
    let p = store.payment(&id).unwrap();
    assert_eq!(p.pending, None);
    assert_eq!(p.refunded_amount, 9900);
    assert_eq!(p.status, PaymentStatus::PartiallyRefunded);
    assert_eq!(
        store.events().last().unwrap().event_type,
        EventType::PaymentRefunded
    );
    assert_eq!(publisher.ids().len(), 1, "the event goes out");
    // Nothing left to do.
    assert_eq!(run_reconciler(&deps).await.unwrap().due, 0);
}

/// The store's work list, with extra entries as DynamoDB's index could show them.
struct Index {
    store: Arc<MemoryPayments>,
    garbled: Vec<paygate_domain::ports::Undecodable>,
    /// Listed although the store no longer has them (the index had not caught up).
    ghosts: Vec<paygate_domain::ports::DuePayment>,
}

#[async_trait::async_trait]
impl paygate_domain::ports::UnsettledPayments for Index {
    async fn list_due(
        &self,
        now: paygate_domain::Timestamp,
        limit: usize,
    ) -> Result<paygate_domain::ports::Listing<paygate_domain::ports::DuePayment>, StoreError> {
        let mut listed = self.store.list_due(now, limit).await?;
        listed.undecodable.extend(self.garbled.iter().cloned());
        listed.items.extend(self.ghosts.iter().cloned());
        Ok(listed)
    }

    async fn defer(
        &self,
        payment: &paygate_domain::Payment,
        tries: u32,
        next_at: paygate_domain::Timestamp,
    ) -> Result<bool, StoreError> {
        self.store.defer(payment, tries, next_at).await
    }
}

#[tokio::test]
async fn an_undecodable_work_list_item_is_skipped_and_counted_and_the_rest_settled() {
    let w = world();
    let id = w
        .payment(
            "pay_1",
            "acc_all",
            PaymentStatus::Captured,
            20_000,
            InitialBankState::Approved,
        )
        .await;
    // The bank applies the refund and its answer is lost.
    assert!(w
        .op(&id, TransactionType::Refund, Some(9900))
        .await
        .is_err());
    let (mut deps, store, _clock, _) = reconciler(w);
    deps.unsettled = Arc::new(Index {
        store: store.clone(),
        garbled: vec![paygate_domain::ports::Undecodable {
            key: "pay_garbled".into(),
            reason: "payment item: attribute `amount` is missing".into(),
        }],
        ghosts: vec![],
    });
    let report = run_reconciler(&deps).await.unwrap();
    assert_eq!(
        (
            report.due,
            report.settled,
            report.errors,
            report.undecodable
        ),
        (1, 1, 0, 1),
        "{report:?}"
    );
    assert_eq!(
        store.payment(&id).unwrap().status,
        PaymentStatus::PartiallyRefunded
    );
}

#[tokio::test]
async fn a_listed_payment_that_no_longer_exists_is_gone_not_an_error_and_nothing_is_written() {
    let w = world();
    let ghost = w
        .payment(
            "pay_gone",
            "acc_all",
            PaymentStatus::Pending,
            12_000,
            InitialBankState::None,
        )
        .await;
    let listed = w.store.payment(&ghost).unwrap();
    let (mut deps, _, _, _) = reconciler(w);
    // The payment was deleted after the index was read.
    let store = Arc::new(MemoryPayments::default());
    deps.ops.payments = store.clone();
    deps.unsettled = Arc::new(Index {
        store: store.clone(),
        garbled: vec![],
        ghosts: vec![paygate_domain::ports::DuePayment {
            payment: listed,
            tries: 3,
        }],
    });
    let report = run_reconciler(&deps).await.unwrap();
    assert_eq!(
        (report.due, report.gone, report.errors, report.deferred),
        (1, 1, 0, 0),
        "{report:?}"
    );
    assert_eq!(store.save_count(), 0);
    assert_eq!(store.payment(&ghost), None, "never recreated");
}

#[tokio::test]
async fn a_reservation_whose_lambda_died_is_settled_once_stale() {
    let w = world();
    // Reserved, the bank captured, then the Lambda died: every write of the answer fails.
    let id = died_capture(&w).await;
    let (deps, store, clock, _) = reconciler(w);
    assert_eq!(
        run_reconciler(&deps).await.unwrap().due,
        0,
        "in flight, not stale yet"
    );
    clock.advance_millis(paygate_domain::StaleAfter::DEFAULT.millis() + 1);
    let report = run_reconciler(&deps).await.unwrap();
    assert_eq!(report.settled, 1, "{report:?}");
    let p = store.payment(&id).unwrap();
    assert_eq!(p.status, PaymentStatus::Captured);
    assert_eq!(p.captured_amount, 20_000);
    assert_eq!(
        store.events().last().unwrap().event_type,
        EventType::PaymentCaptured
    );
}

/// A capture reserved at T0 whose Lambda died after the bank captured: every write of the
/// answer fails, the reservation stays in flight.
async fn died_capture(w: &World) -> PaymentId {
    let id = w
        .payment(
            "pay_1",
            "acc_all",
            PaymentStatus::Authorized,
            20_000,
            InitialBankState::Preauth,
        )
        .await;
    w.store.script_saves(
        std::iter::once(None).chain(std::iter::repeat_n(Some(SaveFault::ServerError), 8)),
    );
    tokio::time::pause();
    assert!(w.op(&id, TransactionType::Capture, None).await.is_err());
    tokio::time::resume();
    assert!(w.store.payment(&id).unwrap().pending.is_some());
    id
}

#[tokio::test]
async fn a_died_reservation_is_reclaimed_only_after_the_configured_threshold() {
    let stale = StaleAfter::from_millis(90_000).unwrap();
    let w = world_stale(stale, stale);
    let id = died_capture(&w).await;
    let (deps, store, clock, _) = reconciler(w);
    // Past the default's 60 s, and at 90 s exactly: not stale yet, nobody looks.
    for at in [StaleAfter::DEFAULT.millis() + 1, 90_000] {
        clock.set(T0.plus_millis(at));
        let report = run_reconciler(&deps).await.unwrap();
        assert_eq!(report.due, 0, "at {at} ms: {report:?}");
        assert!(store.payment(&id).unwrap().pending.is_some());
    }
    clock.set(T0.plus_millis(90_001));
    let report = run_reconciler(&deps).await.unwrap();
    assert_eq!((report.due, report.settled), (1, 1), "{report:?}");
    let p = store.payment(&id).unwrap();
    assert_eq!((p.status, p.pending), (PaymentStatus::Captured, None));
}

#[tokio::test]
async fn raised_threshold_a_payment_due_under_the_old_one_is_deferred_to_the_new_one() {
    // Its `reconcileAt` was written under 60 s; the functions now run with 90 s.
    let w = world_stale(
        StaleAfter::DEFAULT,
        StaleAfter::from_millis(90_000).unwrap(),
    );
    let id = died_capture(&w).await;
    let (deps, store, clock, _) = reconciler(w);
    clock.set(T0.plus_millis(61_000));
    let report = run_reconciler(&deps).await.unwrap();
    assert_eq!(
        (report.due, report.settled, report.deferred),
        (1, 0, 1),
        "listed, not reclaimed while it may still run: {report:?}"
    );
    assert!(store.payment(&id).unwrap().pending.is_some());
    clock.set(T0.plus_millis(90_000));
    assert_eq!(run_reconciler(&deps).await.unwrap().due, 0, "deferred");
    clock.set(T0.plus_millis(90_001));
    let report = run_reconciler(&deps).await.unwrap();
    assert_eq!((report.due, report.settled), (1, 1), "{report:?}");
    assert_eq!(store.payment(&id).unwrap().status, PaymentStatus::Captured);
}

#[tokio::test]
async fn lowered_threshold_query_settles_at_the_new_one_the_reconciler_at_the_old_one() {
    // Its `reconcileAt` was written under 90 s; the functions now run with 40 s.
    let w = world_stale(
        StaleAfter::from_millis(90_000).unwrap(),
        StaleAfter::from_millis(40_000).unwrap(),
    );
    let id = died_capture(&w).await;
    w.clock.set(T0.plus_millis(40_001));
    // The merchant's query (and any operation's refusal) goes by the threshold in force.
    assert!(matches!(
        w.op(&id, TransactionType::Cancel, None).await,
        Err(OpError::Domain(DomainError::OperationOutcomeUnknown { .. }))
    ));
    let principal = w.principal.clone();
    let q = crate::query::query_payment(&w.deps, &principal, &id)
        .await
        .unwrap();
    assert_eq!(q.payment.status, PaymentStatus::Captured);
    // Without that query, the reconciler finds it by its stored `reconcileAt`.
    let w = world_stale(
        StaleAfter::from_millis(90_000).unwrap(),
        StaleAfter::from_millis(40_000).unwrap(),
    );
    let id = died_capture(&w).await;
    let (deps, store, clock, _) = reconciler(w);
    clock.set(T0.plus_millis(40_001));
    assert_eq!(run_reconciler(&deps).await.unwrap().due, 0);
    clock.set(T0.plus_millis(90_001));
    let report = run_reconciler(&deps).await.unwrap();
    assert_eq!((report.due, report.settled), (1, 1), "{report:?}");
    assert_eq!(store.payment(&id).unwrap().status, PaymentStatus::Captured);
}

#[tokio::test]
async fn pending_payments_are_finalized_and_no_record_waits_for_the_grace() {
    let w = world();
    let found = w
        .payment(
            "pay_a",
            "acc_all",
            PaymentStatus::Pending,
            12_000,
            InitialBankState::Approved,
        )
        .await;
    let none = w
        .payment(
            "pay_n",
            "acc_all",
            PaymentStatus::Pending,
            12_000,
            InitialBankState::None,
        )
        .await;
    let (deps, store, clock, _) = reconciler(w);
    let report = run_reconciler(&deps).await.unwrap();
    assert_eq!(
        (report.due, report.settled, report.deferred),
        (2, 1, 1),
        "{report:?}"
    );
    assert_eq!(
        store.payment(&found).unwrap().status,
        PaymentStatus::Captured
    );
    // "No record" inside the grace: still pending, and deferred with backoff.
    assert_eq!(store.payment(&none).unwrap().status, PaymentStatus::Pending);
    clock.advance_millis(reconcile_backoff_ms(1) - 1);
    assert_eq!(run_reconciler(&deps).await.unwrap().due, 0, "backing off");
    clock.advance_millis(1);
    assert_eq!(run_reconciler(&deps).await.unwrap().deferred, 1);
    // Past an operation's three minutes, still inside the pending grace (a 3-D session can
    // last longer): still pending.
    clock.set(T0.plus_millis(NOT_FOUND_GRACE_MS + 1));
    let report = run_reconciler(&deps).await.unwrap();
    assert_eq!((report.due, report.deferred), (1, 1), "{report:?}");
    assert_eq!(store.payment(&none).unwrap().status, PaymentStatus::Pending);
    clock.set(T0.plus_millis(deps.ops.pending_grace.millis()));
    let report = run_reconciler(&deps).await.unwrap();
    assert_eq!(report.settled, 1, "{report:?}");
    assert_eq!(store.payment(&none).unwrap().status, PaymentStatus::Failed);
    assert_eq!(
        store.events().last().unwrap().event_type,
        EventType::PaymentFailed
    );
}

#[tokio::test]
async fn what_the_bank_cannot_tell_backs_off_and_is_reported_past_the_limit() {
    let w = world();
    // An order whose status queries always fail (code 91).
    let id = w
        .payment(
            "pay_q",
            "acc_all",
            PaymentStatus::Pending,
            9100, // the simulator's technical-error amount: its queries fail
            InitialBankState::Approved,
        )
        .await;
    let (deps, store, clock, _) = reconciler(w);
    let mut waits = Vec::new();
    let mut last = T0;
    for _ in 0..12 {
        // Jump to the next due time.
        loop {
            let r = run_reconciler(&deps).await.unwrap();
            if r.due == 1 {
                assert_eq!(r.deferred, 1, "{r:?}");
                break;
            }
            clock.advance_millis(1_000);
        }
        let now = clock.now();
        waits.push(now.unix_millis() - last.unix_millis());
        last = now;
    }
    assert_eq!(store.payment(&id).unwrap().status, PaymentStatus::Pending);
    // Waits grow (10 s, 20 s, 40 s, … capped at 2 min).
    assert!(waits.windows(2).skip(1).all(|w| w[1] >= w[0]), "{waits:?}");
    assert!(waits
        .iter()
        .all(|w| *w <= paygate_domain::payment::RECONCILE_MAX_BACKOFF_MS + 1_000));
    // Past the alarm limit it is reported.
    clock.advance_millis(31 * 60 * 1000);
    let r = run_reconciler(&deps).await.unwrap();
    assert_eq!(r.over_limit, 1, "{r:?}");
    assert_eq!(r.over_limit_ids, vec![id]);
}
