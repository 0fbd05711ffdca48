//! The daily reconciliation's storage, in the payments table: our transactions by account
//! and business day (the `byAccountDay` index over the transaction items' `accountDay`), and
//! the reports (`pk = "RECON#<merchant id>"`, `sk = "<YYYY-MM-DD>#<account id>"`, the report
//! as JSON in `report`).

use async_trait::async_trait;
use paygate_domain::{
    daily::{BusinessDay, DayLedger, DayReport, DayReports, DayTransaction},
    ports::Listing,
    AccountId, MerchantId, Payment, StoreError, Transaction,
};

use crate::dynamo::{
    error::unavailable,
    item::{s, undecodable, Fields, Item, PK, SK},
    payment_item::decode_transaction,
    payments::DynamoPayments,
    read::{index_query, query_page, sort_key_prefix_query},
    schema::ACCOUNT_DAY_INDEX,
};

/// The transaction item's `accountDay`: its account and the business day of its creation.
pub(crate) fn account_day(account: &AccountId, day: BusinessDay) -> String {
    format!("{account}#{day}")
}

/// Adds what the daily reconciliation finds a transaction item by (`accountDay`) and
/// matches it on (`orderId`, the bank's name of its payment).
pub(crate) fn with_day_keys(mut item: Item, payment: &Payment, x: &Transaction) -> Item {
    let day = BusinessDay::of(x.created_at);
    item.insert(
        ACCOUNT_DAY_INDEX.hash_key.to_owned(),
        s(account_day(&payment.account_id, day)),
    );
    item.insert("orderId".to_owned(), s(&payment.order_id));
    item
}

fn decode_day(item: &Item) -> Result<DayTransaction, StoreError> {
    let f = Fields::new(item, "transaction");
    Ok(DayTransaction {
        order_id: f.str("orderId")?.to_owned(),
        transaction: decode_transaction(item)?,
    })
}

const REPORT_PK: &str = "RECON#";

fn report_sk(day: BusinessDay, account: &AccountId) -> String {
    format!("{day}#{account}")
}

#[async_trait]
impl DayLedger for DynamoPayments {
    /// A transaction item that does not decode is skipped and reported, never allowed to
    /// stop the day's report (the report is then marked incomplete by the caller).
    async fn day_transactions(
        &self,
        account: &AccountId,
        day: BusinessDay,
    ) -> Result<Listing<DayTransaction>, StoreError> {
        let query = index_query(
            self.client(),
            self.payments_table(),
            &ACCOUNT_DAY_INDEX,
            &account_day(account, day),
        );
        let mut out = Listing::of(Vec::new());
        let mut start: Option<Item> = None;
        loop {
            let page = query_page(&query, start.take(), None).await?;
            for item in &page.items {
                match decode_day(item) {
                    Ok(t) => out.items.push(t),
                    Err(e) => out.undecodable.push(undecodable(item, "id", &e)),
                }
            }
            match page.next {
                Some(k) => start = Some(k),
                None => return Ok(out),
            }
        }
    }
}

#[async_trait]
impl DayReports for DynamoPayments {
    async fn put_report(&self, report: &DayReport) -> Result<(), StoreError> {
        let json = serde_json::to_string(report)
            .map_err(|e| StoreError::Corrupt(format!("report: {e}")))?;
        let item = Item::from([
            (
                PK.to_owned(),
                s(format!("{REPORT_PK}{}", report.merchant_id)),
            ),
            (SK.to_owned(), s(report_sk(report.date, &report.account_id))),
            ("report".to_owned(), s(json)),
        ]);
        self.client()
            .put_item()
            .table_name(self.payments_table())
            .set_item(Some(item))
            .send()
            .await
            .map_err(|e| unavailable("PutItem", &e))?;
        Ok(())
    }

    async fn list_reports(
        &self,
        merchant: &MerchantId,
        day: BusinessDay,
    ) -> Result<Vec<DayReport>, StoreError> {
        let query = sort_key_prefix_query(
            self.client(),
            self.payments_table(),
            &format!("{REPORT_PK}{merchant}"),
            &format!("{day}#"),
        );
        let mut out = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let page = query_page(&query, start.take(), None).await?;
            for item in &page.items {
                let f = Fields::new(item, "reconciliation report");
                let report: DayReport = serde_json::from_str(f.str("report")?)
                    .map_err(|_| f.corrupt("report", "is not a report"))?;
                out.push(report);
            }
            match page.next {
                Some(k) => start = Some(k),
                None => return Ok(out),
            }
        }
    }
}
