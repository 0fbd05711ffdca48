//! The in-memory store of simulator orders (the state and its port: `paygate_domain::sim_ledger`).

use std::{collections::HashMap, sync::Mutex};

use async_trait::async_trait;
pub use paygate_domain::sim_ledger::{SimLedger, SimOrder, SimOrderState, SimTxn};
use paygate_domain::{AccountId, StoreError};

/// In-memory ledger for unit tests.
#[derive(Default)]
pub struct MemoryLedger {
    orders: Mutex<HashMap<(String, String), SimOrder>>,
}

#[async_trait]
impl SimLedger for MemoryLedger {
    async fn load(
        &self,
        account: &AccountId,
        order_id: &str,
    ) -> Result<Option<SimOrder>, StoreError> {
        let map = self
            .orders
            .lock()
            .map_err(|_| StoreError::Unavailable("poisoned".into()))?;
        Ok(map
            .get(&(account.to_string(), order_id.to_owned()))
            .cloned())
    }

    async fn store(&self, order: &SimOrder) -> Result<(), StoreError> {
        let mut map = self
            .orders
            .lock()
            .map_err(|_| StoreError::Unavailable("poisoned".into()))?;
        let key = (order.account_id.to_string(), order.order_id.clone());
        let stored = map.get(&key).map(|o| o.version).unwrap_or(0);
        if stored + 1 != order.version {
            return Err(StoreError::Conflict { current: None });
        }
        map.insert(key, order.clone());
        Ok(())
    }
}
