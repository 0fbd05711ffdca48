//! Idempotent requests (`Idempotency-Key`, Stripe's semantics): the key, its record, the
//! store port, and every decision about a key taken in pure code.
//!
//! A merchant POST that carries a key is run at most once per key: the first request takes
//! a lock on the key (a record in flight, with a lease), runs, and stores its answer; a
//! later request with the same key and the same request gets that answer again, one with
//! the same key and another request is refused, one that arrives while the first still runs
//! is refused as "in use". Keys are scoped to the merchant and mode and kept for
//! [`RETENTION_MS`] after the request that took them.
//!
//! A key that started a money movement is bound to it for good: the reservation of a keyed
//! capture, cancel or refund writes the transaction's id onto the key's record in the same
//! atomic write ([`KeyClaim`], [`Binding`]). From then on the key is never released and never
//! taken over: every later request with it is answered from that transaction ([`Decision::Bound`])
//! — `409` while it is pending or unknown, its settled answer once it is settled — and never
//! plans a second movement, whatever happened to the request that started it (a lost commit,
//! a Lambda that died after the bank call, after the commit or while storing the answer).
//!
//! The store ([`IdempotencyStore`]) writes conditionally; the conditions are the functions
//! here ([`takeable`] for `begin`, the lock's owner for `complete` and `release`,
//! [`claimable`] for the binding), so the DynamoDB adapter and the in-memory fake agree by
//! construction.

use crate::error::code;
use async_trait::async_trait;

use crate::{error::StoreError, time::Timestamp, MerchantId, Mode, PaymentId, TransactionId};

/// Longest accepted key.
pub const MAX_KEY_LEN: usize = 255;

/// How long a key is kept: 24 hours after the request that took it.
pub const RETENTION_MS: i64 = 24 * 60 * 60 * 1000;

/// How long a lock holds the key while its request runs. Longer than the functions' 29 s
/// timeout: a request can no longer be running once its lease is over, so another request
/// with the same key may then take the key over (a Lambda that died never completes).
pub const LEASE_MS: i64 = 60_000;

/// The `Idempotency-Key` header's value: 1 to [`MAX_KEY_LEN`] printable ASCII characters
/// (space to `~`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(String);

/// A header value that is not a valid key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("an Idempotency-Key is 1 to 255 printable ASCII characters")]
pub struct InvalidIdempotencyKey;

impl IdempotencyKey {
    /// The key of a header value given as bytes (headers need not be UTF-8).
    pub fn parse(value: &[u8]) -> Result<Self, InvalidIdempotencyKey> {
        let printable = value.iter().all(|b| (0x20..=0x7e).contains(b));
        if value.is_empty() || value.len() > MAX_KEY_LEN || !printable {
            return Err(InvalidIdempotencyKey);
        }
        String::from_utf8(value.to_vec())
            .map(Self)
            .map_err(|_| InvalidIdempotencyKey)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A key in its scope: the same key of another merchant, or of the same merchant in the
/// other mode, is another key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ScopedKey {
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub key: IdempotencyKey,
}

impl ScopedKey {
    /// `<merchant>#<mode>#<key>`: one string per scoped key (merchant ids and modes never
    /// contain `#`, so the key may).
    pub fn storage_key(&self) -> String {
        format!(
            "{}#{}#{}",
            self.merchant_id.as_str(),
            self.mode.as_str(),
            self.key.as_str()
        )
    }
}

/// What makes two requests "the same request": a digest of method, path and body (the
/// HTTP edge computes it; it is compared, never interpreted).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Fingerprint(String);

impl Fingerprint {
    pub fn new(digest: impl Into<String>) -> Self {
        Self(digest.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The first request's answer, as sent: status and body (always JSON).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResponse {
    pub status: u16,
    pub body: String,
}

/// Where a key's request is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordState {
    /// Running, under the lock of `owner` (an opaque token of that request) until
    /// `lease_until`.
    InFlight {
        owner: String,
        lease_until: Timestamp,
    },
    /// Done; its answer is replayed to later requests. `owner` is the request that ran.
    Completed {
        owner: String,
        response: StoredResponse,
    },
}

/// The money movement a key started: the transaction its request reserved.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Binding {
    pub payment_id: PaymentId,
    pub transaction_id: TransactionId,
}

/// What a keyed request hands to its reservation so that the key is bound to the reserved
/// transaction in the same atomic write: the key, and the lock token the request holds it
/// with. The binding is written only if [`claimable`] holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyClaim {
    pub key: ScopedKey,
    pub owner: String,
}

/// A settled operation's answer for the key bound to its transaction, written in the
/// operation's commit (the same atomic write as the payment), so that the key needs no write
/// of its own. Written only while the record is in flight and bound to `transaction_id`
/// (the condition of [`IdempotencyStore::complete_bound`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyAnswer {
    pub key: ScopedKey,
    pub transaction_id: TransactionId,
    pub response: StoredResponse,
}

/// One key's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyRecord {
    pub key: ScopedKey,
    pub fingerprint: Fingerprint,
    pub created_at: Timestamp,
    /// When the record stops counting: [`expiry`] of `created_at`. DynamoDB deletes
    /// expired items lazily (up to days later), so reads must check it.
    pub expires_at: Timestamp,
    pub state: RecordState,
    /// The transaction this key's request reserved, once it has (then for good).
    pub bound: Option<Binding>,
}

impl IdempotencyRecord {
    /// The lock a request takes on `key` at `now`.
    pub fn lock(key: ScopedKey, fingerprint: Fingerprint, owner: String, now: Timestamp) -> Self {
        Self {
            key,
            fingerprint,
            created_at: now,
            expires_at: expiry(now),
            state: RecordState::InFlight {
                owner,
                lease_until: now.plus_millis(LEASE_MS),
            },
            bound: None,
        }
    }

    /// The lock's (or the finished request's) owner token.
    pub fn owner(&self) -> &str {
        match &self.state {
            RecordState::InFlight { owner, .. } | RecordState::Completed { owner, .. } => owner,
        }
    }

    /// The record no longer counts: the key is free again.
    pub fn is_expired(&self, now: Timestamp) -> bool {
        now >= self.expires_at
    }
}

/// When a record created at `created` expires: [`RETENTION_MS`] later, rounded up to a whole
/// second (the TTL attribute is in epoch seconds, and both checks must agree).
pub fn expiry(created: Timestamp) -> Timestamp {
    let ms = created.plus_millis(RETENTION_MS).unix_millis();
    let secs = ms.div_euclid(1000) + i64::from(ms.rem_euclid(1000) != 0);
    Timestamp::from_unix_millis(secs.saturating_mul(1000))
}

/// Whether a request with `fingerprint` may write its lock over `existing` at `now`: there
/// is no record, or it has expired, or it is the same request's lock whose lease is over
/// (its Lambda died or timed out) and that never reserved anything (a bound key is never
/// taken over). This is `begin`'s write condition.
pub fn takeable(
    existing: Option<&IdempotencyRecord>,
    fingerprint: &Fingerprint,
    now: Timestamp,
) -> bool {
    match existing {
        None => true,
        Some(r) if r.is_expired(now) => true,
        Some(r) => match &r.state {
            RecordState::InFlight { lease_until, .. } => {
                &r.fingerprint == fingerprint && now >= *lease_until && r.bound.is_none()
            }
            RecordState::Completed { .. } => false,
        },
    }
}

/// Whether `claim` may bind its key to a reservation: the record is still the claiming
/// request's lock (in flight, its owner) and bound to nothing yet. This is the condition of
/// the binding written with the reservation; when it fails, nothing of the reservation is
/// written either.
pub fn claimable(existing: Option<&IdempotencyRecord>, claim: &KeyClaim) -> bool {
    existing.is_some_and(|r| {
        r.bound.is_none()
            && matches!(&r.state, RecordState::InFlight { owner, .. } if *owner == claim.owner)
    })
}

/// What to do with a request whose key is held by `existing`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// The key is this request's own lock (a retried write whose first answer was lost):
    /// run.
    Owned,
    /// Answer with the first request's answer.
    Replay(StoredResponse),
    /// The key was used for another request (path or body differ).
    Mismatch,
    /// The first request is still running.
    InUse,
    /// The record no longer holds the key (expired, or a lease that is over): try to take
    /// it again.
    Retake,
    /// The key's request reserved this transaction and its answer was not stored (it is
    /// still running, or ended before storing): answer from the transaction, never run again.
    Bound(Binding),
}

/// The decision for a request with `fingerprint` whose lock token is `owner`, finding
/// `existing` on the key at `now`. A key is bound to its first request for its whole life:
/// another request is refused whether the first is done or still running.
pub fn decide(
    existing: &IdempotencyRecord,
    fingerprint: &Fingerprint,
    owner: &str,
    now: Timestamp,
) -> Decision {
    if existing.is_expired(now) {
        return Decision::Retake;
    }
    if &existing.fingerprint != fingerprint {
        return Decision::Mismatch;
    }
    if let (RecordState::InFlight { .. }, Some(bound)) = (&existing.state, &existing.bound) {
        return Decision::Bound(bound.clone());
    }
    match &existing.state {
        RecordState::InFlight { owner: o, .. } if o == owner => Decision::Owned,
        RecordState::InFlight { lease_until, .. } if now >= *lease_until => Decision::Retake,
        RecordState::InFlight { .. } => Decision::InUse,
        RecordState::Completed { response, .. } => Decision::Replay(response.clone()),
    }
}

/// Error codes of answers that say "nothing happened; retrying is safe and expected". Their
/// key is released (not stored) so the client's retry runs again — unless the request bound
/// the key to a reservation (then the store refuses the release and later requests are
/// answered from that transaction): another request was
/// modifying the payment, an earlier operation's unknown outcome must be settled first (the
/// client queries, then retries with the same key), or validation refused the request
/// before anything was read or done (like Stripe, which stores no result for a request that
/// failed validation).
pub const RELEASING_CODES: &[&str] = &[
    code::CONCURRENT_MODIFICATION,
    code::OPERATION_IN_PROGRESS,
    code::OPERATION_OUTCOME_UNKNOWN,
    code::INVALID_REQUEST,
    code::INVALID_AMOUNT,
    code::UNSUPPORTED_MEDIA_TYPE,
    code::REQUEST_TOO_LARGE,
];

/// Whether an answer is stored for replay (`true`) or its key released (`false`): every
/// answer of a request that ran is stored, except a 5xx (internal error: the client should
/// retry), a 401 (no merchant, so no scope) and the [`RELEASING_CODES`].
pub fn stores_answer(status: u16, error_code: Option<&str>) -> bool {
    if status >= 500 || status == 401 {
        return false;
    }
    !error_code.is_some_and(|c| RELEASING_CODES.contains(&c))
}

/// The outcome of taking a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BeginOutcome {
    /// The lock was written: this request runs.
    Acquired,
    /// The key is held by this record (the write's condition failed).
    Existing(IdempotencyRecord),
}

/// Idempotency records, written conditionally.
#[async_trait]
pub trait IdempotencyStore: Send + Sync {
    /// Writes `lock` (a record in flight) if [`takeable`] over the record stored under its
    /// key at `now`; otherwise returns that record.
    async fn begin(
        &self,
        lock: &IdempotencyRecord,
        now: Timestamp,
    ) -> Result<BeginOutcome, StoreError>;

    /// The record stored under `key`, expired or not (a strongly consistent read).
    async fn get(&self, key: &ScopedKey) -> Result<Option<IdempotencyRecord>, StoreError>;

    /// Stores the answer on the record, if it is still `owner`'s. `Ok(false)`: it is not
    /// (another request took the key over after the lease), nothing was written.
    async fn complete(
        &self,
        key: &ScopedKey,
        owner: &str,
        response: &StoredResponse,
    ) -> Result<bool, StoreError>;

    /// Deletes the record, if it is still `owner`'s lock and bound to nothing. `Ok(false)`:
    /// it is not (another request's, gone, or bound: a key that started a money movement is
    /// never released), nothing was deleted.
    async fn release(&self, key: &ScopedKey, owner: &str) -> Result<bool, StoreError>;

    /// Stores the settled answer of the transaction the key is bound to, whoever holds the
    /// lock now, if the record is still in flight and bound to `transaction`. `Ok(false)`:
    /// it is not (already completed, or gone), nothing was written.
    async fn complete_bound(
        &self,
        key: &ScopedKey,
        transaction: &TransactionId,
        response: &StoredResponse,
    ) -> Result<bool, StoreError>;
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const T: Timestamp = Timestamp::from_unix_millis(1_795_251_600_123);

    fn key(k: &str) -> ScopedKey {
        ScopedKey {
            merchant_id: MerchantId::parse("mch_a").unwrap(),
            mode: Mode::Test,
            key: IdempotencyKey::parse(k.as_bytes()).unwrap(),
        }
    }

    fn fp(s: &str) -> Fingerprint {
        Fingerprint::new(s)
    }

    fn completed(lock: IdempotencyRecord, status: u16) -> IdempotencyRecord {
        IdempotencyRecord {
            state: RecordState::Completed {
                owner: lock.owner().to_owned(),
                response: StoredResponse {
                    status,
                    body: "{}".into(),
                },
            },
            ..lock
        }
    }

    #[test]
    fn keys_are_1_to_255_printable_ascii_characters() {
        assert!(IdempotencyKey::parse(b"a").is_ok());
        assert!(IdempotencyKey::parse(b" ~!key with spaces~").is_ok());
        assert!(IdempotencyKey::parse("k".repeat(255).as_bytes()).is_ok());
        assert_eq!(
            IdempotencyKey::parse("k".repeat(256).as_bytes()),
            Err(InvalidIdempotencyKey)
        );
        for bad in [&b""[..], b"tab\there", b"nl\n", b"\x7f", "ü".as_bytes()] {
            assert_eq!(
                IdempotencyKey::parse(bad),
                Err(InvalidIdempotencyKey),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn the_scope_is_merchant_mode_and_key() {
        let a = key("k#1");
        let mut live = a.clone();
        live.mode = Mode::Live;
        let mut other = a.clone();
        other.merchant_id = MerchantId::parse("mch_b").unwrap();
        assert_eq!(a.storage_key(), "mch_a#test#k#1");
        assert_ne!(a.storage_key(), live.storage_key());
        assert_ne!(a.storage_key(), other.storage_key());
    }

    #[test]
    fn records_expire_24_hours_later_on_a_whole_second() {
        let exp = expiry(T);
        assert_eq!(exp.unix_millis() % 1000, 0);
        assert!(exp.unix_millis() - T.unix_millis() >= RETENTION_MS);
        assert!(exp.unix_millis() - T.unix_millis() < RETENTION_MS + 1000);
        let exact = Timestamp::from_unix_millis(1_795_251_600_000);
        assert_eq!(expiry(exact), exact.plus_millis(RETENTION_MS));
        let r = IdempotencyRecord::lock(key("k"), fp("a"), "o1".into(), T);
        assert!(!r.is_expired(exp.plus_millis(-1)));
        assert!(r.is_expired(exp));
    }

    #[test]
    fn a_key_is_takeable_when_free_expired_or_its_same_request_lease_is_over() {
        let lock = IdempotencyRecord::lock(key("k"), fp("a"), "o1".into(), T);
        assert!(takeable(None, &fp("a"), T));
        // a running request holds the key until its lease is over, for its own request only
        assert!(!takeable(
            Some(&lock),
            &fp("a"),
            T.plus_millis(LEASE_MS - 1)
        ));
        assert!(takeable(Some(&lock), &fp("a"), T.plus_millis(LEASE_MS)));
        assert!(!takeable(Some(&lock), &fp("b"), T.plus_millis(LEASE_MS)));
        // a finished request holds it until the record expires, even if not yet deleted
        let done = completed(lock, 200);
        assert!(!takeable(Some(&done), &fp("a"), T.plus_millis(LEASE_MS)));
        assert!(!takeable(
            Some(&done),
            &fp("a"),
            done.expires_at.plus_millis(-1)
        ));
        assert!(takeable(Some(&done), &fp("b"), done.expires_at));
    }

    #[test]
    fn decisions_replay_refuse_or_retake() {
        let lock = IdempotencyRecord::lock(key("k"), fp("a"), "o1".into(), T);
        let soon = T.plus_millis(1_000);
        assert_eq!(decide(&lock, &fp("a"), "o2", soon), Decision::InUse);
        assert_eq!(decide(&lock, &fp("b"), "o2", soon), Decision::Mismatch);
        assert_eq!(decide(&lock, &fp("a"), "o1", soon), Decision::Owned);
        let late = T.plus_millis(LEASE_MS);
        assert_eq!(decide(&lock, &fp("a"), "o2", late), Decision::Retake);
        assert_eq!(decide(&lock, &fp("b"), "o2", late), Decision::Mismatch);

        let done = completed(lock, 422);
        let first = Decision::Replay(StoredResponse {
            status: 422,
            body: "{}".into(),
        });
        assert_eq!(decide(&done, &fp("a"), "o2", soon), first);
        assert_eq!(decide(&done, &fp("a"), "o1", soon), first);
        assert_eq!(decide(&done, &fp("b"), "o2", soon), Decision::Mismatch);
        assert_eq!(
            decide(&done, &fp("b"), "o2", done.expires_at),
            Decision::Retake
        );
    }

    fn bound(lock: IdempotencyRecord) -> IdempotencyRecord {
        IdempotencyRecord {
            bound: Some(Binding {
                payment_id: PaymentId::parse("pay_1").unwrap(),
                transaction_id: TransactionId::parse("txn_1").unwrap(),
            }),
            ..lock
        }
    }

    #[test]
    fn a_bound_key_is_answered_from_its_transaction_before_and_after_its_lease() {
        let lock = bound(IdempotencyRecord::lock(key("k"), fp("a"), "o1".into(), T));
        let binding = lock.bound.clone().unwrap();
        for (owner, at) in [
            ("o1", T.plus_millis(1)),
            ("o2", T.plus_millis(1)),
            ("o2", T.plus_millis(LEASE_MS)),
            ("o2", T.plus_millis(LEASE_MS * 100)),
        ] {
            assert_eq!(
                decide(&lock, &fp("a"), owner, at),
                Decision::Bound(binding.clone()),
                "{owner} at {at:?}"
            );
        }
        // never taken over once its lease is over; another request is still refused
        assert!(!takeable(Some(&lock), &fp("a"), T.plus_millis(LEASE_MS)));
        assert_eq!(
            decide(&lock, &fp("b"), "o2", T.plus_millis(LEASE_MS)),
            Decision::Mismatch
        );
        // a stored answer is replayed as before; the record expires as before
        let done = completed(lock.clone(), 200);
        assert!(matches!(
            decide(&done, &fp("a"), "o2", T.plus_millis(1)),
            Decision::Replay(_)
        ));
        assert!(takeable(Some(&lock), &fp("a"), lock.expires_at));
    }

    #[test]
    fn only_the_lock_holder_binds_and_only_once() {
        let lock = IdempotencyRecord::lock(key("k"), fp("a"), "o1".into(), T);
        let mine = KeyClaim {
            key: key("k"),
            owner: "o1".into(),
        };
        let theirs = KeyClaim {
            key: key("k"),
            owner: "o2".into(),
        };
        assert!(claimable(Some(&lock), &mine));
        assert!(!claimable(Some(&lock), &theirs));
        assert!(!claimable(None, &mine));
        assert!(!claimable(Some(&bound(lock.clone())), &mine));
        assert!(!claimable(Some(&completed(lock, 200)), &mine));
    }

    #[test]
    fn answers_that_say_retry_release_the_key_and_all_others_are_stored() {
        assert!(stores_answer(200, None));
        assert!(stores_answer(201, None));
        assert!(stores_answer(422, Some("provider_declined")));
        assert!(stores_answer(422, Some("provider_error")));
        assert!(stores_answer(409, Some("invalid_state")));
        assert!(!stores_answer(409, Some("operation_outcome_unknown")));
        assert!(stores_answer(404, Some("not_found")));
        assert!(stores_answer(400, Some("amount_exceeds_refundable")));
        assert!(!stores_answer(500, Some("internal_error")));
        assert!(!stores_answer(502, Some("test_order_failed")));
        assert!(!stores_answer(401, Some("unauthorized")));
        assert!(!stores_answer(409, Some("concurrent_modification")));
        assert!(!stores_answer(409, Some("operation_in_progress")));
        assert!(!stores_answer(400, Some("invalid_request")));
        assert!(!stores_answer(400, Some("invalid_amount")));
        assert!(!stores_answer(415, Some("unsupported_media_type")));
    }
}
