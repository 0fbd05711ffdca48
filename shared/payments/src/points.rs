//! Card points inquiry, routed to the account given or to the card's issuing bank.

use std::sync::Arc;

use paygate_domain::{
    ports::BinLookup, AccountId, CardDetails, Currency, Operation, PointsBalance, PointsResult,
    PosAccount,
};

use crate::{auth::Principal, bank_access::BankAccess, error::OpError};

pub struct PointsDeps {
    /// The caller's accounts and their banks.
    pub banks: BankAccess,
    /// Which bank issued a card (by BIN).
    pub bins: Arc<dyn BinLookup>,
}

/// A points inquiry as parsed from the request body (shape already checked).
#[derive(Debug)]
pub struct PointsRequest {
    pub card: CardDetails,
    pub currency: String,
    pub account_id: Option<AccountId>,
}

/// The spec's points inquiry response; `failure` is present when `ok` is false.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PointsResponse {
    pub account_id: AccountId,
    pub provider_code: String,
    pub ok: bool,
    pub balances: Vec<PointsBalance>,
    pub total_amount: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<PointsFailure>,
}

/// Why an inquiry did not succeed: the bank declined it, or a technical error.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PointsFailure {
    pub kind: &'static str,
    pub bank_code: String,
    pub message: String,
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Checks the card fields; the error names the field, never its value.
pub fn validate_card(card: &CardDetails) -> Result<(), OpError> {
    let invalid = |field, reason: &str| OpError::Invalid {
        field,
        reason: reason.to_owned(),
    };
    let n = &card.number;
    if !all_digits(n) || !(12..=19).contains(&n.len()) || !paygate_domain::bank::luhn_valid(n) {
        return Err(invalid(
            "card.number",
            "must be 12-19 digits with a valid check digit",
        ));
    }
    let month: u32 = card.exp_month.parse().unwrap_or(0);
    if !all_digits(&card.exp_month) || card.exp_month.len() > 2 || !(1..=12).contains(&month) {
        return Err(invalid("card.expMonth", "must be a month, 1-12, as digits"));
    }
    if !all_digits(&card.exp_year) || !(card.exp_year.len() == 2 || card.exp_year.len() == 4) {
        return Err(invalid("card.expYear", "must be 2 or 4 digits"));
    }
    if !all_digits(&card.cvv) || !(3..=4).contains(&card.cvv.len()) {
        return Err(invalid("card.cvv", "must be 3 or 4 digits"));
    }
    if card.holder.trim().is_empty() || card.holder.chars().count() > 64 {
        return Err(invalid("card.holder", "must be 1-64 characters"));
    }
    Ok(())
}

/// The account to ask: the one named, or the merchant's account at the card's issuing bank
/// (BIN: first 8 digits, then 6), preferring one that supports points inquiry.
async fn choose_account(
    deps: &PointsDeps,
    principal: &Principal,
    req: &PointsRequest,
) -> Result<PosAccount, OpError> {
    // Only accounts of the caller's mode: another mode's account is as absent as another
    // merchant's, so a test key never reaches live bank credentials.
    let (merchant, mode) = (&principal.merchant_id, principal.mode);
    if let Some(id) = &req.account_id {
        return deps
            .banks
            .account_in_mode(merchant, mode, id)
            .await?
            .ok_or(OpError::NotFound("account"));
    }
    let n = &req.card.number;
    let mut bin = None;
    for len in [8, 6] {
        if let Some(prefix) = n.get(..len) {
            if let Some(found) = deps.bins.find_bin(prefix).await? {
                bin = Some(found);
                break;
            }
        }
    }
    let bin = bin.ok_or(OpError::NoAccountForCard)?;
    let mut at_bank: Vec<PosAccount> = deps
        .banks
        .accounts_in_mode(merchant, mode)
        .await?
        .into_iter()
        .filter(|a| a.bank_code == bin.bank_code)
        .collect();
    at_bank.sort_by_key(|a| !deps.banks.supports(a, Operation::PointsInquiry));
    at_bank.into_iter().next().ok_or(OpError::NoAccountForCard)
}

pub async fn points_inquiry(
    deps: &PointsDeps,
    principal: &Principal,
    req: PointsRequest,
) -> Result<PointsResponse, OpError> {
    validate_card(&req.card)?;
    let currency = Currency::parse(&req.currency).ok_or_else(|| OpError::Invalid {
        field: "currency",
        reason: "must be one of TRY, USD, EUR, GBP".to_owned(),
    })?;
    let account = choose_account(deps, principal, &req).await?;
    deps.banks
        .ensure_supports(&account, Operation::PointsInquiry)?;
    let provider = deps.banks.provider(&account)?;
    let result = provider.points_inquiry(&account, &req.card, currency).await;
    tracing::info!(account_id = %account.id, card = %req.card.masked(), "points inquiry answered");
    let mut resp = PointsResponse {
        account_id: account.id.clone(),
        provider_code: account.provider_code.clone(),
        ok: false,
        balances: Vec::new(),
        total_amount: 0,
        failure: None,
    };
    match result {
        PointsResult::Ok { balances } => {
            resp.ok = true;
            resp.total_amount = balances.iter().map(|b| b.amount_minor).sum();
            resp.balances = balances;
        }
        PointsResult::Declined { code, message } => {
            resp.failure = Some(PointsFailure {
                kind: "declined",
                bank_code: code,
                message,
            });
        }
        PointsResult::Error { code, message } => {
            resp.failure = Some(PointsFailure {
                kind: "provider_error",
                bank_code: code,
                message,
            });
        }
    }
    Ok(resp)
}
