//! The daily reconciliation run (`paygate_domain::daily`): for every POS account, the
//! bank's record of one business day against ours, written down as one report per account.
//!
//! The run is scheduled a few times after midnight Istanbul for the day before; an account
//! whose report for the day is already complete (clean or with mismatches) is skipped, an
//! incomplete one (the bank could not be read) is tried again. It reads only: nothing is
//! settled, recorded or sent to the bank here — unknown operations are the reconciler's,
//! refunds done at the bank are recorded by a query (`paygate_domain::payment::external`).
//! A report lists what differs; people (or the merchant's query) act on it.

use std::{collections::BTreeMap, sync::Arc};

use paygate_domain::{
    daily::{
        match_history, match_orders, AllAccounts, BusinessDay, DayHistory, DayLedger, DayReport,
        DayReports, OrderView, ReportStatus, Source,
    },
    ports::{Clock, PaymentReader},
    MerchantId, PaymentId, PosAccount,
};
use serde::Serialize;

use crate::{error::OpError, providers::Providers, Deadline};

/// What the run reads and writes.
pub struct DailyDeps {
    pub accounts: Arc<dyn AllAccounts>,
    pub ledger: Arc<dyn DayLedger>,
    pub reports: Arc<dyn DayReports>,
    /// The payments a per-payment query compares (families without a day history).
    pub payments: Arc<dyn PaymentReader>,
    pub providers: Providers,
    pub clock: Arc<dyn Clock>,
}

/// What one run did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DailyRun {
    pub date: Option<BusinessDay>,
    /// Reports written this run, by status.
    pub clean: usize,
    pub mismatched: usize,
    pub incomplete: usize,
    /// Accounts already reconciled for the day by an earlier run (not read again).
    pub already_done: usize,
    /// Accounts left for the next run (no time left) or failed on our store.
    pub left: usize,
    /// Mismatched lines over the reports written this run (the alarmed metric).
    pub mismatches: u64,
}

/// Whether a run takes every account again, or only those without a complete report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redo {
    /// The nightly schedule: accounts already reconciled for the day (clean or with
    /// mismatches) are left alone; incomplete ones are tried again.
    Incomplete,
    /// A run by hand (a day named): every account again, its report replaced.
    All,
}

/// Reconciles `day` for every account `redo` takes, while `deadline` leaves time for one
/// more account.
pub async fn run_daily(
    deps: &DailyDeps,
    day: BusinessDay,
    redo: Redo,
    deadline: Option<Deadline>,
) -> Result<DailyRun, OpError> {
    let accounts = deps.accounts.all_accounts().await?;
    let mut run = DailyRun {
        date: Some(day),
        ..DailyRun::default()
    };
    let mut by_merchant: BTreeMap<MerchantId, Vec<PosAccount>> = BTreeMap::new();
    for a in accounts {
        by_merchant
            .entry(a.merchant_id.clone())
            .or_default()
            .push(a);
    }
    for (merchant, accounts) in by_merchant {
        let before = deps.reports.list_reports(&merchant, day).await?;
        for account in accounts {
            let complete = redo == Redo::Incomplete
                && before
                    .iter()
                    .any(|r| r.account_id == account.id && r.status != ReportStatus::Incomplete);
            if complete {
                run.already_done += 1;
                continue;
            }
            if deadline.is_some_and(|d| d.remaining() < ACCOUNT_BUDGET) {
                run.left += 1;
                continue;
            }
            match reconcile_account(deps, &account, day).await {
                Ok(report) => {
                    run.mismatches += u64::from(report.counts.mismatches());
                    match report.status {
                        ReportStatus::Clean => run.clean += 1,
                        ReportStatus::Mismatches => run.mismatched += 1,
                        ReportStatus::Incomplete => run.incomplete += 1,
                    }
                }
                Err(e) => {
                    tracing::error!(account_id = %account.id, error = %e,
                        "daily reconciliation of the account failed; the next run tries again");
                    run.left += 1;
                }
            }
        }
    }
    Ok(run)
}

/// The time one account may take: its day history (a few pages) or its payments' queries.
pub const ACCOUNT_BUDGET: std::time::Duration = std::time::Duration::from_secs(60);

/// Reconciles one account's `day` and stores the report.
pub async fn reconcile_account(
    deps: &DailyDeps,
    account: &PosAccount,
    day: BusinessDay,
) -> Result<DayReport, OpError> {
    let ours = deps.ledger.day_transactions(&account.id, day).await?;
    let mut incomplete: Vec<String> = Vec::new();
    if !ours.undecodable.is_empty() {
        tracing::error!(account_id = %account.id, items = ?ours.undecodable,
            "transactions of the day could not be read");
        incomplete.push(format!(
            "{} of our transactions could not be read",
            ours.undecodable.len()
        ));
    }
    let provider = deps.providers.get(&account.provider_code);
    let (source, findings) = match provider {
        None => {
            incomplete.push("the account's bank protocol is not configured".to_owned());
            (Source::Query, Vec::new())
        }
        Some(p) => match p.day_history(account, day).await {
            DayHistory::Lines(lines) => (Source::History, match_history(&ours.items, &lines)),
            DayHistory::Unavailable { reason } => {
                tracing::warn!(account_id = %account.id, %reason, "the bank's day history could not be read");
                incomplete.push("the bank's day history could not be read".to_owned());
                (Source::History, Vec::new())
            }
            DayHistory::Unsupported => {
                let mut ids: Vec<&PaymentId> = ours
                    .items
                    .iter()
                    .map(|t| &t.transaction.payment_id)
                    .collect();
                ids.sort();
                ids.dedup();
                let mut read = Vec::new();
                let mut unread = 0usize;
                for id in ids {
                    let Some(payment) = deps.payments.get_payment(id).await? else {
                        unread += 1;
                        continue;
                    };
                    let status = p.query(account, &payment.order_id).await;
                    if !status.is_conclusive() {
                        unread += 1;
                    }
                    read.push((payment, status));
                }
                if unread > 0 {
                    incomplete.push(format!("{unread} payments could not be read at the bank"));
                }
                let views: Vec<OrderView<'_>> = read
                    .iter()
                    .map(|(payment, status)| OrderView { payment, status })
                    .collect();
                (Source::Query, match_orders(&ours.items, &views))
            }
        },
    };
    let report = DayReport::new(
        account.merchant_id.clone(),
        account.id.clone(),
        account.mode,
        day,
        source,
        (!incomplete.is_empty()).then(|| incomplete.join("; ")),
        findings,
        deps.clock.now(),
    );
    deps.reports.put_report(&report).await?;
    if report.status != ReportStatus::Clean {
        tracing::warn!(account_id = %account.id, date = %day, status = ?report.status,
            counts = ?report.counts, "daily reconciliation found differences");
    }
    Ok(report)
}
