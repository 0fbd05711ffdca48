//! Time and ids: a clock that only moves when told to, and sequential ids.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use crate::{
    ports::{Clock, IdGenerator},
    Timestamp,
};

/// A clock that only moves when told to.
pub struct ManualClock(AtomicI64);

impl ManualClock {
    pub fn at(t: Timestamp) -> Self {
        Self(AtomicI64::new(t.unix_millis()))
    }

    pub fn advance_millis(&self, ms: i64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }

    pub fn set(&self, t: Timestamp) {
        self.0.store(t.unix_millis(), Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_millis(self.0.load(Ordering::SeqCst))
    }
}

/// 2026-11-21T09:00:00Z, a Saturday morning in Istanbul.
pub const T0: Timestamp = Timestamp::from_unix_millis(1_795_251_600_000);

/// Ids `…t1`, `…t2`, … in order.
#[derive(Default)]
pub struct SeqIds(AtomicU64);

impl IdGenerator for SeqIds {
    fn opaque(&self) -> String {
        format!("t{}", self.0.fetch_add(1, Ordering::SeqCst) + 1)
    }
}
