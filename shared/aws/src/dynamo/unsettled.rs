//! The reconciler's work list: the sparse `unsettled` index of the payments table
//! ([`UnsettledPayments`]). A payment is in it while it needs settling; every write of the
//! payment recomputes its due time, and the reconciler defers it after a try that did not
//! settle it without touching the payment itself.
//!
//! The index holds no entry of its own: it is the payment item's `unsettledShard` and
//! `reconcileAt` attributes, so a settled payment (written without them) or a deleted one
//! leaves it with the item, and there is never anything to remove. A deferral is
//! conditional on the item (its version and shard), so it can never recreate a deleted
//! payment as a stub.

use async_trait::async_trait;
use paygate_domain::{
    ports::{DuePayment, Listing, UnsettledPayments},
    Payment, StoreError, Timestamp,
};

use crate::dynamo::{
    item::{attrs, n, s, t, undecodable, Fields, Item},
    payment_item::{attr, decode_payment, PAYMENT_SK, UNSETTLED_SHARDS},
    payments::DynamoPayments,
    read::query_page,
    schema::UNSETTLED_INDEX,
    write::conditional,
};

fn decode_due(item: &Item) -> Result<(Timestamp, DuePayment), StoreError> {
    let f = Fields::new(item, "payment");
    let at = f.time(attr::RECONCILE_AT)?;
    let tries = if f.has(attr::RECONCILE_TRIES) {
        u32::try_from(f.u64(attr::RECONCILE_TRIES)?).unwrap_or(u32::MAX)
    } else {
        0
    };
    Ok((
        at,
        DuePayment {
            payment: decode_payment(item)?,
            tries,
        },
    ))
}

#[async_trait]
impl UnsettledPayments for DynamoPayments {
    /// An item that does not decode is skipped and reported (it stays in the index, and in
    /// every run's report, until someone repairs it); it takes no place in `limit`.
    async fn list_due(
        &self,
        now: Timestamp,
        limit: usize,
    ) -> Result<Listing<DuePayment>, StoreError> {
        let mut found = Vec::new();
        let mut skipped = Vec::new();
        for shard in 0..UNSETTLED_SHARDS {
            let query = self
                .client()
                .query()
                .table_name(self.payments_table())
                .index_name(UNSETTLED_INDEX.name)
                .key_condition_expression("#shard = :shard AND #at <= :now")
                .set_expression_attribute_names(Some(attrs(&[
                    ("#shard", attr::UNSETTLED_SHARD.to_owned()),
                    ("#at", attr::RECONCILE_AT.to_owned()),
                ])))
                .set_expression_attribute_values(Some(attrs(&[
                    (":shard", s(shard.to_string())),
                    (":now", t(now)),
                ])))
                .scan_index_forward(true);
            let mut start: Option<Item> = None;
            let mut taken = 0;
            while taken < limit {
                let page = query_page(&query, start.take(), Some(limit - taken)).await?;
                for item in &page.items {
                    match decode_due(item) {
                        Ok(due) => {
                            found.push(due);
                            taken += 1;
                        }
                        Err(e) => skipped.push(undecodable(item, attr::PK, &e)),
                    }
                }
                match page.next {
                    Some(k) => start = Some(k),
                    None => break,
                }
            }
        }
        found.sort_by(|a, b| (a.0, &a.1.payment.id).cmp(&(b.0, &b.1.payment.id)));
        found.truncate(limit);
        Ok(Listing {
            items: found.into_iter().map(|(_, d)| d).collect(),
            undecodable: skipped,
        })
    }

    async fn defer(
        &self,
        payment: &Payment,
        tries: u32,
        next_at: Timestamp,
    ) -> Result<bool, StoreError> {
        let res = self
            .client()
            .update_item()
            .table_name(self.payments_table())
            .key(attr::PK, s(payment.id.as_str()))
            .key(attr::SK, s(PAYMENT_SK))
            .update_expression("SET #at = :at, #tries = :tries")
            .condition_expression("#version = :version AND attribute_exists(#shard)")
            .set_expression_attribute_names(Some(attrs(&[
                ("#at", attr::RECONCILE_AT.to_owned()),
                ("#tries", attr::RECONCILE_TRIES.to_owned()),
                ("#version", attr::VERSION.to_owned()),
                ("#shard", attr::UNSETTLED_SHARD.to_owned()),
            ])))
            .set_expression_attribute_values(Some(attrs(&[
                (":at", t(next_at)),
                (":tries", n(tries)),
                (":version", n(payment.version)),
            ])))
            .send()
            .await;
        Ok(conditional("UpdateItem", res)?.is_some())
    }
}
