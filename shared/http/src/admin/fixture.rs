//! The handler tests' world: in-memory ports, a manual clock, sequential ids, two merchants.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::{net::IpAddr, sync::Arc};

use paygate_domain::testkit::{
    ManualClock, MemoryAccounts, MemoryAudit, MemoryDeliveries, MemoryEndpoints, MemoryKeys,
    MemoryPayments, MemoryQueue, SeqIds, T0,
};
use paygate_domain::{
    ports::{Clock, EndpointReader},
    webhook::WebhookEndpoint,
    AccountId, MerchantId, OperationSet, PosAccount,
};
use paygate_webhooks::EgressPolicy;
use serde_json::{json, Map, Value};

use crate::admin::{testing::MemoryVault, DeliveriesDeps, EndpointsDeps};

pub const M1: &str = "mch_one";
pub const M2: &str = "mch_two";
pub const PREFIX: &str = "paygate/test/webhooks/";

pub struct World {
    pub accounts: Arc<MemoryAccounts>,
    pub endpoints: Arc<MemoryEndpoints>,
    pub deliveries: Arc<MemoryDeliveries>,
    pub outbox: Arc<MemoryPayments>,
    pub queue: Arc<MemoryQueue>,
    pub vault: Arc<MemoryVault>,
    pub clock: Arc<ManualClock>,
    pub ids: Arc<SeqIds>,
    pub egress: EgressPolicy,
    pub keys: Arc<MemoryKeys>,
    pub audit: Arc<MemoryAudit>,
}

fn account(merchant: &str) -> PosAccount {
    PosAccount {
        id: AccountId::parse("acc_1").unwrap(),
        merchant_id: MerchantId::parse(merchant).unwrap(),
        provider_code: "simulator".into(),
        bank_code: "0064".into(),
        bank_name: "Bank".into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: paygate_domain::Mode::Test,
    }
}

impl World {
    pub fn new() -> Self {
        let accounts = Arc::new(MemoryAccounts::default());
        accounts.insert(account(M1));
        accounts.insert(account(M2));
        Self {
            accounts,
            endpoints: Arc::default(),
            deliveries: Arc::default(),
            outbox: Arc::default(),
            queue: Arc::default(),
            vault: Arc::default(),
            clock: Arc::new(ManualClock::at(T0)),
            ids: Arc::default(),
            egress: EgressPolicy::strict(),
            keys: Arc::default(),
            audit: Arc::default(),
        }
    }

    /// The audit trail the handlers record in.
    pub fn audit_deps(&self) -> crate::admin::Audit {
        crate::admin::Audit {
            log: self.audit.clone(),
            ids: self.ids.clone(),
        }
    }

    /// Exempts `ip` from the private-network refusal (the local allow list).
    pub fn allow(mut self, ip: &str) -> Self {
        self.egress.allow.push(ip.parse::<IpAddr>().unwrap());
        self
    }

    pub fn endpoints_deps(&self) -> EndpointsDeps {
        EndpointsDeps {
            merchants: self.accounts.clone(),
            endpoints: self.endpoints.clone(),
            deliveries: self.deliveries.clone(),
            outbox: self.outbox.clone(),
            queue: self.queue.clone(),
            secrets: self.vault.clone(),
            clock: self.clock.clone(),
            ids: self.ids.clone(),
            egress: self.egress.clone(),
            secret_prefix: PREFIX.into(),
            health: self.endpoints.clone(),
            keys: self.keys.clone(),
            audit: self.audit_deps(),
        }
    }

    pub fn deliveries_deps(&self) -> DeliveriesDeps {
        DeliveriesDeps {
            merchants: self.accounts.clone(),
            endpoints: self.endpoints.clone(),
            deliveries: self.deliveries.clone(),
            outbox: self.outbox.clone(),
            queue: self.queue.clone(),
            clock: self.clock.clone(),
            health: self.endpoints.clone(),
            audit: self.audit_deps(),
            reports: Arc::new(paygate_domain::testkit::MemoryDayReports::default()),
            payments: self.outbox.clone(),
        }
    }

    pub fn now(&self) -> paygate_domain::Timestamp {
        self.clock.now()
    }

    /// Creates an endpoint of `merchant` through the handler; returns its id and secret.
    pub async fn create(&self, merchant: &str, events: Value) -> (String, String) {
        let body =
            obj(json!({"url": "https://hooks.example.com/pg", "events": events, "mode": "test"}));
        let made = crate::admin::endpoints::create(&self.endpoints_deps(), merchant, &body)
            .await
            .unwrap();
        (made.endpoint.id.clone(), made.secret)
    }

    pub async fn endpoint(&self, merchant: &str, id: &str) -> WebhookEndpoint {
        self.endpoints
            .get_endpoint(
                &MerchantId::parse(merchant).unwrap(),
                &paygate_domain::WebhookEndpointId::parse(id).unwrap(),
            )
            .await
            .unwrap()
            .unwrap()
    }
}

pub fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

/// Asserts an error: status, code and (when given) the field it names.
#[track_caller]
pub fn expect_err<T: std::fmt::Debug>(
    r: Result<T, crate::ApiError>,
    status: u16,
    code: &str,
    field: Option<&str>,
) {
    let e = r.expect_err("an error");
    assert_eq!((e.status.as_u16(), e.code), (status, code), "{}", e.message);
    if let Some(f) = field {
        assert_eq!(
            e.details.as_ref().map(|d| d["field"].clone()),
            Some(json!(f)),
            "{}",
            e.message
        );
    }
}
