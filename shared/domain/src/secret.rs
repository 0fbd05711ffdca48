//! Webhook signing secrets: the stored document and the rotation rule, and the port of the
//! vault that keeps them.
//!
//! One secret per endpoint, its value a JSON document:
//! `{"current": "whsec_…", "previous": [{"secret": "whsec_…", "expiresAt": "<ISO 8601>"}]}`.
//! During a rotation's grace period the previous secret still signs (a second `v1=`). At
//! most [`MAX_PREVIOUS_SECRETS`] previous secrets are kept, the newest: rotating again and
//! again inside the grace period neither keeps every old secret alive nor grows the
//! signature header without end.
//! Secret values never reach a log: errors carry the secret's id only.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::{StoreError, Timestamp};

/// How many previous (rotated-out) secrets still sign at most: a rotation drops the oldest
/// beyond it, expired or not.
pub const MAX_PREVIOUS_SECRETS: usize = 2;

/// The stored document.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretDoc {
    pub current: String,
    #[serde(default)]
    pub previous: Vec<PreviousSecret>,
    /// The rotation this document is the result of (the endpoint's `secret_version` once
    /// the rotation is complete; 0 at creation).
    #[serde(default)]
    pub version: u64,
}

#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreviousSecret {
    pub secret: String,
    pub expires_at: Timestamp,
}

impl std::fmt::Debug for SecretDoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretDoc")
            .field("current", &"[redacted]")
            .field("previous", &self.previous.len())
            .field("version", &self.version)
            .finish()
    }
}

impl SecretDoc {
    /// The secrets that sign at `now`: the current one, then unexpired previous ones, at
    /// most [`MAX_PREVIOUS_SECRETS`] (the newest first, as rotations store them; a document
    /// written before the cap holds more).
    pub fn valid_at(&self, now: Timestamp) -> Vec<String> {
        let mut v = vec![self.current.clone()];
        v.extend(
            self.previous
                .iter()
                .filter(|p| p.expires_at > now)
                .take(MAX_PREVIOUS_SECRETS)
                .map(|p| p.secret.clone()),
        );
        v
    }

    /// The document after rotating to `new` (as rotation `version`): the old current secret
    /// keeps signing until `now + grace` (not at all with a zero grace); expired ones are
    /// dropped, and so are the oldest beyond [`MAX_PREVIOUS_SECRETS`].
    pub fn rotated(&self, new: String, version: u64, now: Timestamp, grace_ms: i64) -> Self {
        let mut previous: Vec<PreviousSecret> = self
            .previous
            .iter()
            .filter(|p| p.expires_at > now)
            .cloned()
            .collect();
        if grace_ms > 0 {
            previous.insert(
                0,
                PreviousSecret {
                    secret: self.current.clone(),
                    expires_at: now.plus_millis(grace_ms),
                },
            );
        }
        previous.truncate(MAX_PREVIOUS_SECRETS);
        Self {
            current: new,
            previous,
            version,
        }
    }
}

/// Where signing secrets are kept (the admin API's writes; the deliver function reads
/// through [`crate::ports::SigningSecrets`]). Values never reach a log or an error.
#[async_trait]
pub trait SecretVault: Send + Sync {
    /// Creates the secret; returns the id to store on the endpoint.
    async fn create_secret(&self, name: &str, doc: &SecretDoc) -> Result<String, StoreError>;
    async fn read_secret(&self, id: &str) -> Result<SecretDoc, StoreError>;
    async fn put_secret(&self, id: &str, doc: &SecretDoc) -> Result<(), StoreError>;
    async fn delete_secret(&self, id: &str) -> Result<(), StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: Timestamp = Timestamp::from_unix_millis(1_795_251_600_000);

    #[test]
    fn rotation_keeps_the_old_secret_for_the_grace_period_only() {
        let doc = SecretDoc {
            current: "whsec_a".into(),
            previous: vec![],
            version: 0,
        };
        let r = doc.rotated("whsec_b".into(), 1, T0, 86_400_000);
        assert_eq!(r.valid_at(T0), ["whsec_b", "whsec_a"]);
        assert_eq!(r.valid_at(T0.plus_millis(86_400_001)), ["whsec_b"]);
        let now = doc.rotated("whsec_c".into(), 1, T0, 0);
        assert_eq!(now.valid_at(T0), ["whsec_c"]);
    }

    #[test]
    fn rotating_again_and_again_keeps_only_the_newest_previous_secrets() {
        // GIVEN five rotations a minute apart, each with a day of grace
        let mut doc = SecretDoc {
            current: "whsec_0".into(),
            previous: vec![],
            version: 0,
        };
        for i in 1..=5u64 {
            let at = T0.plus_millis(i64::try_from(i).unwrap() * 60_000);
            doc = doc.rotated(format!("whsec_{i}"), i, at, 86_400_000);
            assert!(doc.previous.len() <= MAX_PREVIOUS_SECRETS);
        }
        // THEN the current secret and the two before it sign; the older three are gone
        let now = T0.plus_millis(6 * 60_000);
        assert_eq!(doc.valid_at(now), ["whsec_5", "whsec_4", "whsec_3"]);
        assert_eq!(doc.previous.len(), 2);
        // AND a document stored before the cap signs with its newest two only
        let old = SecretDoc {
            current: "whsec_c".into(),
            previous: ["whsec_p1", "whsec_p2", "whsec_p3"]
                .into_iter()
                .map(|s| PreviousSecret {
                    secret: s.into(),
                    expires_at: T0.plus_millis(1_000),
                })
                .collect(),
            version: 3,
        };
        assert_eq!(old.valid_at(T0), ["whsec_c", "whsec_p1", "whsec_p2"]);
    }

    #[test]
    fn debug_never_shows_secrets() {
        let doc = SecretDoc {
            current: "whsec_topsecret".into(),
            previous: vec![],
            version: 0,
        };
        assert!(!format!("{doc:?}").contains("topsecret"));
    }
}
