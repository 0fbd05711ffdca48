//! POS accounts and the BIN table.

use async_trait::async_trait;
use aws_sdk_dynamodb::{
    operation::query::builders::QueryFluentBuilder, types::AttributeValue, Client,
};
use paygate_domain::{
    ports::{AccountLookup, BinLookup, MerchantDirectory},
    AccountId, BinInfo, MerchantId, Mode, Operation, OperationSet, PosAccount, StoreError,
};

use crate::dynamo::{
    error::unavailable,
    item::{s, Fields, Item},
    read::{get_item, partition_query, query_all},
};

fn encode_account(a: &PosAccount) -> Item {
    let supported = a.supported.iter().map(|op| s(op.as_str())).collect();
    Item::from([
        ("merchantId".to_owned(), s(a.merchant_id.as_str())),
        ("accountId".to_owned(), s(a.id.as_str())),
        ("providerCode".to_owned(), s(&a.provider_code)),
        ("bankCode".to_owned(), s(&a.bank_code)),
        ("bankName".to_owned(), s(&a.bank_name)),
        ("supported".to_owned(), AttributeValue::L(supported)),
        ("label".to_owned(), s(&a.label)),
        ("mode".to_owned(), s(a.mode.as_str())),
    ])
}

fn decode_account(item: &Item) -> Result<PosAccount, StoreError> {
    let f = Fields::new(item, "POS account");
    let ops = f
        .strings("supported")?
        .into_iter()
        .map(|op| {
            Operation::parse(op).ok_or_else(|| f.corrupt("supported", "has an unknown operation"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(PosAccount {
        id: f.id("accountId", AccountId::parse)?,
        merchant_id: f.id("merchantId", MerchantId::parse)?,
        provider_code: f.str("providerCode")?.to_owned(),
        bank_code: f.text("bankCode")?,
        bank_name: f.text("bankName")?,
        supported: OperationSet::of(&ops),
        label: f.text("label")?,
        // Required: an account whose mode is unknown is never guessed into either mode.
        mode: f.parsed("mode", Mode::parse)?,
    })
}

/// A merchant's POS accounts, by merchant and account id.
#[derive(Debug, Clone)]
pub struct DynamoAccounts {
    client: Client,
    table: String,
}

impl DynamoAccounts {
    /// The adapter over the POS accounts table.
    pub fn new(client: Client, pos_accounts_table: impl Into<String>) -> Self {
        Self {
            client,
            table: pos_accounts_table.into(),
        }
    }

    /// Stores (or replaces) an account. For seeding. An account whose configuration is
    /// refused ([`PosAccount::validate`], e.g. a live account on the simulator) is not
    /// written: `StoreError::Corrupt`.
    pub async fn put_account(&self, account: &PosAccount) -> Result<(), StoreError> {
        account
            .validate()
            .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        self.client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(encode_account(account)))
            .send()
            .await
            .map_err(|e| unavailable("PutItem", &e))?;
        Ok(())
    }

    /// A query of a merchant's accounts.
    fn merchant_query(&self, merchant: &MerchantId) -> QueryFluentBuilder {
        partition_query(&self.client, &self.table, "merchantId", merchant.as_str())
    }
}

#[async_trait]
impl AccountLookup for DynamoAccounts {
    async fn get_account(
        &self,
        merchant: &MerchantId,
        id: &AccountId,
    ) -> Result<Option<PosAccount>, StoreError> {
        let req = self
            .client
            .get_item()
            .table_name(&self.table)
            .key("merchantId", s(merchant.as_str()))
            .key("accountId", s(id.as_str()));
        get_item(req, decode_account).await
    }

    /// All of a merchant's accounts, ordered by account id.
    async fn list_accounts(&self, merchant: &MerchantId) -> Result<Vec<PosAccount>, StoreError> {
        let mut out = query_all(self.merchant_query(merchant), decode_account).await?;
        out.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(out)
    }
}

/// Every account: a paginated `Scan` (the accounts table is small: one item per POS
/// account), for the daily reconciliation's run.
#[async_trait]
impl paygate_domain::daily::AllAccounts for DynamoAccounts {
    async fn all_accounts(&self) -> Result<Vec<PosAccount>, StoreError> {
        let mut out = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let page = self
                .client
                .scan()
                .table_name(&self.table)
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| unavailable("Scan", &e))?;
            for item in page.items() {
                out.push(decode_account(item)?);
            }
            match page.last_evaluated_key.filter(|k| !k.is_empty()) {
                Some(k) => start = Some(k),
                None => break,
            }
        }
        out.sort_by(|a, b| (&a.merchant_id, &a.id).cmp(&(&b.merchant_id, &b.id)));
        Ok(out)
    }
}

/// A merchant exists for the admin API when it has at least one POS account (there is no
/// merchants table; onboarding a merchant means giving it an account).
#[async_trait]
impl MerchantDirectory for DynamoAccounts {
    async fn merchant_exists(&self, merchant: &MerchantId) -> Result<bool, StoreError> {
        let page = self
            .merchant_query(merchant)
            .projection_expression("#m")
            .limit(1)
            .send()
            .await
            .map_err(|e| unavailable("Query", &e))?;
        Ok(!page.items().is_empty())
    }
}

fn encode_bin(b: &BinInfo) -> Item {
    Item::from([
        ("bin".to_owned(), s(&b.bin)),
        ("bankCode".to_owned(), s(&b.bank_code)),
        ("bankName".to_owned(), s(&b.bank_name)),
        ("program".to_owned(), s(&b.program)),
    ])
}

fn decode_bin(item: &Item) -> Result<BinInfo, StoreError> {
    let f = Fields::new(item, "BIN");
    Ok(BinInfo {
        bin: f.str("bin")?.to_owned(),
        bank_code: f.str("bankCode")?.to_owned(),
        bank_name: f.text("bankName")?,
        program: f.text("program")?,
    })
}

/// The BIN → issuing bank table.
#[derive(Debug, Clone)]
pub struct DynamoBins {
    client: Client,
    table: String,
}

impl DynamoBins {
    /// The adapter over the BIN table.
    pub fn new(client: Client, bins_table: impl Into<String>) -> Self {
        Self {
            client,
            table: bins_table.into(),
        }
    }

    /// Stores (or replaces) one BIN row. For seeding.
    pub async fn put_bin(&self, bin: &BinInfo) -> Result<(), StoreError> {
        self.client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(encode_bin(bin)))
            .send()
            .await
            .map_err(|e| unavailable("PutItem", &e))?;
        Ok(())
    }
}

#[async_trait]
impl BinLookup for DynamoBins {
    async fn find_bin(&self, bin: &str) -> Result<Option<BinInfo>, StoreError> {
        if bin.is_empty() {
            // An empty key is a validation error in DynamoDB; no row can match it.
            return Ok(None);
        }
        let req = self
            .client
            .get_item()
            .table_name(&self.table)
            .key("bin", s(bin));
        get_item(req, decode_bin).await
    }
}
