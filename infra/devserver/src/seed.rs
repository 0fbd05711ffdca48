//! `infra/local/seed.json`: merchants with API keys and POS accounts, the BIN table, a few
//! payments and webhook endpoints, loaded through the same adapters the functions use.

use std::{path::Path, sync::Arc};

use paygate_aws::dynamo::{
    Client, DynamoAccounts, DynamoApiKeys, DynamoBins, DynamoEndpoints, DynamoPayments,
    DynamoSimLedger, TableNames,
};
use paygate_aws::secrets::SecretsManagerSigning;
use paygate_bank_simulator::{InitialBankState, SimBank};
use paygate_domain::{
    ids::ApiKeyId,
    payment::CreatedPayment,
    ports::{Clock, Expectation, PaymentChange, PaymentWriter},
    webhook::{EventFilter, WebhookEndpointId},
    AccountConfigError, AccountId, BinInfo, Currency, MerchantId, Mode, Operation, OperationSet,
    Payment, PaymentId, PaymentStatus, PosAccount, StoreError,
};
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Seed {
    pub merchants: Vec<SeedMerchant>,
    #[serde(default)]
    pub bins: Vec<BinInfo>,
    #[serde(default)]
    pub payments: Vec<SeedPayment>,
    #[serde(default)]
    pub webhook_endpoints: Vec<SeedWebhookEndpoint>,
    /// The local admin credentials the dev server verifies admin requests' SigV4 against
    /// (`{"accessKeyId", "secretAccessKey", "region"}`); none: admin routes refuse all.
    #[serde(default)]
    pub admin: Option<paygate_cli::sigv4::AdminCredentials>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeedMerchant {
    pub id: MerchantId,
    #[serde(default)]
    pub name: String,
    pub api_keys: Vec<SeedKey>,
    pub accounts: Vec<SeedAccount>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeedKey {
    pub id: ApiKeyId,
    pub key: String,
    pub mode: Mode,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeedAccount {
    pub id: AccountId,
    pub provider_code: String,
    pub bank_code: String,
    pub bank_name: String,
    pub supported: Vec<Operation>,
    #[serde(default)]
    pub label: String,
    /// `test` (the bank's test endpoint, or the simulator) or `live` (never the simulator).
    /// Only keys and payments of the same mode use the account.
    pub mode: Mode,
    /// The bank secret's values of a real-protocol account (stored in Secrets Manager by
    /// `banks`; `endpointUrl` is the local simulator's unless given). Never logged.
    #[serde(default)]
    pub credentials: crate::banks::SeedCredentials,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeedPayment {
    pub id: PaymentId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub account_id: AccountId,
    pub amount: i64,
    pub currency: Currency,
    pub status: PaymentStatus,
    #[serde(default)]
    pub bank_state: Option<String>,
}

/// A webhook endpoint with a fixed (local-only) signing secret, so that a local receiver
/// can verify what it gets.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeedWebhookEndpoint {
    pub id: WebhookEndpointId,
    pub merchant_id: MerchantId,
    pub url: String,
    pub events: Vec<EventFilter>,
    pub mode: Mode,
    #[serde(default = "enabled_by_default")]
    pub enabled: bool,
    #[serde(default)]
    pub description: String,
    pub secret: String,
}

fn enabled_by_default() -> bool {
    true
}

#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    #[error("reading {0}: {1}")]
    Read(String, String),
    #[error("store: {0}")]
    Store(#[from] StoreError),
    #[error("seed payment {0}: {1}")]
    Payment(String, &'static str),
    #[error("seed webhook endpoint {0}: {1}")]
    Endpoint(String, &'static str),
    #[error("seed {0}")]
    Account(#[from] AccountConfigError),
}

impl Seed {
    pub fn from_file(path: &Path) -> Result<Self, SeedError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| SeedError::Read(path.display().to_string(), e.to_string()))?;
        serde_json::from_str(&text)
            .map_err(|e| SeedError::Read(path.display().to_string(), e.to_string()))
    }

    /// Refuses what must never be configured: a live account on the simulator, a payment
    /// on an account of the other mode (or an unknown one).
    pub fn validate(&self) -> Result<(), SeedError> {
        for m in &self.merchants {
            for a in &m.accounts {
                if let Some(acc) = self.account(&a.id) {
                    acc.validate()?;
                }
            }
        }
        for p in &self.payments {
            let account = self
                .account(&p.account_id)
                .ok_or_else(|| SeedError::Payment(p.id.to_string(), "unknown account"))?;
            if !account.serves(p.mode) {
                return Err(SeedError::Payment(
                    p.id.to_string(),
                    "its account is of the other mode",
                ));
            }
        }
        Ok(())
    }

    pub fn account(&self, id: &AccountId) -> Option<PosAccount> {
        self.merchants.iter().find_map(|m| {
            m.accounts.iter().find(|a| &a.id == id).map(|a| PosAccount {
                id: a.id.clone(),
                merchant_id: m.id.clone(),
                provider_code: a.provider_code.clone(),
                bank_code: a.bank_code.clone(),
                bank_name: a.bank_name.clone(),
                supported: OperationSet::of(&a.supported),
                label: a.label.clone(),
                mode: a.mode,
            })
        })
    }
}

/// The bank order id of a seeded payment: `SEED` + its opaque part, upper-cased.
pub fn order_id(id: &PaymentId) -> String {
    format!(
        "SEED{}",
        id.as_str().trim_start_matches("pay_").to_uppercase()
    )
}

/// Writes the seed into the stack's tables (idempotent: existing payments are kept) and the
/// webhook endpoints' secrets into Secrets Manager (overwritten with the seed's).
pub async fn load(
    client: &Client,
    signing: &SecretsManagerSigning,
    t: &TableNames,
    seed: &Seed,
    clock: Arc<dyn Clock>,
) -> Result<(), SeedError> {
    seed.validate()?;
    let keys = DynamoApiKeys::new(client.clone(), &t.api_keys);
    let accounts = DynamoAccounts::new(client.clone(), &t.pos_accounts);
    let bins = DynamoBins::new(client.clone(), &t.bins);
    let payments = DynamoPayments::new(client.clone(), &t.payments, &t.events);
    let sim = SimBank::new(
        Arc::new(DynamoSimLedger::new(client.clone(), &t.simbank)),
        clock.clone(),
    );
    for m in &seed.merchants {
        for k in &m.api_keys {
            // With its metadata, so the admin API lists it like an issued key (named
            // "seed"; re-seeding keeps the key, its hash and id, and refreshes the rest).
            let key = paygate_domain::apikey::ApiKey {
                id: k.id.clone(),
                merchant_id: m.id.clone(),
                mode: k.mode,
                name: "seed".to_owned(),
                last4: paygate_domain::apikey::last4(&k.key),
                created_at: clock.now(),
                expires_at: None,
                last_used_at: None,
                revoked_at: None,
            };
            keys.seed_key(&paygate_payments::hash_api_key(&k.key), &key)
                .await?;
        }
        for a in &m.accounts {
            if let Some(acc) = seed.account(&a.id) {
                accounts.put_account(&acc).await?;
            }
        }
    }
    for b in &seed.bins {
        bins.put_bin(b).await?;
    }
    let now = clock.now();
    let endpoints = DynamoEndpoints::new(client.clone(), &t.webhook_endpoints);
    for e in &seed.webhook_endpoints {
        if !seed.merchants.iter().any(|m| m.id == e.merchant_id) {
            return Err(SeedError::Endpoint(e.id.to_string(), "unknown merchant"));
        }
        if !e.secret.starts_with("whsec_") {
            return Err(SeedError::Endpoint(
                e.id.to_string(),
                "secret must start with whsec_",
            ));
        }
        crate::endpoints::put(&endpoints, signing, e, now).await?;
    }
    for p in &seed.payments {
        let account = seed
            .account(&p.account_id)
            .ok_or_else(|| SeedError::Payment(p.id.to_string(), "unknown account"))?;
        let bank_state = match (p.status, p.bank_state.as_deref()) {
            (PaymentStatus::Authorized, _) => InitialBankState::Preauth,
            (PaymentStatus::Captured, _) => InitialBankState::Approved,
            (PaymentStatus::Pending, s) => InitialBankState::parse(s.unwrap_or("none"))
                .ok_or_else(|| SeedError::Payment(p.id.to_string(), "bad bankState"))?,
            _ => {
                return Err(SeedError::Payment(
                    p.id.to_string(),
                    "status must be authorized, captured or pending",
                ))
            }
        };
        let order_id = order_id(&p.id);
        let payment = Payment::created(
            CreatedPayment {
                id: p.id.clone(),
                merchant_id: p.merchant_id.clone(),
                mode: p.mode,
                account_id: p.account_id.clone(),
                order_id: order_id.clone(),
                currency: p.currency,
                amount: p.amount,
                status: p.status,
            },
            now,
        );
        match payments
            .save(PaymentChange {
                payment,
                expect: Expectation::Absent,
                transaction: None,
                event: None,
            })
            .await
        {
            // Real-protocol accounts' orders go to their bank: `banks::register_seed_orders`.
            Ok(()) if account.provider_code != paygate_bank_simulator::PROVIDER_CODE => {}
            Ok(()) => {
                match sim
                    .register_order(&account, &order_id, p.amount, p.currency, bank_state, false)
                    .await
                {
                    Ok(()) | Err(StoreError::Conflict { .. }) => {}
                    Err(e) => return Err(e.into()),
                }
            }
            Err(StoreError::AlreadyExists) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed(accounts: serde_json::Value, payments: serde_json::Value) -> Seed {
        serde_json::from_value(serde_json::json!({
            "merchants": [{ "id": "mch_a", "apiKeys": [], "accounts": accounts }],
            "payments": payments,
        }))
        .unwrap()
    }

    fn account(id: &str, provider: &str, mode: &str) -> serde_json::Value {
        serde_json::json!({
            "id": id, "providerCode": provider, "bankCode": "0062", "bankName": "B",
            "supported": ["capture"], "mode": mode
        })
    }

    fn payment(account: &str, mode: &str) -> serde_json::Value {
        serde_json::json!({
            "id": "pay_a", "merchantId": "mch_a", "mode": mode, "accountId": account,
            "amount": 1000, "currency": "TRY", "status": "authorized"
        })
    }

    #[test]
    fn a_live_account_on_the_simulator_is_refused() {
        let s = seed(
            serde_json::json!([account("acc_a", "simulator", "live")]),
            serde_json::json!([]),
        );
        let err = s.validate().unwrap_err().to_string();
        assert!(err.contains("acc_a") && err.contains("simulator"), "{err}");
        let ok = seed(
            serde_json::json!([
                account("acc_a", "simulator", "test"),
                account("acc_b", "garanti", "live")
            ]),
            serde_json::json!([]),
        );
        ok.validate().unwrap();
    }

    #[test]
    fn a_payment_on_an_account_of_the_other_mode_is_refused() {
        let s = seed(
            serde_json::json!([account("acc_a", "garanti", "live")]),
            serde_json::json!([payment("acc_a", "test")]),
        );
        assert!(matches!(s.validate(), Err(SeedError::Payment(_, _))));
        let s = seed(
            serde_json::json!([account("acc_a", "garanti", "live")]),
            serde_json::json!([payment("acc_a", "live")]),
        );
        s.validate().unwrap();
    }

    #[test]
    fn an_account_without_a_mode_does_not_parse() {
        let mut a = account("acc_a", "simulator", "test");
        a.as_object_mut().unwrap().remove("mode");
        let parsed: Result<Seed, _> = serde_json::from_value(serde_json::json!({
            "merchants": [{ "id": "mch_a", "apiKeys": [], "accounts": [a] }]
        }));
        assert!(parsed.is_err());
    }

    #[test]
    fn the_checked_in_seed_is_valid_and_every_mode_has_accounts() {
        let s = Seed::from_file(&crate::default_seed_path()).unwrap();
        s.validate().unwrap();
        for m in &s.merchants {
            for mode in [Mode::Test, Mode::Live] {
                assert!(
                    m.accounts.iter().any(|a| a.mode == mode),
                    "{} has no {mode:?} account",
                    m.id
                );
            }
        }
    }
}
