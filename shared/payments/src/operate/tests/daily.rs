//! The daily reconciliation run over in-memory stores: the built-in simulator has no day
//! history, so its accounts are reconciled by per-payment query; a history family is stood
//! in for by a provider that answers a scripted day.

use std::sync::Mutex;

use paygate_domain::{
    bank::{BankOutcome, BankStatus, CardDetails, PointsResult},
    daily::{BankLine, BusinessDay, DayHistory, DayReports, FindingKind, ReportStatus, Source},
    ports::BankOperation,
    testkit::MemoryDayReports,
};

use super::*;
use crate::daily::{reconcile_account, run_daily, DailyDeps, Redo};

fn daily(w: &World, providers: Providers) -> (DailyDeps, Arc<MemoryDayReports>) {
    let reports = Arc::new(MemoryDayReports::default());
    let deps = DailyDeps {
        accounts: w.accounts.clone(),
        ledger: w.store.clone(),
        reports: reports.clone(),
        payments: w.store.clone(),
        providers,
        clock: w.clock.clone(),
    };
    (deps, reports)
}

fn bank_op(order: &str, amount: i64) -> BankOperation {
    BankOperation {
        order_id: order.into(),
        transaction_id: paygate_domain::TransactionId::parse("txn_panel").unwrap(),
        amount,
        currency: Currency::Try,
        full: false,
    }
}

#[tokio::test]
async fn by_query_a_panel_refund_and_a_recovered_commit_are_reported() {
    let w = world();
    let day = BusinessDay::of(T0);
    let acct = account("acc_all", OperationSet::all());
    // pay_1: captured here, refunded 5 000 here.
    let p1 = w
        .payment(
            "pay_1",
            "acc_all",
            PaymentStatus::Captured,
            20_000,
            InitialBankState::Approved,
        )
        .await;
    w.op(&p1, TransactionType::Refund, Some(5_000))
        .await
        .unwrap();
    // pay_2: 1 000 refunded here, then 3 000 more in the bank's own panel.
    let p2 = w
        .payment(
            "pay_2",
            "acc_all",
            PaymentStatus::Captured,
            10_000,
            InitialBankState::Approved,
        )
        .await;
    w.op(&p2, TransactionType::Refund, Some(1_000))
        .await
        .unwrap();
    let panel = w.bank.refund(&acct, &bank_op("ORDpay_2", 3_000)).await;
    assert!(matches!(panel, BankOutcome::Approved { .. }), "{panel:?}");
    // pay_3: the capture's commit is lost; the reconciler settles it 61 s later.
    let p3 = w
        .payment(
            "pay_3",
            "acc_all",
            PaymentStatus::Authorized,
            7_000,
            InitialBankState::Preauth,
        )
        .await;
    w.store.script_saves(
        std::iter::once(None).chain(std::iter::repeat_n(Some(SaveFault::ServerError), 8)),
    );
    assert!(matches!(
        w.op(&p3, TransactionType::Capture, None).await,
        Err(OpError::NotRecorded { .. })
    ));
    w.clock.advance_millis(61_000);
    query_payment(&w.deps, &w.principal, &p3).await.unwrap();

    let (deps, reports) = daily(&w, w.deps.banks.providers.clone());
    let run = run_daily(&deps, day, Redo::Incomplete, None).await.unwrap();
    // acc_all has the day's operations; acc_nocancel had none: a clean, empty report.
    assert_eq!(
        (run.mismatched, run.clean, run.incomplete),
        (1, 1, 0),
        "{run:?}"
    );
    assert_eq!(run.mismatches, 1);
    let r = reports
        .list_reports(&w.principal.merchant_id, day)
        .await
        .unwrap()
        .into_iter()
        .find(|r| r.account_id.as_str() == "acc_all")
        .unwrap();
    assert_eq!(
        (r.source, r.status),
        (Source::Query, ReportStatus::Mismatches)
    );
    assert_eq!((r.counts.matched, r.counts.missing_here), (3, 1), "{r:#?}");
    let extra = &r.findings[0];
    assert_eq!(extra.kind, FindingKind::MissingHere);
    assert_eq!(
        (extra.order_id.as_str(), extra.bank_amount),
        ("ORDpay_2", Some(3_000))
    );
    let recovered = r
        .findings
        .iter()
        .find(|f| f.payment_id.as_ref() == Some(&p3))
        .unwrap();
    assert_eq!(recovered.kind, FindingKind::Matched);
    assert!(recovered.settled_from_bank_records, "{recovered:?}");
    assert!(r
        .findings
        .iter()
        .filter(|f| f.payment_id.as_ref() != Some(&p3))
        .all(|f| !f.settled_from_bank_records));

    // A second scheduled run leaves complete reports alone; a run by hand redoes them.
    let again = run_daily(&deps, day, Redo::Incomplete, None).await.unwrap();
    assert_eq!((again.already_done, again.clean + again.mismatched), (2, 0));
    let redone = run_daily(&deps, day, Redo::All, None).await.unwrap();
    assert_eq!(
        (redone.already_done, redone.clean + redone.mismatched),
        (0, 2)
    );
    assert_eq!(reports.all().len(), 2);
}

/// A history family: answers the scripted day, and nothing else.
struct HistoryBank(Mutex<DayHistory>);

#[async_trait::async_trait]
impl PosProvider for HistoryBank {
    fn code(&self) -> &'static str {
        "history"
    }
    async fn capture(&self, _: &PosAccount, _: &BankOperation) -> BankOutcome {
        unreachable!("the daily run moves no money")
    }
    async fn cancel(&self, _: &PosAccount, _: &BankOperation) -> BankOutcome {
        unreachable!("the daily run moves no money")
    }
    async fn refund(&self, _: &PosAccount, _: &BankOperation) -> BankOutcome {
        unreachable!("the daily run moves no money")
    }
    async fn query(&self, _: &PosAccount, _: &str) -> BankStatus {
        unreachable!("a history family is not queried order by order")
    }
    async fn points_inquiry(&self, _: &PosAccount, _: &CardDetails, _: Currency) -> PointsResult {
        unreachable!()
    }
    async fn day_history(&self, _: &PosAccount, _: BusinessDay) -> DayHistory {
        self.0.lock().unwrap().clone()
    }
}

#[tokio::test]
async fn by_history_an_unreadable_day_is_incomplete_and_tried_again() {
    let w = world();
    let day = BusinessDay::of(T0);
    let p1 = w
        .payment(
            "pay_1",
            "acc_all",
            PaymentStatus::Captured,
            20_000,
            InitialBankState::Approved,
        )
        .await;
    w.op(&p1, TransactionType::Refund, Some(5_000))
        .await
        .unwrap();
    let bank = Arc::new(HistoryBank(Mutex::new(DayHistory::Unavailable {
        reason: "time-out".into(),
    })));
    let (deps, reports) = daily(&w, Providers::new().register(bank.clone()));
    let mut acct = account("acc_all", OperationSet::all());
    acct.provider_code = "history".into();
    let r = reconcile_account(&deps, &acct, day).await.unwrap();
    // "Could not tell" is not "the bank has nothing": no line is reported missing.
    assert_eq!(r.status, ReportStatus::Incomplete);
    assert_eq!(r.counts, Default::default());
    assert!(r.findings.is_empty());
    // The bank answers now: the refund, and a cancel of an order we never sent.
    *bank.0.lock().unwrap() = DayHistory::Lines(vec![
        BankLine {
            order_id: "ORDpay_1".into(),
            kind: TransactionType::Refund,
            amount: 5_000,
            rrn: "1".into(),
        },
        BankLine {
            order_id: "ORD-PANEL".into(),
            kind: TransactionType::Cancel,
            amount: 900,
            rrn: "2".into(),
        },
    ]);
    let r = reconcile_account(&deps, &acct, day).await.unwrap();
    assert_eq!(
        (r.source, r.status),
        (Source::History, ReportStatus::Mismatches)
    );
    assert_eq!((r.counts.matched, r.counts.missing_here), (1, 1));
    assert_eq!(
        reports.all().len(),
        1,
        "the day's report is replaced, not added"
    );
    // The day before holds nothing of ours: the same lines are all missing here.
    let r = reconcile_account(&deps, &acct, day.previous())
        .await
        .unwrap();
    assert_eq!((r.counts.matched, r.counts.missing_here), (0, 2));
}
