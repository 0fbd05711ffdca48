//! `infra/local/seed.json`: merchants with API keys and POS accounts, the BIN table and a few
//! payments, loaded through the same adapters the functions use.

use std::{path::Path, sync::Arc};

use paygate_domain::{
    ids::ApiKeyId,
    ports::{Clock, Expectation, PaymentChange, PaymentWriter},
    AccountId, ApiKeyRecord, BinInfo, Currency, MerchantId, Mode, Operation, OperationSet, Payment,
    PaymentId, PaymentStatus, PosAccount, StoreError,
};
use paygate_dynamo::{
    Client, DynamoAccounts, DynamoApiKeys, DynamoBins, DynamoPayments, DynamoSimLedger, TableNames,
};
use paygate_simbank::{InitialBankState, SimBank};
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Seed {
    pub merchants: Vec<SeedMerchant>,
    #[serde(default)]
    pub bins: Vec<BinInfo>,
    #[serde(default)]
    pub payments: Vec<SeedPayment>,
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

#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    #[error("reading {0}: {1}")]
    Read(String, String),
    #[error("store: {0}")]
    Store(#[from] StoreError),
    #[error("seed payment {0}: {1}")]
    Payment(String, &'static str),
}

impl Seed {
    pub fn from_file(path: &Path) -> Result<Self, SeedError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| SeedError::Read(path.display().to_string(), e.to_string()))?;
        serde_json::from_str(&text)
            .map_err(|e| SeedError::Read(path.display().to_string(), e.to_string()))
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
            })
        })
    }
}

/// Writes the seed into the stack's tables (idempotent: existing payments are kept).
pub async fn load(
    client: &Client,
    t: &TableNames,
    seed: &Seed,
    clock: Arc<dyn Clock>,
) -> Result<(), SeedError> {
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
            let record = ApiKeyRecord {
                key_id: k.id.clone(),
                merchant_id: m.id.clone(),
                mode: k.mode,
                active: true,
            };
            keys.put_key(&paygate_ops::hash_api_key(&k.key), &record)
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
        let order_id = format!(
            "SEED{}",
            p.id.as_str().trim_start_matches("pay_").to_uppercase()
        );
        let payment = Payment {
            id: p.id.clone(),
            merchant_id: p.merchant_id.clone(),
            mode: p.mode,
            account_id: p.account_id.clone(),
            order_id: order_id.clone(),
            currency: p.currency,
            amount: p.amount,
            captured_amount: if p.status == PaymentStatus::Captured {
                p.amount
            } else {
                0
            },
            refunded_amount: 0,
            status: p.status,
            pending: None,
            auth_code: String::new(),
            rrn: String::new(),
            version: 1,
            created_at: now,
            updated_at: now,
        };
        match payments
            .save(PaymentChange {
                payment,
                expect: Expectation::Absent,
                transaction: None,
                event: None,
            })
            .await
        {
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
