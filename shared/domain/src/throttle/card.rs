//! The card a points inquiry names, as the per-card counter knows it: an HMAC-SHA256 of the
//! card number under a secret key ([`CardKey`], from Secrets Manager, loaded once per
//! function instance), never the number itself nor an unkeyed digest of it. An unkeyed
//! digest of a card number is card data under PCI DSS: the numbers of one BIN are few
//! enough to hash them all, so it identifies the card to anyone who reads the table. The
//! keyed one tells nothing without the key, which no table, log or response holds.
//!
//! The subject is `"<mode>:<hex HMAC>"` ([`card_subject`]): test inquiries never count
//! against a card's live limit.

use std::{fmt, sync::Arc};

use async_trait::async_trait;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::{error::StoreError, Mode};

/// Shortest key accepted: 32 bytes, the HMAC-SHA256 block's half, as NIST SP 800-107 asks.
pub const MIN_KEY_BYTES: usize = 32;

/// The secret key of the card counters' HMAC, ready to use. Its `Debug` shows nothing of it.
#[derive(Clone)]
pub struct CardKey(Hmac<Sha256>);

impl CardKey {
    /// A key of at least [`MIN_KEY_BYTES`] bytes.
    pub fn new(bytes: impl AsRef<[u8]>) -> Option<Self> {
        let bytes = bytes.as_ref();
        if bytes.len() < MIN_KEY_BYTES {
            return None;
        }
        Hmac::<Sha256>::new_from_slice(bytes).ok().map(Self)
    }
}

impl fmt::Debug for CardKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CardKey(..)")
    }
}

/// Where the key comes from: Secrets Manager deployed and locally. An implementation loads
/// it once and keeps it (a failed load is tried again on the next request).
#[async_trait]
pub trait CardKeySource: Send + Sync {
    async fn card_key(&self) -> Result<Arc<CardKey>, StoreError>;
}

/// A fixed key (tests).
#[async_trait]
impl CardKeySource for CardKey {
    async fn card_key(&self) -> Result<Arc<CardKey>, StoreError> {
        Ok(Arc::new(self.clone()))
    }
}

/// The per-card counter's subject for `number` in `mode`: `"<mode>:<hex HMAC-SHA256 of the
/// number under key>"`.
pub fn card_subject(key: &CardKey, mode: Mode, number: &str) -> String {
    let mut mac = key.0.clone();
    mac.update(number.as_bytes());
    let digest = mac.finalize().into_bytes();
    let mut out = String::with_capacity(5 + digest.len() * 2);
    out.push_str(mode.as_str());
    out.push(':');
    for b in digest {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    out
}

const HEX: &[u8; 16] = b"0123456789abcdef";

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_subject_is_a_keyed_hmac_of_the_number_per_mode() {
        let key = CardKey::new(*b"0123456789abcdef0123456789abcdef").unwrap();
        let pan = "4543600000000003";
        let live = card_subject(&key, Mode::Live, pan);
        let test = card_subject(&key, Mode::Test, pan);
        assert!(live.starts_with("live:") && test.starts_with("test:"));
        assert_eq!(live[5..], test[5..]);
        assert_eq!(live.len(), 5 + 64);
        assert!(!live.contains(pan));
        // Another key, another subject; another card, another subject.
        let other = CardKey::new(*b"fedcba9876543210fedcba9876543210").unwrap();
        assert_ne!(card_subject(&other, Mode::Live, pan), live);
        assert_ne!(card_subject(&key, Mode::Live, "4543600000000011"), live);
        // A known answer: `printf 'what do ya want for nothing?' | openssl dgst -sha256
        // -hmac 0123456789abcdef0123456789abcdef`.
        assert_eq!(
            card_subject(&key, Mode::Test, "what do ya want for nothing?"),
            "test:137e6557c3c13a1ca5dc7e52a389a0f86be8cb4db4ae61c62396058b00acacd0"
        );
        // Short keys are refused, and a key never shows.
        assert!(CardKey::new([7u8; 31]).is_none());
        assert_eq!(format!("{key:?}"), "CardKey(..)");
    }
}
