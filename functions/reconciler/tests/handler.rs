//! The reconciler function over in-memory stores and the simulator bank: a refund the bank
//! never answered is settled by a scheduled run, and the run's figures come out as an EMF
//! record with the alarm's metric.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use aws_lambda_events::eventbridge::EventBridgeEvent;
use fn_reconciler::{emf, handle, Deps, OVER_LIMIT_METRIC};
use paygate_bank_simulator::{InitialBankState, MemoryLedger, SimBank, PROVIDER_CODE};
use paygate_domain::testkit::{
    ManualClock, MemoryAccounts, MemoryPayments, MemoryPublisher, SeqIds, T0,
};
use paygate_domain::{
    ids::ApiKeyId, AccountId, Currency, MerchantId, Mode, OperationSet, Payment, PaymentId,
    PaymentStatus, PosAccount, TransactionType,
};
use paygate_payments::{
    run_operation, BankAccess, EventSink, OpError, OperationDeps, Principal, Providers,
    ReconcilerDeps, ReconcilerLimits, RunReport,
};

#[tokio::test]
async fn a_scheduled_run_settles_an_unanswered_refund() {
    let clock = Arc::new(ManualClock::at(T0));
    let store = Arc::new(MemoryPayments::default());
    let account = PosAccount {
        id: AccountId::parse("acc_r").unwrap(),
        merchant_id: MerchantId::parse("mch_r").unwrap(),
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
    let publisher = Arc::new(MemoryPublisher::default());
    let ops = OperationDeps {
        payments: store.clone(),
        banks: BankAccess::new(accounts, Providers::new().register(bank.clone())),
        clock: clock.clone(),
        ids: Arc::new(SeqIds::default()),
        events: EventSink {
            publisher: publisher.clone(),
        },
        stale_after: paygate_domain::StaleAfter::DEFAULT,
        pending_grace: paygate_domain::PendingGrace::DEFAULT,
    };
    let id = PaymentId::parse("pay_r").unwrap();
    store.insert(Payment {
        id: id.clone(),
        merchant_id: account.merchant_id.clone(),
        mode: Mode::Test,
        account_id: account.id.clone(),
        order_id: "ORDr".into(),
        currency: Currency::Try,
        amount: 20_000,
        captured_amount: 20_000,
        refunded_amount: 0,
        status: PaymentStatus::Captured,
        pending: None,
        auth_code: String::new(),
        rrn: String::new(),
        version: 1,
        created_at: T0,
        updated_at: T0,
    });
    bank.register_order(
        &account,
        "ORDr",
        20_000,
        Currency::Try,
        InitialBankState::Approved,
        false,
    )
    .await
    .unwrap();
    let principal = Principal {
        merchant_id: account.merchant_id.clone(),
        mode: Mode::Test,
        key_id: ApiKeyId::parse("key_r").unwrap(),
    };
    // The simulator applies a 9900 refund and loses the answer.
    assert!(matches!(
        run_operation(&ops, &principal, &id, TransactionType::Refund, Some(9900)).await,
        Err(OpError::Provider { .. })
    ));
    let deps = Deps {
        reconciler: ReconcilerDeps {
            ops,
            unsettled: store.clone(),
            limits: ReconcilerLimits::default(),
        },
        stage: "test".into(),
    };
    let report = handle(&deps, EventBridgeEvent::default()).await.unwrap();
    assert_eq!((report.due, report.settled), (1, 1), "{report:?}");
    let p = store.payment(&id).unwrap();
    assert_eq!(
        (p.status, p.refunded_amount),
        (PaymentStatus::PartiallyRefunded, 9900)
    );
    assert_eq!(publisher.ids().len(), 1, "payment.refunded goes out");
}

#[test]
fn figures_are_an_emf_record_with_the_alarm_metric() {
    let report = RunReport {
        due: 3,
        undecodable: 1,
        settled: 1,
        deferred: 2,
        errors: 0,
        gone: 0,
        over_limit: 2,
        over_limit_ids: vec![],
    };
    let v: serde_json::Value = serde_json::from_str(&emf(&report, "prod", T0)).unwrap();
    assert_eq!(v["_aws"]["CloudWatchMetrics"][0]["Namespace"], "paygate");
    assert_eq!(v["_aws"]["Timestamp"], T0.unix_millis());
    assert_eq!(v["Stage"], "prod");
    assert_eq!(v[OVER_LIMIT_METRIC], 2);
    assert_eq!(v["ReconcileUndecodable"], 1);
    let names: Vec<&str> = v["_aws"]["CloudWatchMetrics"][0]["Metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["Name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&OVER_LIMIT_METRIC));
    for n in names {
        assert!(v.get(n).is_some(), "{n} has a value");
        assert!(
            paygate_aws::metrics::NAMES.contains(&n),
            "{n} is a known metric"
        );
    }
}
