//! Shared fixtures for the moto-backed tests: one moto server per test binary, fresh tables
//! (under a unique prefix) per test, and small domain builders.
#![allow(dead_code)] // each test binary uses a different part of it

use std::{
    collections::HashMap,
    sync::atomic::{AtomicU64, Ordering},
};

use aws_sdk_dynamodb::types::AttributeValue;
use paygate_aws::dynamo::{
    create_tables, table_names, Client, DynamoAccounts, DynamoApiKeys, DynamoBins,
    DynamoDeliveries, DynamoEndpoints, DynamoEvents, DynamoPayments, DynamoSimLedger, TableNames,
};
use paygate_aws::moto::{unique_prefix, MotoServer};
use paygate_domain::{
    ports::{Expectation, PaymentChange},
    AccountId, Currency, EventId, EventRecord, EventType, MerchantId, Mode, Payment, PaymentId,
    PaymentStatus, Timestamp, Transaction, TransactionId, TransactionType,
};

/// 2026-11-21T10:00:00.000Z.
pub const T0: Timestamp = Timestamp::from_unix_millis(1_795_255_200_000);

/// Fresh tables on the shared moto server, and every adapter over them.
pub struct Env {
    pub client: Client,
    pub names: TableNames,
    pub payments: DynamoPayments,
    pub events: DynamoEvents,
    pub keys: DynamoApiKeys,
    pub accounts: DynamoAccounts,
    pub bins: DynamoBins,
    pub ledger: DynamoSimLedger,
    pub endpoints: DynamoEndpoints,
    pub deliveries: DynamoDeliveries,
}

impl Env {
    pub async fn new(label: &str) -> Self {
        let moto = MotoServer::shared().expect("moto server starts");
        let client = moto.client();
        let prefix = unique_prefix(label);
        create_tables(&client, &prefix)
            .await
            .expect("tables are created");
        let names = table_names(&prefix);
        Self {
            payments: DynamoPayments::new(client.clone(), &names.payments, &names.events),
            events: DynamoEvents::new(client.clone(), &names.events),
            keys: DynamoApiKeys::new(client.clone(), &names.api_keys),
            accounts: DynamoAccounts::new(client.clone(), &names.pos_accounts),
            bins: DynamoBins::new(client.clone(), &names.bins),
            ledger: DynamoSimLedger::new(client.clone(), &names.simbank),
            endpoints: DynamoEndpoints::new(client.clone(), &names.webhook_endpoints),
            deliveries: DynamoDeliveries::new(client.clone(), &names.deliveries),
            client,
            names,
        }
    }

    /// The raw payment item, to check derived attributes.
    pub async fn raw_payment(&self, id: &PaymentId) -> Option<HashMap<String, AttributeValue>> {
        self.client
            .get_item()
            .table_name(&self.names.payments)
            .key("pk", AttributeValue::S(id.to_string()))
            .key("sk", AttributeValue::S("PAYMENT".into()))
            .consistent_read(true)
            .send()
            .await
            .expect("get item")
            .item
    }
}

static NEXT: AtomicU64 = AtomicU64::new(1);

/// A number never handed out before in this test binary.
pub fn fresh() -> u64 {
    NEXT.fetch_add(1, Ordering::Relaxed)
}

pub fn payment_id() -> PaymentId {
    PaymentId::parse(&format!("pay_p{}", fresh())).unwrap()
}

pub fn txn_id() -> TransactionId {
    TransactionId::parse(&format!("txn_t{}", fresh())).unwrap()
}

pub fn event_id() -> EventId {
    EventId::parse(&format!("evt_e{}", fresh())).unwrap()
}

pub fn merchant() -> MerchantId {
    MerchantId::parse("mch_test1").unwrap()
}

pub fn account() -> AccountId {
    AccountId::parse("acc_sim1").unwrap()
}

/// An authorised payment at version 1, never written.
pub fn authorized(amount: i64) -> Payment {
    let id = payment_id();
    Payment {
        order_id: format!("ORD-{id}"),
        id,
        merchant_id: merchant(),
        mode: Mode::Test,
        account_id: account(),
        currency: Currency::Try,
        amount,
        captured_amount: 0,
        refunded_amount: 0,
        status: PaymentStatus::Authorized,
        pending: None,
        auth_code: "AUTH01".into(),
        rrn: String::new(),
        version: 1,
        created_at: T0,
        updated_at: T0,
    }
}

/// A captured payment at version 1, never written.
pub fn captured(amount: i64) -> Payment {
    Payment {
        captured_amount: amount,
        status: PaymentStatus::Captured,
        rrn: "612300000001".into(),
        ..authorized(amount)
    }
}

pub fn transaction(
    payment: &Payment,
    kind: TransactionType,
    amount: i64,
    at: Timestamp,
) -> Transaction {
    Transaction::pending(
        txn_id(),
        payment.id.clone(),
        kind,
        amount,
        payment.currency,
        at,
    )
}

pub fn event(payment: &Payment, kind: EventType, at: Timestamp) -> EventRecord {
    EventRecord::for_payment(event_id(), kind, payment, at)
}

/// A change creating `p`.
pub fn create(p: &Payment) -> PaymentChange {
    PaymentChange {
        payment: p.clone(),
        expect: Expectation::Absent,
        transaction: None,
        event: None,
    }
}

/// A change writing `next` over `read` (same version and status).
pub fn update(read: &Payment, next: &Payment) -> PaymentChange {
    PaymentChange {
        payment: next.clone(),
        expect: Expectation::over(read),
        transaction: None,
        event: None,
    }
}
