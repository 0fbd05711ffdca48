//! The audit trail in memory, append-only like the DynamoDB adapter, with a failure switch.

use std::{
    collections::BTreeMap,
    sync::{
        atomic::{AtomicBool, Ordering},
        Mutex,
    },
};

use async_trait::async_trait;

use crate::{
    audit::{entry_of_cursor, invalid_cursor, merge, page_of, AuditItem, AuditLog, AuditRecord},
    ports::Page,
    MerchantId, StoreError,
};

/// Audit items by merchant and sort key.
#[derive(Default)]
pub struct MemoryAudit {
    items: Mutex<BTreeMap<(String, String), AuditItem>>,
    /// Appends fail (the store is down) while set.
    failing: AtomicBool,
}

impl MemoryAudit {
    /// Makes every append fail (`true`) or succeed again.
    pub fn fail_appends(&self, on: bool) {
        self.failing.store(on, Ordering::SeqCst);
    }

    /// Every stored item, oldest first.
    pub fn items(&self) -> Vec<AuditItem> {
        self.items.lock().unwrap().values().cloned().collect()
    }

    /// Every record of every merchant, newest first.
    pub fn records(&self) -> Vec<AuditRecord> {
        let mut items = self.items();
        items.sort_by_key(|i| std::cmp::Reverse(i.sort_key()));
        merge(&items)
    }
}

#[async_trait]
impl AuditLog for MemoryAudit {
    async fn append(&self, item: &AuditItem) -> Result<(), StoreError> {
        if self.failing.load(Ordering::SeqCst) {
            return Err(StoreError::Unavailable("audit store down".into()));
        }
        let key = (item.merchant_id.as_str().to_owned(), item.sort_key());
        let mut items = self.items.lock().unwrap();
        if items.contains_key(&key) {
            return Err(StoreError::AlreadyExists);
        }
        items.insert(key, item.clone());
        Ok(())
    }

    async fn list(
        &self,
        merchant: &MerchantId,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page<AuditRecord>, StoreError> {
        let before = match cursor {
            Some(c) => Some(entry_of_cursor(c).ok_or_else(invalid_cursor)?),
            None => None,
        };
        let items: Vec<AuditItem> = self
            .items
            .lock()
            .unwrap()
            .iter()
            .rev()
            .filter(|((m, sk), _)| {
                m == merchant.as_str() && before.as_deref().is_none_or(|b| sk.as_str() < b)
            })
            .map(|(_, i)| i.clone())
            .collect();
        Ok(page_of(merge(&items), limit))
    }
}
