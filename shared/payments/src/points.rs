//! Card points inquiry, routed to the account given or to the card's issuing bank.

use std::sync::Arc;

use async_trait::async_trait;
use paygate_domain::{
    ports::BinLookup, throttle::Refused, AccountId, CardDetails, Currency, Operation,
    PointsBalance, PointsResult, PosAccount,
};

use crate::{auth::Principal, bank_access::BankAccess, error::OpError};

pub struct PointsDeps {
    /// The caller's accounts and their banks.
    pub banks: BankAccess,
    /// Which bank issued a card (by BIN).
    pub bins: Arc<dyn BinLookup>,
    /// The per-card limit across merchants.
    pub card_gate: Arc<dyn CardGate>,
}

/// The per-card limit across every merchant (`paygate_domain::throttle::Scope::PointsCard`):
/// asked once per inquiry, after the card's fields are valid and before anything else (no
/// account or BIN read, no bank call). It counts the card under a keyed HMAC of its number,
/// never the number (`paygate_domain::throttle::card`); when it cannot count, it refuses
/// ([`Refused::Unchecked`]): the limit fails closed.
#[async_trait]
pub trait CardGate: Send + Sync {
    /// One inquiry of `principal` (its mode separates the counts; its key is what a log may
    /// name) on the card `number`.
    async fn admit(&self, principal: &Principal, number: &str) -> Result<(), Refused>;
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

/// Why an inquiry did not succeed, from a small fixed set: the bank declined it, or a
/// technical error. The bank's own code and text never reach the caller: they tell a
/// wrong CVV from an unknown card or a card without a points programme, which is what
/// someone probing stolen cards wants to learn. The code is logged when it is safe
/// ([`loggable_bank_code`]); the bank's text is not.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PointsFailure {
    /// `declined` or `provider_error`.
    pub kind: &'static str,
    /// A fixed text per kind.
    pub message: &'static str,
}

impl PointsFailure {
    /// The bank declined the inquiry (whatever its reason).
    pub const DECLINED: Self = Self {
        kind: "declined",
        message: "The bank declined the points inquiry.",
    };
    /// The bank could not answer (a technical error at or on the way to the bank).
    pub const PROVIDER_ERROR: Self = Self {
        kind: "provider_error",
        message: "The bank could not answer the points inquiry. Try again later.",
    };

    /// The caller's failure for the bank's result: none for a success, otherwise the generic
    /// one of its kind (nothing of the bank's code or text).
    pub fn of(result: &PointsResult) -> Option<Self> {
        match result {
            PointsResult::Ok { .. } => None,
            PointsResult::Declined { .. } => Some(Self::DECLINED),
            PointsResult::Error { .. } => Some(Self::PROVIDER_ERROR),
        }
    }
}

/// The bank's code as it may be logged: a short code of letters, digits, `-`, `_` and `.`
/// (or none) that holds neither the card's CVV nor four or more of its number's digits in a row;
/// otherwise `"(withheld)"`. A bank that echoes card data in its code never gets it logged.
pub fn loggable_bank_code<'a>(code: &'a str, card: &CardDetails) -> &'a str {
    const WITHHELD: &str = "(withheld)";
    let shape_ok = code.len() <= 32
        && code
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    let digits: Vec<&[u8]> = code
        .as_bytes()
        .split(|b| !b.is_ascii_digit())
        .filter(|run| !run.is_empty())
        .collect();
    let pan = card.number.as_bytes();
    let holds_card = (!card.cvv.is_empty() && code.contains(card.cvv.as_str()))
        || digits
            .iter()
            .any(|run| run.windows(4).any(|w| pan.windows(4).any(|p| p == w)));
    if shape_ok && !holds_card {
        code
    } else {
        WITHHELD
    }
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
    // A valid card: counted against its limit before anything is looked up or sent.
    deps.card_gate
        .admit(principal, &req.card.number)
        .await
        .map_err(OpError::Throttled)?;
    let account = choose_account(deps, principal, &req).await?;
    deps.banks
        .ensure_supports(&account, Operation::PointsInquiry)?;
    let provider = deps.banks.provider(&account)?;
    let result = provider.points_inquiry(&account, &req.card, currency).await;
    let (outcome, bank_code) = match &result {
        PointsResult::Ok { .. } => ("ok", ""),
        PointsResult::Declined { code, .. } => ("declined", code.as_str()),
        PointsResult::Error { code, .. } => ("provider_error", code.as_str()),
    };
    tracing::info!(
        account_id = %account.id,
        card = %req.card.masked(),
        outcome,
        bank_code = loggable_bank_code(bank_code, &req.card),
        "points inquiry answered"
    );
    let mut resp = PointsResponse {
        account_id: account.id.clone(),
        provider_code: account.provider_code.clone(),
        ok: false,
        balances: Vec::new(),
        total_amount: 0,
        failure: None,
    };
    resp.failure = PointsFailure::of(&result);
    if let PointsResult::Ok { balances } = result {
        resp.ok = true;
        resp.total_amount = balances.iter().map(|b| b.amount_minor).sum();
        resp.balances = balances;
    }
    Ok(resp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card() -> CardDetails {
        CardDetails {
            number: "4543609898987777".into(),
            exp_month: "12".into(),
            exp_year: "2030".into(),
            cvv: "987".into(),
            holder: "Ayşe Yılmaz".into(),
        }
    }

    #[test]
    fn a_failure_carries_a_fixed_text_and_nothing_of_the_bank() {
        let declined = PointsResult::Declined {
            code: "82".into(),
            message: "CVV HATALI".into(),
        };
        let error = PointsResult::Error {
            code: "9999".into(),
            message: "KART BULUNAMADI".into(),
        };
        let ok = PointsResult::Ok { balances: vec![] };
        assert_eq!(PointsFailure::of(&declined), Some(PointsFailure::DECLINED));
        assert_eq!(
            PointsFailure::of(&error),
            Some(PointsFailure::PROVIDER_ERROR)
        );
        assert_eq!(PointsFailure::of(&ok), None);
        for f in [PointsFailure::DECLINED, PointsFailure::PROVIDER_ERROR] {
            let shown = format!("{f:?}");
            for bank in ["82", "CVV", "9999", "KART"] {
                assert!(!shown.contains(bank), "{shown}");
            }
        }
    }

    #[test]
    fn a_bank_code_is_logged_only_without_card_data() {
        let c = card();
        for ok in [
            "05",
            "0012",
            "CORE-2205",
            "V036",
            "points_inquiry_not_enabled",
        ] {
            assert_eq!(loggable_bank_code(ok, &c), ok);
        }
        assert_eq!(loggable_bank_code("", &c), "");
        for withheld in [
            "4543609898987777",
            "ERR-7777",
            "E9898",
            "x987",
            "05 card 1111",
            "kart limiti yetersiz",
            "a-bank-code-longer-than-thirty-two-chars",
        ] {
            assert_eq!(loggable_bank_code(withheld, &c), "(withheld)", "{withheld}");
        }
    }
}
