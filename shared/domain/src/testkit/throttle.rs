//! The throttling counters in memory, shared like the DynamoDB table (one double for all
//! the requests of a test), with a switch that makes every call fail.

use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Mutex,
    },
};

use async_trait::async_trait;

use crate::{
    throttle::{Counts, RateCounter, Window},
    StoreError,
};

/// One window's counts: the minute's total and each second's.
type WindowCounts = (u64, HashMap<u32, u64>);

/// Counters by window id.
#[derive(Default)]
pub struct MemoryRateCounter {
    windows: Mutex<HashMap<String, WindowCounts>>,
    failing: AtomicBool,
    calls: AtomicUsize,
}

impl MemoryRateCounter {
    pub fn new() -> Self {
        Self::default()
    }

    /// From now on every call fails (`true`) or works again (`false`).
    pub fn fail(&self, failing: bool) {
        self.failing.store(failing, Ordering::SeqCst);
    }

    /// How many requests were counted (failed calls included).
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl RateCounter for MemoryRateCounter {
    async fn hit(&self, window: &Window) -> Result<Counts, StoreError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if self.failing.load(Ordering::SeqCst) {
            return Err(StoreError::Unavailable(
                "injected: counter store down".into(),
            ));
        }
        let mut w = self.windows.lock().unwrap();
        let (minute, seconds) = w.entry(window.id.clone()).or_default();
        *minute += 1;
        let second = seconds.entry(window.second).or_default();
        *second += 1;
        Ok(Counts {
            second: *second,
            minute: *minute,
        })
    }
}

/// Every metric emitted, in order.
#[derive(Default)]
pub struct RecordingMetrics(Mutex<Vec<crate::metrics::Metric>>);

impl RecordingMetrics {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn all(&self) -> Vec<crate::metrics::Metric> {
        self.0.lock().unwrap().clone()
    }
}

impl crate::metrics::Metrics for RecordingMetrics {
    fn emit(&self, metric: crate::metrics::Metric) {
        self.0.lock().unwrap().push(metric);
    }
}
