//! Operation tests over in-memory stores and the simulator bank.

use std::sync::Arc;

use paygate_bank_simulator::{InitialBankState, MemoryLedger, SimBank, PROVIDER_CODE};
use paygate_domain::testkit::{
    ManualClock, MemoryAccounts, MemoryPayments, MemoryPublisher, SaveFault, SeqIds, T0,
};
use paygate_domain::{
    ids::ApiKeyId, ports::PosProvider, AccountId, BankState, Currency, DomainError, EventType,
    MerchantId, Mode, OperationSet, PaymentStatus, PendingState, PosAccount, TransactionStatus,
};

use super::*;
use crate::{providers::Providers, publish::EventSink, query::query_payment};

struct World {
    deps: OperationDeps,
    store: Arc<MemoryPayments>,
    bank: Arc<SimBank>,
    clock: Arc<ManualClock>,
    publisher: Arc<MemoryPublisher>,
    accounts: Arc<MemoryAccounts>,
    principal: Principal,
}

fn account(id: &str, supported: OperationSet) -> PosAccount {
    PosAccount {
        id: AccountId::parse(id).unwrap(),
        merchant_id: MerchantId::parse("mch_a").unwrap(),
        provider_code: PROVIDER_CODE.into(),
        bank_code: "0064".into(),
        bank_name: "Türkiye İş Bankası".into(),
        supported,
        label: String::new(),
        mode: Mode::Test,
    }
}

fn world() -> World {
    world_stale(StaleAfter::DEFAULT, StaleAfter::DEFAULT)
}

/// A world whose stored payments are due for the reconciler under `stored` (as their
/// `reconcileAt` was written) and whose operations judge staleness under `stale`.
fn world_stale(stored: StaleAfter, stale: StaleAfter) -> World {
    let clock = Arc::new(ManualClock::at(T0));
    let store = Arc::new(MemoryPayments::default().with_stale_after(stored));
    let accounts = Arc::new(MemoryAccounts::default());
    accounts.insert(account("acc_all", OperationSet::all()));
    accounts.insert(account(
        "acc_nocancel",
        OperationSet::of(&[Operation::Capture, Operation::Refund, Operation::Query]),
    ));
    let bank = Arc::new(SimBank::new(
        Arc::new(MemoryLedger::default()),
        clock.clone(),
    ));
    let publisher = Arc::new(MemoryPublisher::default());
    let deps = OperationDeps {
        payments: store.clone(),
        banks: BankAccess::new(accounts.clone(), Providers::new().register(bank.clone())),
        clock: clock.clone(),
        ids: Arc::new(SeqIds::default()),
        events: EventSink {
            publisher: publisher.clone(),
        },
        stale_after: stale,
        pending_grace: paygate_domain::PendingGrace::DEFAULT,
    };
    World {
        deps,
        store,
        bank,
        clock,
        publisher,
        accounts,
        principal: Principal {
            merchant_id: MerchantId::parse("mch_a").unwrap(),
            mode: Mode::Test,
            key_id: ApiKeyId::parse("key_a").unwrap(),
        },
    }
}

impl World {
    async fn payment(
        &self,
        id: &str,
        acc: &str,
        status: PaymentStatus,
        amount: i64,
        bank: InitialBankState,
    ) -> PaymentId {
        let pid = PaymentId::parse(id).unwrap();
        let captured = if status == PaymentStatus::Captured {
            amount
        } else {
            0
        };
        self.store.insert(Payment {
            id: pid.clone(),
            merchant_id: self.principal.merchant_id.clone(),
            mode: Mode::Test,
            account_id: AccountId::parse(acc).unwrap(),
            order_id: format!("ORD{id}"),
            currency: Currency::Try,
            amount,
            captured_amount: captured,
            refunded_amount: 0,
            status,
            pending: None,
            auth_code: String::new(),
            rrn: String::new(),
            version: 1,
            created_at: T0,
            updated_at: T0,
        });
        let acct = account(acc, OperationSet::all());
        self.bank
            .register_order(
                &acct,
                &format!("ORD{id}"),
                amount,
                Currency::Try,
                bank,
                false,
            )
            .await
            .unwrap();
        pid
    }

    async fn op(
        &self,
        id: &PaymentId,
        kind: TransactionType,
        amount: Option<i64>,
    ) -> Result<OperationResult, OpError> {
        run_operation(&self.deps, &self.principal, id, kind, amount).await
    }
}

#[tokio::test]
async fn partial_capture_then_refunds_to_zero() {
    let w = world();
    let id = w
        .payment(
            "pay_1",
            "acc_all",
            PaymentStatus::Authorized,
            20_000,
            InitialBankState::Preauth,
        )
        .await;
    let r = w
        .op(&id, TransactionType::Capture, Some(15_000))
        .await
        .unwrap();
    assert_eq!(r.payment.status, PaymentStatus::Captured);
    assert_eq!(r.payment.captured_amount, 15_000);
    assert_eq!(r.transaction.status, TransactionStatus::Approved);
    assert!(r.transaction.rrn.chars().all(|c| c.is_ascii_digit()) && !r.transaction.rrn.is_empty());
    let r = w
        .op(&id, TransactionType::Refund, Some(5_000))
        .await
        .unwrap();
    assert_eq!(r.payment.status, PaymentStatus::PartiallyRefunded);
    let r = w.op(&id, TransactionType::Refund, None).await.unwrap();
    assert_eq!(r.transaction.amount, 10_000);
    assert_eq!(r.payment.status, PaymentStatus::Refunded);
    let types: Vec<_> = w.store.events().iter().map(|e| e.event_type).collect();
    assert_eq!(
        types,
        [
            EventType::PaymentCaptured,
            EventType::PaymentRefunded,
            EventType::PaymentRefunded
        ]
    );
    assert_eq!(w.store.transactions().len(), 3);
}

#[tokio::test]
async fn declined_refund_keeps_status_and_records_the_transaction() {
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
    let Err(OpError::Declined {
        payment,
        transaction,
        after_cutoff,
    }) = w.op(&id, TransactionType::Refund, Some(5100)).await
    else {
        panic!("expected a decline")
    };
    assert!(!after_cutoff);
    assert_eq!(payment.status, PaymentStatus::Captured);
    assert_eq!(payment.pending, None);
    assert_eq!(transaction.status, TransactionStatus::Declined);
    assert_eq!(transaction.bank_code, "51");
    assert!(w.store.events().is_empty());
}

#[tokio::test]
async fn technical_error_releases_the_reservation() {
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
    let Err(OpError::Provider {
        payment,
        transaction,
    }) = w.op(&id, TransactionType::Refund, Some(9100)).await
    else {
        panic!("expected a provider error")
    };
    assert_eq!(transaction.status, TransactionStatus::Failed);
    assert_eq!(payment.pending, None);
    assert!(w.op(&id, TransactionType::Refund, Some(100)).await.is_ok());
}

#[tokio::test]
async fn timeout_is_unknown_until_query_settles_it() {
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
    let Err(OpError::Provider {
        payment,
        transaction,
    }) = w.op(&id, TransactionType::Refund, Some(9900)).await
    else {
        panic!("expected a provider error")
    };
    assert_eq!(transaction.status, TransactionStatus::Unknown);
    assert_eq!(
        payment.pending.as_ref().unwrap().state,
        PendingState::Unknown
    );
    for kind in [TransactionType::Refund, TransactionType::Cancel] {
        assert!(matches!(
            w.op(&id, kind, None).await,
            Err(OpError::Domain(DomainError::OperationOutcomeUnknown { .. }))
        ));
    }
    let q = query_payment(&w.deps, &w.principal, &id).await.unwrap();
    assert_eq!(q.bank.state, BankState::PartiallyRefunded);
    assert_eq!(q.payment.status, PaymentStatus::PartiallyRefunded);
    assert_eq!(q.payment.refunded_amount, 9900);
    assert_eq!(q.payment.pending, None);
    let txn = w
        .store
        .transactions()
        .into_iter()
        .find(|t| t.id == transaction.id)
        .unwrap();
    assert_eq!(txn.status, TransactionStatus::Approved);
    assert_eq!(
        w.store.events().last().unwrap().event_type,
        EventType::PaymentRefunded
    );
}

#[tokio::test]
async fn unsupported_operation_never_reaches_the_bank() {
    let w = world();
    let id = w
        .payment(
            "pay_1",
            "acc_nocancel",
            PaymentStatus::Authorized,
            20_000,
            InitialBankState::Preauth,
        )
        .await;
    assert!(matches!(
        w.op(&id, TransactionType::Cancel, None).await,
        Err(OpError::Unsupported {
            operation: Operation::Cancel,
            ..
        })
    ));
    let acct = account("acc_nocancel", OperationSet::all());
    assert_eq!(
        w.bank.query(&acct, "ORDpay_1").await.state,
        BankState::Preauth
    );
    assert!(w.store.transactions().is_empty());
}

#[tokio::test]
async fn other_merchants_and_other_modes_see_nothing() {
    let w = world();
    let id = w
        .payment(
            "pay_1",
            "acc_all",
            PaymentStatus::Authorized,
            20_000,
            InitialBankState::Preauth,
        )
        .await;
    let other = Principal {
        merchant_id: MerchantId::parse("mch_b").unwrap(),
        ..w.principal.clone()
    };
    let live = Principal {
        mode: Mode::Live,
        ..w.principal.clone()
    };
    for p in [other, live] {
        assert!(matches!(
            run_operation(&w.deps, &p, &id, TransactionType::Capture, None).await,
            Err(OpError::NotFound("payment"))
        ));
        assert!(matches!(
            query_payment(&w.deps, &p, &id).await,
            Err(OpError::NotFound("payment"))
        ));
    }
}

#[tokio::test]
async fn cancel_after_the_cut_is_declined_with_a_hint() {
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
    w.clock.advance_millis(24 * 3600 * 1000);
    let Err(OpError::Declined {
        after_cutoff,
        payment,
        ..
    }) = w.op(&id, TransactionType::Cancel, None).await
    else {
        panic!("expected a decline")
    };
    assert!(after_cutoff);
    assert_eq!(payment.status, PaymentStatus::Captured);
    assert!(w.op(&id, TransactionType::Refund, None).await.is_ok());
}

#[tokio::test(start_paused = true)]
async fn unrecordable_commit_is_settled_by_query_once_stale() {
    let w = world();
    let id = w
        .payment(
            "pay_1",
            "acc_all",
            PaymentStatus::Authorized,
            20_000,
            InitialBankState::Preauth,
        )
        .await;
    // GIVEN the reservation is written but every write of the bank's answer fails
    w.store.script_saves(
        std::iter::once(None).chain(std::iter::repeat_n(Some(SaveFault::ServerError), 8)),
    );
    assert!(matches!(
        w.op(&id, TransactionType::Capture, None).await,
        Err(OpError::NotRecorded { .. })
    ));
    assert_eq!(w.store.save_count(), 9);
    // THEN the bank captured, the payment still holds the reservation, and nothing else may run
    let acct = account("acc_all", OperationSet::all());
    assert_eq!(
        w.bank.query(&acct, "ORDpay_1").await.state,
        BankState::Approved
    );
    let stuck = w.store.payment(&id).unwrap();
    assert_eq!(stuck.status, PaymentStatus::Authorized);
    assert_eq!(
        stuck.pending.as_ref().unwrap().state,
        PendingState::InFlight
    );
    assert!(matches!(
        w.op(&id, TransactionType::Cancel, None).await,
        Err(OpError::Domain(DomainError::OperationInProgress { .. }))
    ));
    // WHEN it is stale and the merchant queries
    w.clock.advance_millis(61_000);
    let q = query_payment(&w.deps, &w.principal, &id).await.unwrap();
    // THEN it is settled from the bank's records, with its event
    assert_eq!(q.payment.status, PaymentStatus::Captured);
    assert_eq!(q.payment.captured_amount, 20_000);
    assert_eq!(
        w.store.events().last().unwrap().event_type,
        EventType::PaymentCaptured
    );
    assert_eq!(
        w.store.transactions()[0].status,
        TransactionStatus::Approved
    );
}

#[tokio::test]
async fn stale_in_flight_reservation_is_settled_by_query() {
    let w = world();
    let id = w
        .payment(
            "pay_1",
            "acc_all",
            PaymentStatus::Authorized,
            20_000,
            InitialBankState::Preauth,
        )
        .await;
    // Simulate a Lambda that reserved, got the bank to capture, and died before committing.
    let p = w.store.payment(&id).unwrap();
    let planned = p
        .plan(
            TransactionType::Capture,
            None,
            T0,
            paygate_domain::StaleAfter::DEFAULT,
        )
        .unwrap();
    let tid = TransactionId::parse("txn_dead").unwrap();
    let reserved = p.reserve(planned, tid.clone(), T0);
    let txn = Transaction::pending(
        tid.clone(),
        id.clone(),
        TransactionType::Capture,
        20_000,
        Currency::Try,
        T0,
    );
    w.store
        .save(PaymentChange {
            payment: reserved,
            expect: Expectation::over(&p),
            transaction: Some(txn),
            event: None,
        })
        .await
        .unwrap();
    let acct = account("acc_all", OperationSet::all());
    let op = BankOperation {
        order_id: "ORDpay_1".into(),
        transaction_id: tid.clone(),
        amount: 20_000,
        currency: Currency::Try,
        full: true,
    };
    assert!(matches!(
        w.bank.capture(&acct, &op).await,
        paygate_domain::BankOutcome::Approved { .. }
    ));
    // While fresh, it is in progress; query leaves it alone.
    assert!(matches!(
        w.op(&id, TransactionType::Cancel, None).await,
        Err(OpError::Domain(DomainError::OperationInProgress { .. }))
    ));
    let q = query_payment(&w.deps, &w.principal, &id).await.unwrap();
    assert!(q.payment.pending.is_some());
    // Once stale, query settles it from the bank's records.
    w.clock.advance_millis(61_000);
    let q = query_payment(&w.deps, &w.principal, &id).await.unwrap();
    assert_eq!(q.payment.status, PaymentStatus::Captured);
    assert_eq!(q.payment.pending, None);
    assert_eq!(
        w.store.events().last().unwrap().event_type,
        EventType::PaymentCaptured
    );
}

#[tokio::test]
async fn query_finalizes_pending_payments() {
    let w = world();
    let cases = [
        (
            "pay_a",
            InitialBankState::Approved,
            PaymentStatus::Captured,
            EventType::PaymentCaptured,
        ),
        (
            "pay_p",
            InitialBankState::Preauth,
            PaymentStatus::Authorized,
            EventType::PaymentAuthorized,
        ),
        (
            "pay_d",
            InitialBankState::Declined,
            PaymentStatus::Declined,
            EventType::PaymentFailed,
        ),
        (
            "pay_n",
            InitialBankState::None,
            PaymentStatus::Failed,
            EventType::PaymentFailed,
        ),
    ];
    for (id, bank, next, ev) in cases {
        let pid = w
            .payment(id, "acc_all", PaymentStatus::Pending, 12_000, bank)
            .await;
        if bank == InitialBankState::None {
            // "No record" inside the grace period fails nothing: banks book late.
            let q = query_payment(&w.deps, &w.principal, &pid).await.unwrap();
            assert_eq!(q.payment.status, PaymentStatus::Pending);
            w.clock.advance_millis(w.deps.pending_grace.millis());
        }
        let q = query_payment(&w.deps, &w.principal, &pid).await.unwrap();
        assert_eq!(q.payment.status, next, "{id}");
        assert_eq!(w.store.events().last().unwrap().event_type, ev, "{id}");
        // A second query changes nothing more.
        let n = w.store.events().len();
        query_payment(&w.deps, &w.principal, &pid).await.unwrap();
        assert_eq!(w.store.events().len(), n);
    }
}

#[tokio::test]
async fn committed_events_are_queued_and_left_for_the_fanout_to_mark() {
    let w = world();
    let id = w
        .payment(
            "pay_1",
            "acc_all",
            PaymentStatus::Authorized,
            20_000,
            InitialBankState::Preauth,
        )
        .await;
    w.op(&id, TransactionType::Capture, None).await.unwrap();
    let events = w.store.events();
    assert_eq!(events.len(), 1);
    assert_eq!(w.publisher.ids(), vec![events[0].id.clone()]);
    // Queued is not handed over: the fan-out marks it once its deliveries exist.
    assert_eq!(w.store.unsent(), vec![events[0].id.clone()]);
}

#[tokio::test]
async fn a_failed_queue_send_leaves_the_event_for_the_sweeper() {
    let w = world();
    let id = w
        .payment(
            "pay_1",
            "acc_all",
            PaymentStatus::Authorized,
            20_000,
            InitialBankState::Preauth,
        )
        .await;
    // GIVEN the queue refuses sends after the commit
    w.publisher.set_failing(true);
    // WHEN the capture commits
    let r = w.op(&id, TransactionType::Capture, None).await.unwrap();
    // THEN the operation still succeeds and its event waits in the outbox, unsent
    assert_eq!(r.payment.status, PaymentStatus::Captured);
    assert!(w.publisher.ids().is_empty());
    assert_eq!(w.store.unsent(), vec![w.store.events()[0].id.clone()]);
}

mod daily;
mod deadline;
mod faults;
mod metrics;
mod reconciler;
mod resume;
