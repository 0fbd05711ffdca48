//! Payment and transaction items of the payments table.

use aws_sdk_dynamodb::types::AttributeValue;
use paygate_domain::{
    AccountId, Currency, MerchantId, Metadata, Mode, Origin, Payment, PaymentId, PaymentStatus,
    PendingOperation, PendingState, Reason, StaleAfter, StoreError, Transaction, TransactionId,
    TransactionStatus, TransactionType,
};

use crate::dynamo::item::{n, s, t, Fields, Item};

/// Sort key of the payment item.
pub(crate) const PAYMENT_SK: &str = "PAYMENT";
/// Sort-key prefix of transaction items.
pub(crate) const TXN_SK_PREFIX: &str = "TXN#";

/// Attribute names the conditions refer to.
pub(crate) mod attr {
    pub(crate) use crate::dynamo::item::{PK, SK};
    pub(crate) const VERSION: &str = "version";
    pub(crate) const STATUS: &str = "status";
    pub(crate) const PENDING: &str = "pendingOp";
    pub(crate) const REFUNDABLE: &str = "refundable";
    /// Present while the payment needs settling: puts it in the `unsettled` index.
    pub(crate) const UNSETTLED_SHARD: &str = "unsettledShard";
    /// When the reconciler should next look at it (ISO 8601, the index's sort key).
    pub(crate) const RECONCILE_AT: &str = "reconcileAt";
    /// Reconciler tries that did not settle it (written by the reconciler only).
    pub(crate) const RECONCILE_TRIES: &str = "reconcileTries";
}

/// How many shards the sparse `unsettled` index spreads payments over.
pub const UNSETTLED_SHARDS: u32 = 4;

/// The `unsettledShard` of a payment: a stable hash (FNV-1a) of its id.
pub(crate) fn unsettled_shard(id: &PaymentId) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in id.as_str().bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    (h % UNSETTLED_SHARDS).to_string()
}

pub(crate) fn txn_sk(id: &TransactionId) -> String {
    format!("{TXN_SK_PREFIX}{id}")
}

fn pending_state_str(s: PendingState) -> &'static str {
    match s {
        PendingState::InFlight => "in_flight",
        PendingState::Unknown => "unknown",
    }
}

fn parse_pending_state(s: &str) -> Option<PendingState> {
    [PendingState::InFlight, PendingState::Unknown]
        .into_iter()
        .find(|v| pending_state_str(*v) == s)
}

fn parse_txn_type(s: &str) -> Option<TransactionType> {
    [
        TransactionType::Capture,
        TransactionType::Cancel,
        TransactionType::Refund,
    ]
    .into_iter()
    .find(|v| v.as_str() == s)
}

fn parse_txn_status(s: &str) -> Option<TransactionStatus> {
    [
        TransactionStatus::Pending,
        TransactionStatus::Approved,
        TransactionStatus::Declined,
        TransactionStatus::Failed,
        TransactionStatus::Unknown,
    ]
    .into_iter()
    .find(|v| v.as_str() == s)
}

/// The payment item. `refundable` is derived (`Payment::refundable`) so that conditions,
/// which have no arithmetic, can compare against it; `pendingOp` is absent when `None`.
pub(crate) fn encode_payment(p: &Payment, stale: StaleAfter) -> Item {
    let mut item = Item::from([
        (attr::PK.to_owned(), s(p.id.as_str())),
        (attr::SK.to_owned(), s(PAYMENT_SK)),
        ("id".to_owned(), s(p.id.as_str())),
        ("merchantId".to_owned(), s(p.merchant_id.as_str())),
        ("mode".to_owned(), s(p.mode.as_str())),
        ("accountId".to_owned(), s(p.account_id.as_str())),
        ("orderId".to_owned(), s(&p.order_id)),
        ("currency".to_owned(), s(p.currency.code())),
        ("amount".to_owned(), n(p.amount)),
        ("capturedAmount".to_owned(), n(p.captured_amount)),
        ("refundedAmount".to_owned(), n(p.refunded_amount)),
        (attr::STATUS.to_owned(), s(p.status.as_str())),
        ("authCode".to_owned(), s(&p.auth_code)),
        ("rrn".to_owned(), s(&p.rrn)),
        (attr::VERSION.to_owned(), n(p.version)),
        ("createdAt".to_owned(), t(p.created_at)),
        ("updatedAt".to_owned(), t(p.updated_at)),
        (attr::REFUNDABLE.to_owned(), n(p.refundable())),
    ]);
    // Every write of the payment decides afresh whether it is in the `unsettled` index (and
    // resets the reconciler's tries: a changed payment is a new case).
    if let Some(due) = p.reconcile_due(stale) {
        item.insert(attr::UNSETTLED_SHARD.to_owned(), s(unsettled_shard(&p.id)));
        item.insert(attr::RECONCILE_AT.to_owned(), t(due));
    }
    if let Some(op) = &p.pending {
        let mut m = Item::from([
            ("type".to_owned(), s(op.kind.as_str())),
            ("transactionId".to_owned(), s(op.transaction_id.as_str())),
            ("amount".to_owned(), n(op.amount)),
            ("state".to_owned(), s(pending_state_str(op.state))),
            ("startedAt".to_owned(), t(op.started_at)),
        ]);
        if let Some(until) = op.resume_until {
            m.insert("resumeUntil".to_owned(), t(until));
        }
        item.insert(
            attr::PENDING.to_owned(),
            aws_sdk_dynamodb::types::AttributeValue::M(m),
        );
    }
    item
}

pub(crate) fn decode_payment(item: &Item) -> Result<Payment, StoreError> {
    let f = Fields::new(item, "payment");
    let pending = if f.has(attr::PENDING) {
        let m = f.map(attr::PENDING, "pending operation")?;
        Some(PendingOperation {
            kind: m.parsed("type", parse_txn_type)?,
            transaction_id: m.id("transactionId", TransactionId::parse)?,
            amount: m.i64("amount")?,
            state: m.parsed("state", parse_pending_state)?,
            started_at: m.time("startedAt")?,
            resume_until: if m.has("resumeUntil") {
                Some(m.time("resumeUntil")?)
            } else {
                None
            },
        })
    } else {
        None
    };
    Ok(Payment {
        id: f.id("id", PaymentId::parse)?,
        merchant_id: f.id("merchantId", MerchantId::parse)?,
        mode: f.parsed("mode", Mode::parse)?,
        account_id: f.id("accountId", AccountId::parse)?,
        order_id: f.str("orderId")?.to_owned(),
        currency: f.parsed("currency", Currency::parse)?,
        amount: f.i64("amount")?,
        captured_amount: f.i64("capturedAmount")?,
        refunded_amount: f.i64("refundedAmount")?,
        status: f.parsed(attr::STATUS, PaymentStatus::parse)?,
        pending,
        auth_code: f.text("authCode")?,
        rrn: f.text("rrn")?,
        version: f.u64(attr::VERSION)?,
        created_at: f.time("createdAt")?,
        updated_at: f.time("updatedAt")?,
    })
}

/// The transaction item, under its payment's partition. The merchant's note (`reason`,
/// `description`, `metadata`) and `settledAt` only when there is one; `origin` always.
pub(crate) fn encode_transaction(x: &Transaction) -> Item {
    let mut item = Item::from([
        (attr::PK.to_owned(), s(x.payment_id.as_str())),
        (attr::SK.to_owned(), s(txn_sk(&x.id))),
        ("id".to_owned(), s(x.id.as_str())),
        ("paymentId".to_owned(), s(x.payment_id.as_str())),
        ("type".to_owned(), s(x.kind.as_str())),
        ("amount".to_owned(), n(x.amount)),
        ("currency".to_owned(), s(x.currency.code())),
        (attr::STATUS.to_owned(), s(x.status.as_str())),
        ("bankCode".to_owned(), s(&x.bank_code)),
        ("bankMessage".to_owned(), s(&x.bank_message)),
        ("authCode".to_owned(), s(&x.auth_code)),
        ("rrn".to_owned(), s(&x.rrn)),
        ("createdAt".to_owned(), t(x.created_at)),
        ("updatedAt".to_owned(), t(x.updated_at)),
        ("origin".to_owned(), s(x.origin.as_str())),
    ]);
    if let Some(reason) = x.reason {
        item.insert("reason".to_owned(), s(reason.as_str()));
    }
    if let Some(description) = &x.description {
        item.insert("description".to_owned(), s(description));
    }
    if !x.metadata.is_empty() {
        let m = x.metadata.iter().map(|(k, v)| (k.clone(), s(v))).collect();
        item.insert("metadata".to_owned(), AttributeValue::M(m));
    }
    if let Some(at) = x.settled_at {
        item.insert("settledAt".to_owned(), t(at));
    }
    if let Some(code) = x.decline_code {
        item.insert("declineCode".to_owned(), s(code.as_str()));
    }
    item
}

fn decode_metadata(item: &Item) -> Result<Metadata, StoreError> {
    let corrupt = |problem: &str| {
        StoreError::Corrupt(format!("transaction item: attribute `metadata` {problem}"))
    };
    match item.get("metadata") {
        None => Ok(Metadata::new()),
        Some(AttributeValue::M(m)) => m
            .iter()
            .map(|(k, v)| match v {
                AttributeValue::S(v) => Ok((k.clone(), v.clone())),
                _ => Err(corrupt("holds a non-string")),
            })
            .collect(),
        Some(_) => Err(corrupt("is not a map")),
    }
}

pub(crate) fn decode_transaction(item: &Item) -> Result<Transaction, StoreError> {
    let f = Fields::new(item, "transaction");
    let status = f.parsed(attr::STATUS, parse_txn_status)?;
    let updated_at = f.time("updatedAt")?;
    Ok(Transaction {
        id: f.id("id", TransactionId::parse)?,
        payment_id: f.id("paymentId", PaymentId::parse)?,
        kind: f.parsed("type", parse_txn_type)?,
        amount: f.i64("amount")?,
        currency: f.parsed("currency", Currency::parse)?,
        status,
        bank_code: f.text("bankCode")?,
        bank_message: f.text("bankMessage")?,
        auth_code: f.text("authCode")?,
        rrn: f.text("rrn")?,
        created_at: f.time("createdAt")?,
        updated_at,
        reason: if f.has("reason") {
            Some(f.parsed("reason", Reason::parse)?)
        } else {
            None
        },
        description: f
            .has("description")
            .then(|| f.text("description"))
            .transpose()?,
        metadata: decode_metadata(item)?,
        origin: if f.has("origin") {
            f.parsed("origin", Origin::parse)?
        } else {
            Origin::Api
        },
        // A transaction settled before `settledAt` was written: it was last written when it
        // became final (nothing changes a final transaction).
        settled_at: if f.has("settledAt") {
            Some(f.time("settledAt")?)
        } else {
            status.is_final().then_some(updated_at)
        },
        // Written only on a declined or failed transaction (older ones have none).
        decline_code: if f.has("declineCode") {
            Some(f.parsed("declineCode", paygate_domain::DeclineCode::parse)?)
        } else {
            None
        },
    })
}

#[cfg(test)]
mod tests {
    use paygate_domain::Timestamp;

    use super::*;

    fn payment() -> Payment {
        let t0 = Timestamp::from_unix_millis(1_795_000_000_123);
        Payment {
            id: PaymentId::parse("pay_1").unwrap(),
            merchant_id: MerchantId::parse("mch_1").unwrap(),
            mode: Mode::Test,
            account_id: AccountId::parse("acc_1").unwrap(),
            order_id: "ORD-1".into(),
            currency: Currency::Try,
            amount: 10_000,
            captured_amount: 10_000,
            refunded_amount: 2_500,
            status: PaymentStatus::PartiallyRefunded,
            pending: Some(PendingOperation {
                kind: TransactionType::Refund,
                transaction_id: TransactionId::parse("txn_9").unwrap(),
                amount: 300,
                state: PendingState::Unknown,
                started_at: t0,
                resume_until: Some(t0.plus_millis(60_000)),
            }),
            auth_code: String::new(),
            rrn: "123".into(),
            version: 7,
            created_at: t0,
            updated_at: t0.plus_millis(5),
        }
    }

    #[test]
    fn payment_round_trips_and_stores_refundable() {
        let p = payment();
        let item = encode_payment(&p, StaleAfter::DEFAULT);
        assert_eq!(item.get("refundable"), Some(&n(7_500)));
        assert_eq!(item.get("sk"), Some(&s("PAYMENT")));
        assert_eq!(decode_payment(&item).unwrap(), p);
        let mut q = p.clone();
        q.pending = None;
        let item = encode_payment(&q, StaleAfter::DEFAULT);
        assert!(!item.contains_key("pendingOp"));
        assert_eq!(decode_payment(&item).unwrap(), q);
    }

    #[test]
    fn an_operation_in_flight_is_due_once_stale_under_the_threshold_given() {
        let mut p = payment();
        let op = p.pending.as_mut().unwrap();
        op.state = PendingState::InFlight;
        let started = op.started_at;
        for ms in [40_000, 60_000, 90_000] {
            let stale = StaleAfter::from_millis(ms).unwrap();
            let item = encode_payment(&p, stale);
            assert_eq!(
                item.get(attr::RECONCILE_AT),
                Some(&t(started.plus_millis(i64::try_from(ms).unwrap() + 1))),
                "{ms}"
            );
        }
        // An unknown outcome is due at once, whatever the threshold.
        let unknown = payment();
        let item = encode_payment(&unknown, StaleAfter::from_millis(90_000).unwrap());
        assert_eq!(item.get(attr::RECONCILE_AT), Some(&t(unknown.updated_at)));
    }

    #[test]
    fn transactions_round_trip_with_their_note_and_older_items_read_as_before() {
        let t0 = Timestamp::from_unix_millis(1_795_000_000_123);
        let pending = Transaction::pending(
            TransactionId::parse("txn_1").unwrap(),
            PaymentId::parse("pay_1").unwrap(),
            TransactionType::Refund,
            2_500,
            Currency::Try,
            t0,
        );
        let mut noted = pending.clone().with_note(&paygate_domain::Note {
            reason: Some(Reason::Duplicate),
            description: Some("iade: çift çekim".into()),
            metadata: [("ticket".to_owned(), "T-1".to_owned())].into(),
        });
        noted.status = TransactionStatus::Approved;
        noted.settled_at = Some(t0.plus_millis(9));
        noted.origin = Origin::External;
        for x in [&pending, &noted] {
            assert_eq!(&decode_transaction(&encode_transaction(x)).unwrap(), x);
        }
        // An item written before the note existed: no note, `api`, settled when last written.
        let mut old = encode_transaction(&noted);
        for a in ["reason", "description", "metadata", "origin", "settledAt"] {
            old.remove(a);
        }
        old.insert("updatedAt".into(), t(t0.plus_millis(7)));
        let read = decode_transaction(&old).unwrap();
        assert_eq!(
            (read.reason, read.description, read.metadata.len()),
            (None, None, 0)
        );
        assert_eq!(
            (read.origin, read.settled_at),
            (Origin::Api, Some(t0.plus_millis(7)))
        );
        let mut old = encode_transaction(&pending);
        old.remove("origin");
        assert_eq!(decode_transaction(&old).unwrap().settled_at, None);
    }

    #[test]
    fn a_declined_transaction_keeps_its_decline_code() {
        let t0 = Timestamp::from_unix_millis(1_795_000_000_123);
        let mut declined = Transaction::pending(
            TransactionId::parse("txn_1").unwrap(),
            PaymentId::parse("pay_1").unwrap(),
            TransactionType::Cancel,
            2_500,
            Currency::Try,
            t0,
        );
        declined.status = TransactionStatus::Declined;
        declined.settled_at = Some(t0);
        let declined = declined.with_decline_code(Some(paygate_domain::DeclineCode::AfterEndOfDay));
        let item = encode_transaction(&declined);
        assert_eq!(item.get("declineCode"), Some(&s("after_end_of_day")));
        assert_eq!(decode_transaction(&item).unwrap(), declined);
        let mut bad = item;
        bad.insert("declineCode".into(), s("whatever"));
        assert!(decode_transaction(&bad).is_err());
    }

    #[test]
    fn enum_names_match_the_domain_json() {
        for st in [PendingState::InFlight, PendingState::Unknown] {
            let json = serde_json::to_value(st).unwrap();
            assert_eq!(json.as_str(), Some(pending_state_str(st)));
        }
    }
}
