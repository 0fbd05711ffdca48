//! An in-memory [`SecretVault`] for handler tests (the other doubles are in
//! `paygate_domain::testkit`).

use std::{collections::HashMap, sync::Mutex};

use async_trait::async_trait;
use paygate_domain::secret::SecretDoc;
use paygate_domain::StoreError;

use crate::admin::SecretVault;

/// Secret documents by id; can be told to fail.
#[derive(Default)]
pub struct MemoryVault {
    docs: Mutex<HashMap<String, SecretDoc>>,
    failing: Mutex<bool>,
}

impl MemoryVault {
    /// The stored document, if any.
    pub fn doc(&self, id: &str) -> Option<SecretDoc> {
        self.docs.lock().ok()?.get(id).cloned()
    }

    pub fn ids(&self) -> Vec<String> {
        self.docs
            .lock()
            .map(|d| d.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Makes every call fail with `Unavailable` (or succeed again).
    pub fn set_failing(&self, failing: bool) {
        if let Ok(mut f) = self.failing.lock() {
            *f = failing;
        }
    }

    fn check(&self) -> Result<(), StoreError> {
        match self.failing.lock() {
            Ok(f) if !*f => Ok(()),
            _ => Err(StoreError::Unavailable("vault down".into())),
        }
    }

    fn with<T>(
        &self,
        f: impl FnOnce(&mut HashMap<String, SecretDoc>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.check()?;
        let mut docs = self
            .docs
            .lock()
            .map_err(|_| StoreError::Unavailable("poisoned".into()))?;
        f(&mut docs)
    }
}

#[async_trait]
impl SecretVault for MemoryVault {
    async fn create_secret(&self, name: &str, doc: &SecretDoc) -> Result<String, StoreError> {
        self.with(|d| {
            if d.contains_key(name) {
                return Err(StoreError::AlreadyExists);
            }
            d.insert(name.to_owned(), doc.clone());
            Ok(name.to_owned())
        })
    }

    async fn read_secret(&self, id: &str) -> Result<SecretDoc, StoreError> {
        self.with(|d| {
            d.get(id)
                .cloned()
                .ok_or_else(|| StoreError::Unavailable("no such secret".into()))
        })
    }

    async fn put_secret(&self, id: &str, doc: &SecretDoc) -> Result<(), StoreError> {
        self.with(|d| {
            d.insert(id.to_owned(), doc.clone());
            Ok(())
        })
    }

    async fn delete_secret(&self, id: &str) -> Result<(), StoreError> {
        self.with(|d| {
            d.remove(id);
            Ok(())
        })
    }
}
