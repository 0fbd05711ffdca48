//! API keys, POS accounts, BINs and the simulator ledger against moto.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test crate: helpers may panic

mod common;

use common::*;
use paygate_domain::sim_ledger::{SimLedger, SimOrder, SimOrderState, SimTxn};
use paygate_domain::{
    ids::ApiKeyId,
    ports::{AccountLookup, ApiKeyLookup, BinLookup},
    AccountId, ApiKeyRecord, BinInfo, Currency, MerchantId, Mode, Operation, OperationSet,
    PosAccount, StoreError,
};

const HASH: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

#[tokio::test]
async fn api_keys_round_trip_by_hash() {
    // GIVEN a seeded key record
    let env = Env::new("keys").await;
    let rec = ApiKeyRecord {
        key_id: ApiKeyId::parse("key_abc").unwrap(),
        merchant_id: merchant(),
        mode: Mode::Live,
        active: false,
        expires_at: None,
        last_used_at: None,
    };
    env.keys.put_key(HASH, &rec).await.unwrap();

    // WHEN it is looked up by its hash (in either case) THEN it comes back whole
    assert_eq!(env.keys.find_key(HASH).await.unwrap(), Some(rec.clone()));
    assert_eq!(
        env.keys.find_key(&HASH.to_uppercase()).await.unwrap(),
        Some(rec)
    );
    // AND another hash finds nothing
    assert_eq!(env.keys.find_key(&"0".repeat(64)).await.unwrap(), None);
}

#[tokio::test]
async fn api_keys_are_issued_listed_rolled_revoked_and_touched() {
    use paygate_domain::{apikey::ApiKey, ports::ApiKeyAdmin, Timestamp};
    const T0: Timestamp = Timestamp::from_unix_millis(1_795_251_600_000);
    let env = Env::new("keyadmin").await;
    let m = merchant();
    let key = |id: &str, at: i64| ApiKey {
        id: ApiKeyId::parse(id).unwrap(),
        merchant_id: m.clone(),
        mode: Mode::Test,
        name: format!("name of {id}"),
        last4: "wxyz".into(),
        created_at: T0.plus_millis(at),
        expires_at: None,
        last_used_at: None,
        revoked_at: None,
    };
    let (a, b) = (key("key_a", 0), key("key_b", 1_000));
    let (ha, hb) = ("a".repeat(64), "b".repeat(64));
    env.keys.create_key(&ha, &a).await.unwrap();
    env.keys.create_key(&hb, &b).await.unwrap();
    // The same hash twice is refused.
    assert!(matches!(
        env.keys.create_key(&ha, &b).await,
        Err(StoreError::AlreadyExists)
    ));
    // Listed newest first, only the merchant's.
    assert_eq!(
        env.keys.list_keys(&m).await.unwrap(),
        vec![b.clone(), a.clone()]
    );
    assert!(env
        .keys
        .list_keys(&MerchantId::parse("mch_x").unwrap())
        .await
        .unwrap()
        .is_empty());
    assert_eq!(env.keys.get_key(&m, &a.id).await.unwrap(), Some(a.clone()));
    assert_eq!(
        env.keys
            .get_key(&MerchantId::parse("mch_x").unwrap(), &a.id)
            .await
            .unwrap(),
        None
    );
    // The authorizer's record follows.
    assert_eq!(env.keys.find_key(&ha).await.unwrap(), Some(a.record()));

    // Roll: the expiry is set only over the expected one.
    let exp = T0.plus_millis(3_600_000);
    env.keys.set_key_expiry(&m, &a.id, exp, None).await.unwrap();
    assert!(matches!(
        env.keys.set_key_expiry(&m, &a.id, exp, None).await,
        Err(StoreError::Conflict { .. })
    ));
    assert_eq!(
        env.keys.find_key(&ha).await.unwrap().unwrap().expires_at,
        Some(exp)
    );

    // Touch: at most once a minute.
    env.keys.touch_key(&ha, T0).await.unwrap();
    env.keys
        .touch_key(&ha, T0.plus_millis(59_000))
        .await
        .unwrap();
    assert_eq!(
        env.keys.find_key(&ha).await.unwrap().unwrap().last_used_at,
        Some(T0)
    );
    env.keys
        .touch_key(&ha, T0.plus_millis(60_000))
        .await
        .unwrap();
    assert_eq!(
        env.keys.find_key(&ha).await.unwrap().unwrap().last_used_at,
        Some(T0.plus_millis(60_000))
    );
    // An unknown hash is not created by a touch.
    env.keys.touch_key(&"c".repeat(64), T0).await.unwrap();
    assert_eq!(env.keys.find_key(&"c".repeat(64)).await.unwrap(), None);

    // Revoke: at once, the first revocation stands, no roll afterwards.
    let r = env
        .keys
        .revoke_key(&m, &b.id, T0.plus_millis(5))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(r.revoked_at, Some(T0.plus_millis(5)));
    assert!(!env.keys.find_key(&hb).await.unwrap().unwrap().active);
    let again = env
        .keys
        .revoke_key(&m, &b.id, T0.plus_millis(9))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again.revoked_at, Some(T0.plus_millis(5)));
    assert!(matches!(
        env.keys.set_key_expiry(&m, &b.id, exp, None).await,
        Err(StoreError::Conflict { .. })
    ));
    assert_eq!(
        env.keys
            .revoke_key(&m, &ApiKeyId::parse("key_zz").unwrap(), T0)
            .await
            .unwrap(),
        None
    );
}

fn pos(merchant: &MerchantId, id: &str, ops: &[Operation]) -> PosAccount {
    PosAccount {
        id: AccountId::parse(id).unwrap(),
        merchant_id: merchant.clone(),
        provider_code: "simulator".into(),
        bank_code: "0064".into(),
        bank_name: "Türkiye İş Bankası".into(),
        supported: OperationSet::of(ops),
        label: format!("label of {id}"),
        mode: Mode::Test,
    }
}

#[tokio::test]
async fn accounts_round_trip_and_list_per_merchant_by_id() {
    // GIVEN two accounts of one merchant (seeded out of order) and one of another
    let env = Env::new("accounts").await;
    let m = merchant();
    let other = MerchantId::parse("mch_other").unwrap();
    let b = pos(&m, "acc_b", &[Operation::Capture, Operation::PointsInquiry]);
    let a = pos(&m, "acc_a", &[]);
    let x = pos(&other, "acc_a", &Operation::ALL);
    for acc in [&b, &a, &x] {
        env.accounts.put_account(acc).await.unwrap();
    }

    // WHEN one is read THEN it comes back whole, operations included
    assert_eq!(
        env.accounts.get_account(&m, &b.id).await.unwrap(),
        Some(b.clone())
    );
    assert_eq!(env.accounts.get_account(&other, &b.id).await.unwrap(), None);

    // WHEN the merchant's accounts are listed THEN only theirs, ordered by id
    assert_eq!(
        env.accounts.list_accounts(&m).await.unwrap(),
        vec![a, b.clone()]
    );
    assert_eq!(env.accounts.list_accounts(&other).await.unwrap(), vec![x]);

    // AND `supported` is stored as a list of operation names
    let raw = env
        .client
        .get_item()
        .table_name(&env.names.pos_accounts)
        .key(
            "merchantId",
            aws_sdk_dynamodb::types::AttributeValue::S(m.to_string()),
        )
        .key(
            "accountId",
            aws_sdk_dynamodb::types::AttributeValue::S("acc_b".into()),
        )
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(
        raw.get("supported"),
        Some(&aws_sdk_dynamodb::types::AttributeValue::L(vec![
            aws_sdk_dynamodb::types::AttributeValue::S("capture".into()),
            aws_sdk_dynamodb::types::AttributeValue::S("points_inquiry".into()),
        ]))
    );
}

#[tokio::test]
async fn an_accounts_mode_is_stored_required_and_a_live_simulator_account_refused() {
    let env = Env::new("account-modes").await;
    let m = merchant();
    // GIVEN a live account of a real protocol THEN it round-trips with its mode
    let mut live = pos(&m, "acc_live", &Operation::ALL);
    live.provider_code = "nestpay".into();
    live.mode = Mode::Live;
    env.accounts.put_account(&live).await.unwrap();
    assert_eq!(
        env.accounts.get_account(&m, &live.id).await.unwrap(),
        Some(live.clone())
    );

    // WHEN a live account on the simulator is stored THEN it is refused, nothing written
    let mut sim_live = pos(&m, "acc_simlive", &Operation::ALL);
    sim_live.mode = Mode::Live;
    assert!(matches!(
        env.accounts.put_account(&sim_live).await,
        Err(StoreError::Corrupt(_))
    ));
    assert_eq!(
        env.accounts.get_account(&m, &sim_live.id).await.unwrap(),
        None
    );

    // WHEN a stored account has no mode THEN reading it fails: never guessed test or live
    env.client
        .update_item()
        .table_name(&env.names.pos_accounts)
        .key(
            "merchantId",
            aws_sdk_dynamodb::types::AttributeValue::S(m.to_string()),
        )
        .key(
            "accountId",
            aws_sdk_dynamodb::types::AttributeValue::S("acc_live".into()),
        )
        .update_expression("REMOVE #mode")
        .expression_attribute_names("#mode", "mode")
        .send()
        .await
        .unwrap();
    assert!(matches!(
        env.accounts.get_account(&m, &live.id).await,
        Err(StoreError::Corrupt(_))
    ));
}

#[tokio::test]
async fn bins_round_trip() {
    // GIVEN a seeded BIN row
    let env = Env::new("bins").await;
    let bin = BinInfo {
        bin: "454360".into(),
        bank_code: "0064".into(),
        bank_name: "Türkiye İş Bankası".into(),
        program: "Maximum".into(),
    };
    env.bins.put_bin(&bin).await.unwrap();

    // WHEN it is looked up THEN it comes back whole; unknown (or empty) BINs find nothing
    assert_eq!(env.bins.find_bin("454360").await.unwrap(), Some(bin));
    assert_eq!(env.bins.find_bin("999999").await.unwrap(), None);
    assert_eq!(env.bins.find_bin("").await.unwrap(), None);
}

fn order(version: u64) -> SimOrder {
    SimOrder {
        account_id: account(),
        order_id: "ORD-1".into(),
        currency: Currency::Try,
        amount: 10_000,
        state: SimOrderState::Sale,
        refunded: 300,
        auth_code: "AUTH01".into(),
        rrn: "612300000001".into(),
        business_day: "2026-11-21".into(),
        settled: false,
        query_fails: None,
        history: vec![SimTxn {
            kind: "refund".into(),
            amount: 300,
            reference: "txn_1".into(),
            rrn: "612300000002".into(),
            at: T0,
        }],
        version,
    }
}

#[tokio::test]
async fn sim_ledger_round_trips_and_checks_versions() {
    // GIVEN an empty ledger
    let env = Env::new("ledger").await;
    let v1 = order(1);
    assert_eq!(
        env.ledger.load(&v1.account_id, &v1.order_id).await.unwrap(),
        None
    );

    // WHEN version 1 is stored THEN it loads back whole, and storing version 1 again conflicts
    env.ledger.store(&v1).await.unwrap();
    assert_eq!(
        env.ledger.load(&v1.account_id, &v1.order_id).await.unwrap(),
        Some(v1.clone())
    );
    let again = env.ledger.store(&v1).await;
    assert!(
        matches!(again, Err(StoreError::Conflict { current: None })),
        "{again:?}"
    );

    // WHEN version 3 is stored over version 1 THEN it conflicts; version 2 goes through
    let skip = env.ledger.store(&order(3)).await;
    assert!(
        matches!(skip, Err(StoreError::Conflict { current: None })),
        "{skip:?}"
    );
    let mut v2 = order(2);
    v2.state = SimOrderState::Cancelled;
    env.ledger.store(&v2).await.unwrap();
    assert_eq!(
        env.ledger.load(&v1.account_id, &v1.order_id).await.unwrap(),
        Some(v2.clone())
    );
    // AND a stale writer of version 2 loses
    let stale = env.ledger.store(&v2).await;
    assert!(
        matches!(stale, Err(StoreError::Conflict { current: None })),
        "{stale:?}"
    );

    // AND orders of another account or order id are separate
    let other = AccountId::parse("acc_other").unwrap();
    assert_eq!(env.ledger.load(&other, &v1.order_id).await.unwrap(), None);
    assert_eq!(
        env.ledger.load(&v1.account_id, "ORD-2").await.unwrap(),
        None
    );
}

#[tokio::test]
async fn the_audit_trail_is_append_only_and_reads_newest_first_in_pages() {
    use paygate_aws::dynamo::DynamoAudit;
    use paygate_domain::audit::{
        entry_key, AuditIntent, AuditItem, AuditLog, AuditOutcome, AuditPart, AuditResult,
    };
    use std::collections::BTreeMap;

    let env = Env::new("audit").await;
    let audit = DynamoAudit::new(env.client.clone(), &env.names.audit);
    let m = MerchantId::parse("mch_audit").unwrap();
    let intent = |n: i64| {
        let id = format!("aud_{n}");
        AuditItem {
            merchant_id: m.clone(),
            entry: entry_key(T0.plus_millis(n), &id),
            part: AuditPart::Intent(AuditIntent {
                id,
                merchant_id: m.clone(),
                at: T0.plus_millis(n),
                principal: "arn:aws:iam::123456789012:user/ops".into(),
                action: "api_key.create".into(),
                targets: BTreeMap::new(),
                summary: BTreeMap::from([("mode".into(), serde_json::json!("test"))]),
                mode: Some(Mode::Test),
                request_id: format!("req-{n}"),
            }),
        }
    };
    let result = |of: &AuditItem, status: u16| AuditItem {
        part: AuditPart::Result(AuditResult {
            at: T0.plus_millis(1_000),
            status,
            error_code: None,
            mode: Some(Mode::Test),
            targets: BTreeMap::from([("keyId".into(), "key_9".into())]),
        }),
        ..of.clone()
    };

    // GIVEN three records, the middle one without its result
    for n in 1..=3 {
        let i = intent(n);
        audit.append(&i).await.unwrap();
        if n != 2 {
            audit.append(&result(&i, 201)).await.unwrap();
        }
    }

    // WHEN an item is appended again, even with other content THEN nothing is replaced
    let mut changed = intent(1);
    if let AuditPart::Intent(i) = &mut changed.part {
        i.principal = "arn:aws:iam::123456789012:user/mallory".into();
    }
    assert!(matches!(
        audit.append(&changed).await,
        Err(StoreError::AlreadyExists)
    ));
    assert!(matches!(
        audit.append(&result(&intent(3), 500)).await,
        Err(StoreError::AlreadyExists)
    ));

    // AND the trail reads newest first, a page of two and then the rest
    let first = audit.list(&m, 2, None).await.unwrap();
    let ids: Vec<&str> = first.items.iter().map(|r| r.intent.id.as_str()).collect();
    assert_eq!(ids, ["aud_3", "aud_2"]);
    assert_eq!(first.items[0].status, Some(201));
    assert_eq!(first.items[0].intent.targets["keyId"], "key_9");
    assert_eq!(first.items[1].outcome, AuditOutcome::Unknown);
    let cursor = first.next_cursor.unwrap();
    let rest = audit.list(&m, 2, Some(&cursor)).await.unwrap();
    assert_eq!(rest.items.len(), 1);
    assert_eq!(
        rest.items[0].intent.principal,
        "arn:aws:iam::123456789012:user/ops"
    );
    assert_eq!(rest.next_cursor, None);
    // a page of one record still joins both halves of each (items are read two a record)
    let one = audit.list(&m, 1, None).await.unwrap();
    assert_eq!(one.items[0].outcome, AuditOutcome::Succeeded);
    // another merchant's trail is empty; a cursor not handed out is refused
    let other = MerchantId::parse("mch_other").unwrap();
    assert!(audit.list(&other, 5, None).await.unwrap().items.is_empty());
    assert!(matches!(
        audit.list(&m, 5, Some("not-a-cursor")).await,
        Err(StoreError::Corrupt(_))
    ));
}
