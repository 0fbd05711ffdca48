//! Money operations over DynamoDB (moto) with faults injected under the SDK's HTTP client:
//! lost answers, 500s, transaction conflicts and throttling on the writes an operation
//! makes, with the deployed functions' SDK retry configuration. The merchant gets the bank's
//! real outcome, the bank moves money once, and exactly one event is written.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use paygate_aws::dynamo::{
    create_tables,
    faults::{client, DynamoFault, FaultPlan},
    table_names, DynamoPayments,
};
use paygate_aws::moto::{unique_prefix, MotoServer, REGION};
use paygate_aws::retry_config;
use paygate_bank_simulator::{InitialBankState, MemoryLedger, SimBank, PROVIDER_CODE};
use paygate_domain::testkit::{ManualClock, MemoryAccounts, MemoryPublisher, SeqIds};
use paygate_domain::{
    ids::ApiKeyId,
    ports::{Outbox, PaymentReader, PaymentWriter, PosProvider},
    AccountId, Currency, MerchantId, Mode, Operation, OperationSet, Payment, PaymentId,
    PaymentStatus, PosAccount, Timestamp, TransactionStatus, TransactionType,
};
use paygate_payments::{
    run_operation, BankAccess, EventSink, OpError, OperationDeps, Principal, Providers,
};

mod throttle;
mod two_step_cancel;

const T0: Timestamp = Timestamp::from_unix_millis(1_795_255_200_000);

struct World {
    deps: OperationDeps,
    events: paygate_aws::dynamo::DynamoEvents,
    plan: FaultPlan,
    payments: Arc<DynamoPayments>,
    bank: Arc<SimBank>,
    account: PosAccount,
    principal: Principal,
}

async fn world(label: &str) -> World {
    let moto = MotoServer::shared().expect("moto server starts");
    let prefix = unique_prefix(label);
    create_tables(&moto.client(), &prefix).await.unwrap();
    let names = table_names(&prefix);
    let plan = FaultPlan::new();
    let faulty = client(&moto.endpoint, REGION, &plan, retry_config());
    let payments = Arc::new(DynamoPayments::new(
        faulty.clone(),
        &names.payments,
        &names.events,
    ));
    let clock = Arc::new(ManualClock::at(T0));
    let account = PosAccount {
        id: AccountId::parse("acc_f").unwrap(),
        merchant_id: MerchantId::parse("mch_f").unwrap(),
        provider_code: PROVIDER_CODE.into(),
        bank_code: "0064".into(),
        bank_name: "Türkiye İş Bankası".into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: Mode::Test,
    };
    let accounts = Arc::new(MemoryAccounts::default());
    accounts.insert(account.clone());
    let bank = Arc::new(SimBank::new(
        Arc::new(MemoryLedger::default()),
        clock.clone(),
    ));
    let deps = OperationDeps {
        payments: payments.clone(),
        banks: BankAccess::new(accounts, Providers::new().register(bank.clone())),
        clock,
        ids: Arc::new(SeqIds::default()),
        events: EventSink {
            publisher: Arc::new(MemoryPublisher::default()),
        },
        stale_after: paygate_domain::StaleAfter::DEFAULT,
        pending_grace: paygate_domain::PendingGrace::DEFAULT,
    };
    let events = paygate_aws::dynamo::DynamoEvents::new(faulty, &names.events);
    World {
        deps,
        events,
        plan,
        payments,
        bank,
        account,
        principal: Principal {
            merchant_id: MerchantId::parse("mch_f").unwrap(),
            mode: Mode::Test,
            key_id: ApiKeyId::parse("key_f").unwrap(),
        },
    }
}

impl World {
    async fn captured(&self, id: &str, amount: i64) -> PaymentId {
        let pid = PaymentId::parse(id).unwrap();
        let order = format!("ORD{id}");
        self.payments
            .save(paygate_domain::ports::PaymentChange {
                payment: Payment {
                    id: pid.clone(),
                    merchant_id: self.principal.merchant_id.clone(),
                    mode: Mode::Test,
                    account_id: self.account.id.clone(),
                    order_id: order.clone(),
                    currency: Currency::Try,
                    amount,
                    captured_amount: amount,
                    refunded_amount: 0,
                    status: PaymentStatus::Captured,
                    pending: None,
                    auth_code: String::new(),
                    rrn: String::new(),
                    version: 1,
                    created_at: T0,
                    updated_at: T0,
                },
                expect: paygate_domain::ports::Expectation::Absent,
                transaction: None,
                event: None,
            })
            .await
            .unwrap();
        self.bank
            .register_order(
                &self.account,
                &order,
                amount,
                Currency::Try,
                InitialBankState::Approved,
                false,
            )
            .await
            .unwrap();
        pid
    }

    async fn bank_refunded(&self, id: &PaymentId) -> i64 {
        self.bank
            .query(&self.account, &format!("ORD{id}"))
            .await
            .refunded_amount
    }

    async fn refund(
        &self,
        id: &PaymentId,
        amount: i64,
    ) -> Result<paygate_payments::OperationResult, OpError> {
        run_operation(
            &self.deps,
            &self.principal,
            id,
            TransactionType::Refund,
            Some(amount),
        )
        .await
    }
}

/// Before the fix: the lost answer made the SDK retry the commit, which failed its own
/// version condition, and the merchant got 409 "Retry" — and a retry refunded again.
#[tokio::test]
async fn a_lost_commit_answer_is_the_banks_approval_not_a_conflict() {
    let w = world("lostcommit").await;
    let id = w.captured("pay_lost", 20_000).await;
    // reservation through, the commit applied but its answer lost
    w.plan
        .script("TransactWriteItems", [None, Some(DynamoFault::LostAnswer)]);
    let r = w.refund(&id, 5_000).await.expect("the bank's approval");
    assert_eq!(r.transaction.status, TransactionStatus::Approved);
    assert_eq!(r.payment.refunded_amount, 5_000);
    let stored = w.payments.get_payment(&id).await.unwrap().unwrap();
    assert_eq!(stored.pending, None);
    assert_eq!(stored.refunded_amount, 5_000);
    assert_eq!(w.bank_refunded(&id).await, 5_000);
    // Exactly one event, waiting for the fan-out to hand it over.
    let unsent = Outbox::list_unsent(&w.events, T0.plus_millis(60_000), 100)
        .await
        .unwrap()
        .items;
    assert_eq!(unsent.len(), 1, "{unsent:?}");
    // The SDK retried the very same request: same ClientRequestToken.
    let tokens = w.plan.transaction_tokens();
    assert!(tokens.iter().all(|t| !t.is_empty()), "{tokens:?}");
    assert_eq!(
        tokens.len(),
        3,
        "reservation, commit, SDK retry: {tokens:?}"
    );
    assert_eq!(tokens[1], tokens[2], "a retry carries the same token");
    assert_ne!(tokens[0], tokens[1], "each step has its own token");
}

/// Conflicts and throttling beyond the SDK's three attempts: our own retries carry on while
/// the reservation is ours.
#[tokio::test]
async fn conflicts_and_throttling_on_the_commit_are_outlasted() {
    for (i, fault) in [
        DynamoFault::TransactionConflict,
        DynamoFault::Throttled,
        DynamoFault::ServerError,
    ]
    .into_iter()
    .enumerate()
    {
        let w = world(&format!("outlast{i}")).await;
        let id = w.captured("pay_o", 20_000).await;
        w.plan.script(
            "TransactWriteItems",
            std::iter::once(None).chain(std::iter::repeat_n(Some(fault), 4)),
        );
        let r = w.refund(&id, 2_500).await;
        assert!(r.is_ok(), "{fault:?}: {r:?}");
        assert_eq!(w.bank_refunded(&id).await, 2_500, "{fault:?}");
        let stored = w.payments.get_payment(&id).await.unwrap().unwrap();
        assert_eq!(stored.pending, None, "{fault:?}");
        assert_eq!(stored.status, PaymentStatus::PartiallyRefunded);
        assert_eq!(w.plan.injected().get(&fault), Some(&4));
    }
}

/// A reservation whose answer is lost is found by reading back; the bank is asked once.
#[tokio::test]
async fn a_lost_reservation_answer_moves_money_once() {
    let w = world("lostreserve").await;
    let id = w.captured("pay_r", 20_000).await;
    w.plan
        .script("TransactWriteItems", [Some(DynamoFault::LostAnswer)]);
    let r = w.refund(&id, 1_000).await;
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(w.bank_refunded(&id).await, 1_000);
    let txns = w.payments.list_transactions(&id).await.unwrap();
    assert_eq!(txns.len(), 1, "{txns:?}");
    let _ = w.bank.supported().contains(Operation::Query);
}
