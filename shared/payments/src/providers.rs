//! The provider registry: provider code → adapter. Adding a protocol is one `register` line
//! in the composition root.

use std::{collections::HashMap, sync::Arc};

use paygate_domain::{ports::PosProvider, Operation, OperationSet, PosAccount};

#[derive(Default, Clone)]
pub struct Providers(HashMap<&'static str, Arc<dyn PosProvider>>);

impl Providers {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn register(mut self, provider: Arc<dyn PosProvider>) -> Self {
        self.0.insert(provider.code(), provider);
        self
    }

    pub fn get(&self, code: &str) -> Option<&Arc<dyn PosProvider>> {
        self.0.get(code)
    }

    /// What `account` can do: what the bank enabled for it and its provider speaks.
    pub fn support(&self, account: &PosAccount) -> OperationSet {
        self.get(&account.provider_code)
            .map(|p| account.effective_support(&p.supported()))
            .unwrap_or_default()
    }

    pub fn supports(&self, account: &PosAccount, op: Operation) -> bool {
        self.support(account).contains(op)
    }
}
