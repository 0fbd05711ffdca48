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
        banks: BankAccess::new(accounts.clone(), Providers::new().register(bank.clone())),
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
    let reports = Arc::new(paygate_domain::testkit::MemoryDayReports::default());
    let deps = Deps {
        daily: paygate_payments::DailyDeps {
            accounts: accounts.clone(),
            ledger: store.clone(),
            reports: reports.clone(),
            payments: store.clone(),
            providers: ops.banks.providers.clone(),
            clock: clock.clone(),
        },
        reconciler: ReconcilerDeps {
            ops,
            unsettled: store.clone(),
            limits: ReconcilerLimits::default(),
        },
        stage: "test".into(),
    };
    // The minute's run comes 40 s later.
    clock.advance_millis(40_000);
    let report = handle(&deps, EventBridgeEvent::default()).await.unwrap();
    assert_eq!((report.due, report.settled), (1, 1), "{report:?}");
    let p = store.payment(&id).unwrap();
    assert_eq!(
        (p.status, p.refunded_amount),
        (PaymentStatus::PartiallyRefunded, 9900)
    );
    assert_eq!(publisher.ids().len(), 1, "payment.refunded goes out");

    // The next day's daily schedule reconciles that day: the refund matches, marked as
    // settled from the bank's records (not by its request).
    clock.advance_millis(86_400_000);
    let done = fn_reconciler::handle_event(
        &deps,
        serde_json::json!({ "job": fn_reconciler::DAILY_JOB }),
        None,
    )
    .await
    .unwrap();
    let fn_reconciler::Done::Daily(run) = done else {
        panic!("the daily job ran the settling run");
    };
    assert_eq!((run.clean, run.mismatches), (1, 0), "{run:?}");
    let r = &reports.all()[0];
    assert_eq!(r.date, paygate_domain::daily::BusinessDay::of(T0));
    assert_eq!(r.counts.matched, 1);
    assert!(r.findings[0].settled_from_bank_records, "{r:?}");
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

#[test]
fn the_daily_schedule_names_its_job_and_the_minutes_schedule_does_not() {
    use fn_reconciler::{Job, DAILY_JOB};
    use paygate_domain::daily::BusinessDay;
    use serde_json::json;
    assert_eq!(
        Job::of(json!({ "job": DAILY_JOB })).unwrap(),
        Job::Daily(None)
    );
    assert_eq!(
        Job::of(json!({ "job": DAILY_JOB, "date": "2026-11-26" })).unwrap(),
        Job::Daily(BusinessDay::parse("2026-11-26"))
    );
    assert!(Job::of(json!({ "job": DAILY_JOB, "date": "26.11.2026" })).is_err());
    let scheduled = json!({
        "version": "0", "id": "e", "detail-type": "Scheduled Event", "source": "aws.events",
        "account": "1", "time": "2026-11-27T00:00:00Z", "region": "eu-central-1",
        "resources": [], "detail": {}
    });
    assert!(matches!(Job::of(scheduled).unwrap(), Job::Settle(_)));
    assert!(Job::of(json!({ "job": "something-else" })).is_err());
}

#[test]
fn a_daily_run_publishes_the_alarmed_metrics() {
    use fn_reconciler::{daily_emf, INCOMPLETE_METRIC, MISMATCH_METRIC};
    let run = paygate_payments::DailyRun {
        clean: 3,
        mismatched: 1,
        incomplete: 2,
        mismatches: 4,
        ..Default::default()
    };
    let v: serde_json::Value = serde_json::from_str(&daily_emf(&run, "dev", T0)).unwrap();
    assert_eq!(v[MISMATCH_METRIC], 4);
    assert_eq!(v[INCOMPLETE_METRIC], 2);
    assert_eq!(v["ReconciliationAccounts"], 6);
    let names: Vec<&str> = v["_aws"]["CloudWatchMetrics"][0]["Metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["Name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&MISMATCH_METRIC) && names.contains(&INCOMPLETE_METRIC));
    // Alarms and graphs may name only what the code declares it emits.
    assert!(
        names
            .iter()
            .all(|n| paygate_aws::metrics::NAMES.contains(n)),
        "{names:?}"
    );
}
