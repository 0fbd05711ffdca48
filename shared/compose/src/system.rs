//! The production clock and id generator: the only places that read the system clock or
//! the OS random source.

use paygate_domain::{
    ports::{Clock, IdGenerator},
    Timestamp,
};

/// The system clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    #[allow(clippy::disallowed_methods)] // the one allowed use
    fn now(&self) -> Timestamp {
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0);
        Timestamp::from_unix_millis(ms)
    }
}

/// 128 random bits from the OS, as 26 base-32 characters (lowercase letters and digits).
#[derive(Debug, Default, Clone, Copy)]
pub struct RandomIds;

const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

impl IdGenerator for RandomIds {
    fn opaque(&self) -> String {
        let mut bytes = [0u8; 16];
        // getrandom only fails when the OS has no entropy source at all; there is nothing
        // sensible to do then but stop.
        #[allow(clippy::expect_used)]
        getrandom::fill(&mut bytes).expect("OS random source unavailable");
        let mut n = u128::from_be_bytes(bytes);
        let mut out = Vec::with_capacity(26);
        for _ in 0..26 {
            out.push(ALPHABET[(n & 31) as usize]);
            n >>= 5;
        }
        String::from_utf8(out).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn random_ids_are_valid_and_distinct() {
        let ids: HashSet<String> = (0..1000).map(|_| RandomIds.opaque()).collect();
        assert_eq!(ids.len(), 1000);
        for id in ids {
            assert_eq!(id.len(), 26);
            assert!(paygate_domain::PaymentId::parse(&format!("pay_{id}")).is_ok());
        }
    }
}
