//! A two-step cancel of a captured pre-authorization (Posnet: reverse the capture, then the
//! authorization) whose second step keeps failing: the operation stays unknown (never
//! "failed": the capture *was* reversed), and the reconciler completes the cancel, sending
//! only the missing reversal, so no authorization hold is left open.

use std::{sync::Arc, time::Duration};

use paygate_bank_posnet::{
    sim::{self, SimCredentials},
    wire, PosnetProvider,
};
use paygate_bankkit::{
    sim::{Fault, OrderState},
    AccountCredentials, BankTransport, MemoryCredentials, StepRetry,
};
use paygate_domain::testkit::{
    ManualClock, MemoryAccounts, MemoryPayments, MemoryPublisher, SeqIds,
};
use paygate_domain::{
    ids::ApiKeyId,
    ports::{PosProvider, TestOrder, TestOrderState},
    AccountId, Currency, MerchantId, Mode, OperationSet, Payment, PaymentId, PaymentStatus,
    PosAccount, TransactionStatus, TransactionType,
};
use paygate_payments::{
    run_operation, run_reconciler, BankAccess, EventSink, OpError, OperationDeps, Principal,
    Providers, ReconcilerDeps, ReconcilerLimits,
};

const MID: &str = "6706598320";
const TID: &str = "67005551";

#[tokio::test]
async fn a_half_done_cancel_is_completed_by_the_reconciler() {
    let (_server, state) = sim::start(SimCredentials {
        mid: MID.into(),
        tid: TID.into(),
    })
    .await;
    state.fault_plan().set_hang(Duration::from_secs(1));
    let account = PosAccount {
        id: AccountId::parse("acc_pn").unwrap(),
        merchant_id: MerchantId::parse("mch_pn").unwrap(),
        provider_code: "posnet".into(),
        bank_code: "0067".into(),
        bank_name: "Yapı Kredi".into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: Mode::Test,
    };
    let creds = Arc::new(MemoryCredentials::default());
    creds.insert(
        account.id.clone(),
        AccountCredentials::new(
            format!("{}{}", _server.url, wire::SERVICE_PATH),
            [
                ("mid".to_owned(), MID.to_owned()),
                ("tid".to_owned(), TID.to_owned()),
            ],
        ),
    );
    let provider = Arc::new(PosnetProvider::new(
        paygate_bank_posnet::Posnet::with_step_retry(StepRetry {
            retries: 3,
            backoff: Duration::from_millis(5),
            budget: Duration::from_secs(10),
        }),
        BankTransport::new(Duration::from_millis(300)),
        creds,
    ));
    let clock = Arc::new(ManualClock::at(super::T0));
    let store = Arc::new(MemoryPayments::default());
    let accounts = Arc::new(MemoryAccounts::default());
    accounts.insert(account.clone());
    let publisher = Arc::new(MemoryPublisher::default());
    // One id sequence for every function here, as real ids never repeat.
    let ids = Arc::new(SeqIds::default());
    let ops = || OperationDeps {
        payments: store.clone(),
        banks: BankAccess::new(
            accounts.clone(),
            Providers::new().register(provider.clone()),
        ),
        clock: clock.clone(),
        ids: ids.clone(),
        events: EventSink {
            publisher: publisher.clone(),
        },
        stale_after: paygate_domain::StaleAfter::DEFAULT,
        pending_grace: paygate_domain::PendingGrace::DEFAULT,
    };
    // An authorization of 90.00 TL, registered at the bank and captured for 60.00 TL.
    let order = "PGHALF1";
    provider
        .test_orders()
        .unwrap()
        .register(
            &account,
            &TestOrder {
                order_id: order.into(),
                amount: 9_000,
                currency: Currency::Try,
                state: TestOrderState::Preauth,
                settled: false,
            },
        )
        .await
        .unwrap();
    let id = PaymentId::parse("pay_half").unwrap();
    store.insert(Payment {
        id: id.clone(),
        merchant_id: account.merchant_id.clone(),
        mode: Mode::Test,
        account_id: account.id.clone(),
        order_id: order.into(),
        currency: Currency::Try,
        amount: 9_000,
        captured_amount: 0,
        refunded_amount: 0,
        status: PaymentStatus::Authorized,
        pending: None,
        auth_code: String::new(),
        rrn: String::new(),
        version: 1,
        created_at: super::T0,
        updated_at: super::T0,
    });
    let principal = Principal {
        merchant_id: account.merchant_id.clone(),
        mode: Mode::Test,
        key_id: ApiKeyId::parse("key_pn").unwrap(),
    };
    let deps = ops();
    run_operation(
        &deps,
        &principal,
        &id,
        TransactionType::Capture,
        Some(6_000),
    )
    .await
    .expect("captured");

    // The capture's reversal goes through; the authorization's keeps failing.
    state.fault_plan().script([
        Fault::Pass,
        Fault::TechnicalError,
        Fault::TechnicalError,
        Fault::TechnicalError,
        Fault::TechnicalError,
    ]);
    let Err(OpError::Provider {
        transaction,
        payment,
    }) = run_operation(&deps, &principal, &id, TransactionType::Cancel, None).await
    else {
        panic!("a half-done cancel is no success")
    };
    assert_eq!(
        transaction.status,
        TransactionStatus::Unknown,
        "never failed: something moved"
    );
    assert!(payment.pending.is_some());
    let key = wire::wire_order_id(order, "").unwrap();
    assert_eq!(
        state.ledger_of(MID, &key).unwrap().state,
        OrderState::Preauth,
        "hold open"
    );

    // The reconciler resumes the cancel, and the bank refuses the missing step again (a
    // maintenance window): the cancel stays unknown — never "captured, nothing pending",
    // which the bank's reversed capture would contradict.
    let reconciler = ReconcilerDeps {
        ops: ops(),
        unsettled: store.clone(),
        limits: ReconcilerLimits::default(),
    };
    state.fault_plan().script([Fault::TechnicalError; 4]);
    let r = run_reconciler(&reconciler).await.unwrap();
    assert_eq!((r.settled, r.deferred), (0, 1), "{r:?}");
    let p = store.payment(&id).unwrap();
    assert_eq!(p.status, PaymentStatus::Captured);
    assert_eq!(
        p.pending.as_ref().map(|op| op.state),
        Some(paygate_domain::PendingState::Unknown),
        "the cancel stays unknown"
    );
    assert_eq!(
        state.ledger_of(MID, &key).unwrap().state,
        OrderState::Preauth,
        "hold still open"
    );
    state.fault_plan().off();
    clock.advance_millis(paygate_domain::payment::reconcile_backoff_ms(1) + 1);

    // The next run resumes it again: only the authorization's reversal is sent.
    let before = state.fault_plan().counts().money_requests;
    let r = run_reconciler(&reconciler).await.unwrap();
    assert_eq!(r.settled, 1, "{r:?}");
    assert_eq!(state.fault_plan().counts().money_requests, before + 1);
    assert_eq!(
        state.ledger_of(MID, &key).unwrap().state,
        OrderState::Voided,
        "hold released"
    );
    let p = store.payment(&id).unwrap();
    assert_eq!((p.status, p.pending), (PaymentStatus::Cancelled, None));
    let txns = store.transactions();
    let cancel = txns
        .iter()
        .find(|t| t.kind == TransactionType::Cancel)
        .unwrap();
    assert_eq!(cancel.status, TransactionStatus::Approved);
    assert_eq!(
        store.events().last().unwrap().event_type,
        paygate_domain::EventType::PaymentCancelled
    );
}
