//! [`MemoryIdempotency`]: idempotency records in memory, under the same conditions as the
//! DynamoDB adapter (the domain's [`takeable`] and the lock's owner), with fault injection.

use std::{
    collections::{HashMap, VecDeque},
    sync::Mutex,
};

use crate::{
    idempotency::{
        claimable, takeable, BeginOutcome, Binding, IdempotencyRecord, IdempotencyStore, KeyAnswer,
        KeyClaim, RecordState, ScopedKey, StoredResponse,
    },
    PaymentId, StoreError, Timestamp, TransactionId,
};
use async_trait::async_trait;

/// A store call, to inject a fault into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IdemOp {
    Begin,
    Get,
    Complete,
    Release,
}

/// What an injected fault does to the next call of its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdemFault {
    /// The store cannot be reached: nothing is written, the call fails.
    Unavailable,
    /// The write is applied, then its answer is lost: the call fails.
    LostAnswer,
    /// The write's condition fails as if the record had changed under it (another request
    /// took the key over): nothing is written.
    ConditionFailed,
}

/// Idempotency records in memory.
#[derive(Default)]
pub struct MemoryIdempotency {
    records: Mutex<HashMap<String, IdempotencyRecord>>,
    faults: Mutex<HashMap<IdemOp, VecDeque<IdemFault>>>,
    calls: Mutex<HashMap<IdemOp, usize>>,
}

impl MemoryIdempotency {
    /// The record under `key`, as stored (expired or not).
    pub fn record(&self, key: &ScopedKey) -> Option<IdempotencyRecord> {
        self.records
            .lock()
            .unwrap()
            .get(&key.storage_key())
            .cloned()
    }

    /// Every stored record.
    pub fn records(&self) -> Vec<IdempotencyRecord> {
        self.records.lock().unwrap().values().cloned().collect()
    }

    /// Stores a record as it is (e.g. a lock left by a Lambda that died).
    pub fn insert(&self, record: IdempotencyRecord) {
        self.records
            .lock()
            .unwrap()
            .insert(record.key.storage_key(), record);
    }

    /// The next call of `op` suffers `fault` (faults queue up per call kind).
    pub fn inject(&self, op: IdemOp, fault: IdemFault) {
        self.faults
            .lock()
            .unwrap()
            .entry(op)
            .or_default()
            .push_back(fault);
    }

    /// How many calls of `op` were made.
    pub fn calls(&self, op: IdemOp) -> usize {
        self.calls.lock().unwrap().get(&op).copied().unwrap_or(0)
    }

    /// Binds `claim`'s key to a reserved transaction if [`claimable`]; the in-memory
    /// payments store calls it inside its own write, so both apply or neither.
    pub(crate) fn bind(
        &self,
        claim: &KeyClaim,
        payment_id: &PaymentId,
        transaction_id: &TransactionId,
    ) -> bool {
        let mut records = self.records.lock().unwrap();
        let storage_key = claim.key.storage_key();
        if !claimable(records.get(&storage_key), claim) {
            return false;
        }
        if let Some(r) = records.get_mut(&storage_key) {
            r.bound = Some(Binding {
                payment_id: payment_id.clone(),
                transaction_id: transaction_id.clone(),
            });
        }
        true
    }

    /// Stores `answer` on its key if the record is in flight and bound to its transaction;
    /// the in-memory payments store calls it inside its own write (an operation's commit),
    /// so both apply or neither. Not a call of the store's own (not counted).
    pub(crate) fn answer_bound(&self, answer: &KeyAnswer) -> bool {
        let mut records = self.records.lock().unwrap();
        match records.get_mut(&answer.key.storage_key()) {
            Some(r)
                if matches!(r.state, RecordState::InFlight { .. })
                    && r.bound
                        .as_ref()
                        .is_some_and(|b| b.transaction_id == answer.transaction_id) =>
            {
                r.state = RecordState::Completed {
                    owner: r.owner().to_owned(),
                    response: answer.response.clone(),
                };
                true
            }
            _ => false,
        }
    }

    /// Whether `answer` could be stored now ([`Self::answer_bound`]'s condition).
    pub(crate) fn answerable(&self, answer: &KeyAnswer) -> bool {
        let records = self.records.lock().unwrap();
        records.get(&answer.key.storage_key()).is_some_and(|r| {
            matches!(r.state, RecordState::InFlight { .. })
                && r.bound
                    .as_ref()
                    .is_some_and(|b| b.transaction_id == answer.transaction_id)
        })
    }

    fn enter(&self, op: IdemOp) -> Option<IdemFault> {
        *self.calls.lock().unwrap().entry(op).or_default() += 1;
        self.faults
            .lock()
            .unwrap()
            .get_mut(&op)
            .and_then(VecDeque::pop_front)
    }
}

fn unavailable(what: &str) -> StoreError {
    StoreError::Unavailable(format!("injected: {what}"))
}

/// Runs a conditional write: `apply` returns whether the condition held (and wrote).
fn faulted(
    fault: Option<IdemFault>,
    op: &str,
    apply: impl FnOnce() -> bool,
) -> Result<bool, StoreError> {
    match fault {
        Some(IdemFault::Unavailable) => Err(unavailable(op)),
        Some(IdemFault::ConditionFailed) => Ok(false),
        Some(IdemFault::LostAnswer) => {
            apply();
            Err(unavailable(op))
        }
        None => Ok(apply()),
    }
}

#[async_trait]
impl IdempotencyStore for MemoryIdempotency {
    async fn begin(
        &self,
        lock: &IdempotencyRecord,
        now: Timestamp,
    ) -> Result<BeginOutcome, StoreError> {
        let fault = self.enter(IdemOp::Begin);
        let storage_key = lock.key.storage_key();
        let written = faulted(fault, "begin", || {
            let mut records = self.records.lock().unwrap();
            let ok = takeable(records.get(&storage_key), &lock.fingerprint, now);
            if ok {
                records.insert(storage_key.clone(), lock.clone());
            }
            ok
        })?;
        if written {
            return Ok(BeginOutcome::Acquired);
        }
        match self.records.lock().unwrap().get(&storage_key) {
            Some(r) => Ok(BeginOutcome::Existing(r.clone())),
            None => Err(unavailable("begin: condition failed on a missing record")),
        }
    }

    async fn get(&self, key: &ScopedKey) -> Result<Option<IdempotencyRecord>, StoreError> {
        match self.enter(IdemOp::Get) {
            Some(IdemFault::Unavailable | IdemFault::LostAnswer) => Err(unavailable("get")),
            _ => Ok(self.record(key)),
        }
    }

    async fn complete(
        &self,
        key: &ScopedKey,
        owner: &str,
        response: &StoredResponse,
    ) -> Result<bool, StoreError> {
        let fault = self.enter(IdemOp::Complete);
        faulted(fault, "complete", || {
            let mut records = self.records.lock().unwrap();
            match records.get_mut(&key.storage_key()) {
                Some(r) if r.owner() == owner => {
                    r.state = RecordState::Completed {
                        owner: owner.to_owned(),
                        response: response.clone(),
                    };
                    true
                }
                _ => false,
            }
        })
    }

    async fn release(&self, key: &ScopedKey, owner: &str) -> Result<bool, StoreError> {
        let fault = self.enter(IdemOp::Release);
        faulted(fault, "release", || {
            let mut records = self.records.lock().unwrap();
            let storage_key = key.storage_key();
            let ours = records.get(&storage_key).is_some_and(|r| {
                r.owner() == owner
                    && matches!(r.state, RecordState::InFlight { .. })
                    && r.bound.is_none()
            });
            if ours {
                records.remove(&storage_key);
            }
            ours
        })
    }

    async fn complete_bound(
        &self,
        key: &ScopedKey,
        transaction: &TransactionId,
        response: &StoredResponse,
    ) -> Result<bool, StoreError> {
        let fault = self.enter(IdemOp::Complete);
        faulted(fault, "complete_bound", || {
            let mut records = self.records.lock().unwrap();
            match records.get_mut(&key.storage_key()) {
                Some(r)
                    if matches!(r.state, RecordState::InFlight { .. })
                        && r.bound
                            .as_ref()
                            .is_some_and(|b| &b.transaction_id == transaction) =>
                {
                    r.state = RecordState::Completed {
                        owner: r.owner().to_owned(),
                        response: response.clone(),
                    };
                    true
                }
                _ => false,
            }
        })
    }
}
