//! The one in-process TTL cache of the Secrets Manager adapters (signing secrets, bank
//! credentials): an entry is reused for `ttl`, then read again; a write drops it.

use std::{
    borrow::Borrow,
    collections::HashMap,
    hash::Hash,
    sync::Mutex,
    time::{Duration, Instant},
};

/// Values by key, each kept for `ttl` after it was read (zero: never reused).
pub struct TtlCache<K, V> {
    ttl: Duration,
    entries: Mutex<HashMap<K, (Instant, V)>>,
}

impl<K: Eq + Hash, V: Clone> TtlCache<K, V> {
    pub fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The cached value, if read less than `ttl` ago.
    pub fn get<Q: Hash + Eq + ?Sized>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.entries.lock().ok().and_then(|c| {
            c.get(key)
                .filter(|(at, _)| at.elapsed() < self.ttl)
                .map(|(_, v)| v.clone())
        })
    }

    pub fn insert(&self, key: K, value: V) {
        if let Ok(mut c) = self.entries.lock() {
            c.insert(key, (Instant::now(), value));
        }
    }

    pub fn remove<Q: Hash + Eq + ?Sized>(&self, key: &Q)
    where
        K: Borrow<Q>,
    {
        if let Ok(mut c) = self.entries.lock() {
            c.remove(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_expire_after_the_ttl_and_a_zero_ttl_never_reuses() {
        let c = TtlCache::new(Duration::from_secs(60));
        c.insert("a", 1);
        assert_eq!(c.get(&"a"), Some(1));
        c.remove(&"a");
        assert_eq!(c.get(&"a"), None);
        let z = TtlCache::new(Duration::ZERO);
        z.insert("a", 1);
        assert_eq!(z.get(&"a"), None);
    }
}
