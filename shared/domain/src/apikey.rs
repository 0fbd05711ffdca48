//! API key lifecycle, decided in pure code: issue (the secret shown once), roll (the old key
//! keeps working until its expiry), revoke (at once), and whether a key may be used.
//!
//! A key is `sk_test_…`/`sk_live_…`; only its SHA-256 is stored, with the key's public
//! metadata (id `key_…`, mode, name, last four characters, times). The authorizer looks keys
//! up by hash ([`crate::ports::ApiKeyLookup`]) and refuses a revoked or expired one.

use serde::{Deserialize, Serialize};

use crate::{account::Mode, ids::ApiKeyId, ids::MerchantId, time::Timestamp, ApiKeyRecord};

/// Longest key name.
pub const MAX_NAME_CHARS: usize = 100;
/// How long the old key of a roll keeps working when the request names nothing: 24 h.
pub const DEFAULT_ROLL_EXPIRY_HOURS: i64 = 24;
/// The longest a rolled key may keep working: 7 days.
pub const MAX_ROLL_EXPIRY_HOURS: i64 = 168;
/// `lastUsedAt` is written at most once per this interval per key (best effort).
pub const TOUCH_INTERVAL_MS: i64 = 60_000;

/// A key's state at some moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyStatus {
    /// Usable, no expiry.
    Active,
    /// Usable until `expiresAt` (rolled).
    Expiring,
    /// `expiresAt` has passed.
    Expired,
    /// Revoked: refused at once.
    Revoked,
}

impl KeyStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Expiring => "expiring",
            Self::Expired => "expired",
            Self::Revoked => "revoked",
        }
    }

    /// Whether a key in this state authenticates.
    pub fn usable(self) -> bool {
        matches!(self, Self::Active | Self::Expiring)
    }
}

/// A merchant's API key as stored (never the key itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiKey {
    pub id: ApiKeyId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    #[serde(default)]
    pub name: String,
    /// The key's last four characters (shown to tell keys apart).
    pub last4: String,
    pub created_at: Timestamp,
    /// Set by a roll: the key stops working at this time.
    pub expires_at: Option<Timestamp>,
    pub last_used_at: Option<Timestamp>,
    /// Set by a revoke: the key stopped working then.
    pub revoked_at: Option<Timestamp>,
}

/// Whether a key with these times authenticates at `now`.
fn status_of(revoked: bool, expires_at: Option<Timestamp>, now: Timestamp) -> KeyStatus {
    if revoked {
        KeyStatus::Revoked
    } else {
        match expires_at {
            None => KeyStatus::Active,
            Some(e) if now < e => KeyStatus::Expiring,
            Some(_) => KeyStatus::Expired,
        }
    }
}

impl ApiKey {
    pub fn status(&self, now: Timestamp) -> KeyStatus {
        status_of(self.revoked_at.is_some(), self.expires_at, now)
    }

    /// What the authorizer reads.
    pub fn record(&self) -> ApiKeyRecord {
        ApiKeyRecord {
            key_id: self.id.clone(),
            merchant_id: self.merchant_id.clone(),
            mode: self.mode,
            active: self.revoked_at.is_none(),
            expires_at: self.expires_at,
            last_used_at: self.last_used_at,
        }
    }

    /// The expiry a roll at `now` with `hours` gives this key: `now + hours`. Only an
    /// active key rolls: a revoked or expired one is [`RollRefusal::Inactive`], and one
    /// already rolled (expiring) is [`RollRefusal::AlreadyRolled`], so rolling one key again
    /// and again cannot mint a key each time (a new key is issued, and counted, instead).
    pub fn roll_expiry(&self, now: Timestamp, hours: i64) -> Result<Timestamp, RollRefusal> {
        match self.status(now) {
            KeyStatus::Active => Ok(now.plus_millis(hours * 3_600_000)),
            KeyStatus::Expiring => Err(RollRefusal::AlreadyRolled),
            KeyStatus::Expired | KeyStatus::Revoked => Err(RollRefusal::Inactive),
        }
    }
}

/// Why a key cannot be rolled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RollRefusal {
    /// Revoked or expired.
    Inactive,
    /// Rolled already: it is expiring and has its successor.
    AlreadyRolled,
}

impl ApiKeyRecord {
    /// Whether the key authenticates at `now`: not revoked, not past its expiry.
    pub fn usable(&self, now: Timestamp) -> bool {
        status_of(!self.active, self.expires_at, now).usable()
    }

    /// Whether `lastUsedAt` is stale enough at `now` to be written again.
    pub fn needs_touch(&self, now: Timestamp) -> bool {
        self.last_used_at
            .is_none_or(|t| now.unix_millis() - t.unix_millis() >= TOUCH_INTERVAL_MS)
    }
}

/// `expiresInHours` of a roll: absent → 24; 1 to 168.
pub fn roll_hours(requested: Option<i64>) -> Option<i64> {
    match requested {
        None => Some(DEFAULT_ROLL_EXPIRY_HOURS),
        Some(h) if (1..=MAX_ROLL_EXPIRY_HOURS).contains(&h) => Some(h),
        Some(_) => None,
    }
}

/// The prefix of a key of `mode`.
pub fn key_prefix(mode: Mode) -> &'static str {
    match mode {
        Mode::Test => "sk_test_",
        Mode::Live => "sk_live_",
    }
}

/// A key of `mode` from random bytes: the prefix and the bytes in lowercase hex.
pub fn key_from_bytes(mode: Mode, bytes: &[u8]) -> String {
    let mut out = String::from(key_prefix(mode));
    for b in bytes {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The last four characters of a key.
pub fn last4(key: &str) -> String {
    let chars: Vec<char> = key.chars().collect();
    chars[chars.len().saturating_sub(4)..].iter().collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const T0: Timestamp = Timestamp::from_unix_millis(1_795_251_600_000);
    const HOUR: i64 = 3_600_000;

    fn key() -> ApiKey {
        ApiKey {
            id: ApiKeyId::parse("key_1").unwrap(),
            merchant_id: MerchantId::parse("mch_1").unwrap(),
            mode: Mode::Test,
            name: String::new(),
            last4: "abcd".into(),
            created_at: T0,
            expires_at: None,
            last_used_at: None,
            revoked_at: None,
        }
    }

    #[test]
    fn status_follows_expiry_and_revocation() {
        let mut k = key();
        assert_eq!(k.status(T0), KeyStatus::Active);
        k.expires_at = Some(T0.plus_millis(HOUR));
        assert_eq!(k.status(T0), KeyStatus::Expiring);
        assert!(k.record().usable(T0.plus_millis(HOUR - 1)));
        assert_eq!(k.status(T0.plus_millis(HOUR)), KeyStatus::Expired);
        assert!(!k.record().usable(T0.plus_millis(HOUR)));
        k.revoked_at = Some(T0);
        assert_eq!(k.status(T0), KeyStatus::Revoked);
        assert!(!k.record().usable(T0));
        assert!(!k.record().active);
    }

    #[test]
    fn only_an_active_key_rolls_and_only_once() {
        let mut k = key();
        assert_eq!(k.roll_expiry(T0, 24), Ok(T0.plus_millis(24 * HOUR)));
        k.expires_at = Some(T0.plus_millis(2 * HOUR));
        assert_eq!(k.roll_expiry(T0, 1), Err(RollRefusal::AlreadyRolled));
        assert_eq!(
            k.roll_expiry(T0.plus_millis(2 * HOUR), 1),
            Err(RollRefusal::Inactive)
        );
        k.expires_at = None;
        k.revoked_at = Some(T0);
        assert_eq!(k.roll_expiry(T0, 1), Err(RollRefusal::Inactive));
    }

    #[test]
    fn roll_hours_default_and_bounds() {
        assert_eq!(roll_hours(None), Some(24));
        assert_eq!(roll_hours(Some(1)), Some(1));
        assert_eq!(roll_hours(Some(168)), Some(168));
        assert_eq!(roll_hours(Some(0)), None);
        assert_eq!(roll_hours(Some(169)), None);
        assert_eq!(roll_hours(Some(-5)), None);
    }

    #[test]
    fn touch_at_most_once_a_minute() {
        let mut r = key().record();
        assert!(r.needs_touch(T0));
        r.last_used_at = Some(T0);
        assert!(!r.needs_touch(T0.plus_millis(TOUCH_INTERVAL_MS - 1)));
        assert!(r.needs_touch(T0.plus_millis(TOUCH_INTERVAL_MS)));
    }

    #[test]
    fn keys_have_their_mode_prefix_and_last_four() {
        let k = key_from_bytes(Mode::Live, &[0xab, 0x01, 0xff]);
        assert_eq!(k, "sk_live_ab01ff");
        assert_eq!(last4(&k), "01ff");
        assert_eq!(last4("ab"), "ab");
        assert!(key_from_bytes(Mode::Test, &[]).starts_with("sk_test_"));
    }

    proptest! {
        /// A key is usable exactly while it is neither revoked nor past its expiry, and the
        /// record the authorizer reads agrees with the admin view.
        #[test]
        fn record_and_status_agree(exp in proptest::option::of(-1_000i64..1_000), revoked in any::<bool>(), now in -2_000i64..2_000) {
            let mut k = key();
            k.expires_at = exp.map(|e| T0.plus_millis(e));
            k.revoked_at = revoked.then_some(T0);
            let now = T0.plus_millis(now);
            let expect = !revoked && k.expires_at.is_none_or(|e| now < e);
            prop_assert_eq!(k.status(now).usable(), expect);
            prop_assert_eq!(k.record().usable(now), expect);
        }
    }
}
