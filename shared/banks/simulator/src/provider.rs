//! The simulator as a [`PosProvider`]: real per-order state, deterministic triggers.

use std::sync::Arc;

use async_trait::async_trait;
use paygate_domain::{
    bank::{BankOutcome, BankState, BankStatus, CardDetails, PointsBalance, PointsResult},
    money::format_decimal,
    ports::{BankOperation, Clock, PosProvider},
    Currency, PosAccount, StoreError, Timestamp,
};

use crate::ledger::{SimLedger, SimOrder, SimOrderState, SimTxn};

/// Provider code of the simulator.
pub const PROVIDER_CODE: &str = paygate_domain::SIMULATOR_PROVIDER;

/// Amount that is declined with bank code `51`.
pub const DECLINE_AMOUNT: i64 = 5100;
/// Amount that gets a technical error, bank code `91`.
pub const ERROR_AMOUNT: i64 = 9100;
/// Amount that gets no answer (the bank applies the operation; the answer is lost).
pub const TIMEOUT_AMOUNT: i64 = 9900;

/// Istanbul is UTC+3 all year; Turkish banks cut their day at local midnight.
const BANK_UTC_OFFSET_HOURS: i8 = 3;

/// What the bank holds for an order the test helper registers (the port's own type).
pub use paygate_domain::ports::TestOrderState as InitialBankState;

/// The simulated bank.
pub struct SimBank {
    ledger: Arc<dyn SimLedger>,
    clock: Arc<dyn Clock>,
}

enum Applied {
    Done(Box<SimOrder>, SimTxn),
    Refused(BankOutcome),
}

impl SimBank {
    pub fn new(ledger: Arc<dyn SimLedger>, clock: Arc<dyn Clock>) -> Self {
        Self { ledger, clock }
    }

    /// Registers an order at the bank, as if the payment had been authorized or sold there.
    /// `InitialBankState::None` registers nothing.
    pub async fn register_order(
        &self,
        account: &PosAccount,
        order_id: &str,
        amount: i64,
        currency: Currency,
        state: InitialBankState,
        settled: bool,
    ) -> Result<(), StoreError> {
        let now = self.clock.now();
        let state = match state {
            InitialBankState::Approved => SimOrderState::Sale,
            InitialBankState::Preauth => SimOrderState::Preauth,
            InitialBankState::Declined => SimOrderState::Declined,
            InitialBankState::None => return Ok(()),
        };
        let approved = state != SimOrderState::Declined;
        let order = SimOrder {
            account_id: account.id.clone(),
            order_id: order_id.to_owned(),
            currency,
            amount,
            state,
            refunded: 0,
            auth_code: if approved {
                auth_code(order_id)
            } else {
                String::new()
            },
            rrn: if approved { rrn(now, 0) } else { String::new() },
            business_day: now.business_day(BANK_UTC_OFFSET_HOURS),
            settled,
            // Only an order *registered* with a trigger amount has failing queries, so an
            // operation of that amount on another order can still be settled by query.
            query_fails: match amount {
                ERROR_AMOUNT => Some("91".to_owned()),
                TIMEOUT_AMOUNT => Some("timeout".to_owned()),
                _ => None,
            },
            history: Vec::new(),
            version: 1,
        };
        self.ledger.store(&order).await
    }

    fn after_cutoff(&self, order: &SimOrder, now: Timestamp) -> bool {
        order.settled || order.business_day < now.business_day(BANK_UTC_OFFSET_HOURS)
    }

    /// Runs one money-moving operation: triggers first, then the bank's own rules.
    async fn operate(&self, account: &PosAccount, op: &BankOperation, kind: &str) -> BankOutcome {
        match op.amount {
            DECLINE_AMOUNT => return declined("51", "YETERSIZ BAKIYE (insufficient funds)"),
            ERROR_AMOUNT => {
                return BankOutcome::Error {
                    code: "91".into(),
                    message: "ISSUER OR SWITCH INOPERATIVE".into(),
                }
            }
            _ => {}
        }
        let now = self.clock.now();
        let applied = match self.apply(account, op, kind, now).await {
            Ok(a) => a,
            Err(e) => {
                return BankOutcome::Error {
                    code: "96".into(),
                    message: format!("SYSTEM MALFUNCTION ({})", short(&e)),
                }
            }
        };
        match applied {
            Applied::Refused(outcome) => outcome,
            Applied::Done(order, txn) => {
                if op.amount == TIMEOUT_AMOUNT {
                    // The bank did the work; the answer never reaches us.
                    return BankOutcome::Unknown {
                        reason: "no answer from the bank within the time limit".into(),
                    };
                }
                BankOutcome::Approved {
                    code: "00".into(),
                    auth_code: Some(order.auth_code.clone()).filter(|s| !s.is_empty()),
                    rrn: Some(txn.rrn),
                }
            }
        }
    }

    async fn apply(
        &self,
        account: &PosAccount,
        op: &BankOperation,
        kind: &str,
        now: Timestamp,
    ) -> Result<Applied, StoreError> {
        let Some(mut order) = self.ledger.load(&account.id, &op.order_id).await? else {
            return Ok(Applied::Refused(declined("CORE-2008", "ORDER NOT FOUND")));
        };
        let refusal = match (kind, order.state) {
            ("capture", SimOrderState::Preauth) if op.amount > order.amount => Some(declined(
                "CORE-2010",
                "POSTAUTH AMOUNT EXCEEDS PREAUTH AMOUNT",
            )),
            ("capture", SimOrderState::Preauth) => None,
            ("capture", _) => Some(declined("CORE-2012", "NO OPEN PREAUTH FOR ORDER")),
            ("cancel", SimOrderState::Preauth | SimOrderState::Sale) if order.refunded > 0 => {
                Some(declined("CORE-2008", "NO SALE ELIGIBLE FOR VOID"))
            }
            ("cancel", SimOrderState::Preauth | SimOrderState::Sale)
                if self.after_cutoff(&order, now) =>
            {
                Some(BankOutcome::Declined {
                    code: "CORE-2009".into(),
                    message: "END OF DAY PASSED, VOID NOT POSSIBLE; USE REFUND".into(),
                    after_cutoff: true,
                })
            }
            ("cancel", SimOrderState::Preauth | SimOrderState::Sale) => None,
            ("cancel", _) => Some(declined("CORE-2008", "NO SALE ELIGIBLE FOR VOID")),
            ("refund", SimOrderState::Sale) if op.amount > order.amount - order.refunded => Some(
                declined("CORE-2504", "REFUND AMOUNT EXCEEDS REMAINING AMOUNT"),
            ),
            ("refund", SimOrderState::Sale) => None,
            _ => Some(declined("CORE-2502", "NO SALE ELIGIBLE FOR REFUND")),
        };
        if let Some(outcome) = refusal {
            return Ok(Applied::Refused(outcome));
        }
        let txn = SimTxn {
            kind: kind.to_owned(),
            amount: op.amount,
            reference: op.transaction_id.to_string(),
            rrn: rrn(now, order.history.len() + 1),
            at: now,
        };
        match kind {
            "capture" => {
                order.state = SimOrderState::Sale;
                order.amount = op.amount;
            }
            "cancel" => order.state = SimOrderState::Cancelled,
            _ => order.refunded += op.amount,
        }
        order.history.push(txn.clone());
        order.version += 1;
        self.ledger.store(&order).await?;
        Ok(Applied::Done(Box::new(order), txn))
    }
}

fn declined(code: &str, message: &str) -> BankOutcome {
    BankOutcome::Declined {
        code: code.to_owned(),
        message: message.to_owned(),
        after_cutoff: false,
    }
}

fn short(e: &StoreError) -> &'static str {
    match e {
        StoreError::Conflict { .. } => "concurrent update",
        _ => "ledger unavailable",
    }
}

/// A deterministic six-digit authorization code for an order.
fn auth_code(order_id: &str) -> String {
    let h = order_id
        .bytes()
        .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    format!("{:06}", h % 1_000_000)
}

/// A twelve-digit retrieval reference number.
fn rrn(now: Timestamp, seq: usize) -> String {
    let base = now.unix_millis().rem_euclid(10_000_000_000) as u64;
    format!("{:010}{:02}", base, seq % 100)
}

/// Balances the simulator reports for a card, by the issuing bank of the account.
fn balances(account: &PosAccount, card: &CardDetails) -> Vec<PointsBalance> {
    let digits: String = card.number.chars().filter(char::is_ascii_digit).collect();
    let tail: i64 = digits
        .get(digits.len().saturating_sub(6)..)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let base = tail % 50_000 + 100;
    let programmes: &[(&str, i64)] = match account.bank_code.as_str() {
        "0064" => &[("Maximum", 1)],
        "0062" => &[("Bonus", 1), ("FirmBonus", 3)],
        "0067" => &[("WorldPuan", 1)],
        "0046" => &[("Axess chip-para", 1)],
        _ => &[("Puan", 1)],
    };
    programmes
        .iter()
        .map(|(name, div)| {
            let amount = base / div;
            PointsBalance {
                name: (*name).to_owned(),
                value: format_decimal(amount),
                amount_minor: amount,
            }
        })
        .collect()
}

#[async_trait]
impl PosProvider for SimBank {
    fn code(&self) -> &'static str {
        PROVIDER_CODE
    }

    fn decline_codes(&self) -> &'static [(&'static str, paygate_domain::DeclineCode)] {
        crate::decline::TABLE
    }

    async fn capture(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        self.operate(account, op, "capture").await
    }

    async fn cancel(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        self.operate(account, op, "cancel").await
    }

    async fn refund(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        self.operate(account, op, "refund").await
    }

    async fn query(&self, account: &PosAccount, order_id: &str) -> BankStatus {
        let order = match self.ledger.load(&account.id, order_id).await {
            Ok(Some(o)) => o,
            Ok(None) => return BankStatus::not_found("CORE-2008"),
            Err(_) => return BankStatus::unavailable("96"),
        };
        if let Some(code) = &order.query_fails {
            return BankStatus::unavailable(code);
        }
        let state = match order.state {
            SimOrderState::Preauth => BankState::Preauth,
            SimOrderState::Cancelled => BankState::Cancelled,
            SimOrderState::Declined => BankState::Declined,
            SimOrderState::Sale if order.refunded >= order.amount => BankState::Refunded,
            SimOrderState::Sale if order.refunded > 0 => BankState::PartiallyRefunded,
            SimOrderState::Sale => BankState::Approved,
        };
        BankStatus {
            found: true,
            state,
            amount: order.amount,
            refunded_amount: order.refunded,
            code: if state == BankState::Declined {
                "05"
            } else {
                "00"
            }
            .to_owned(),
            auth_code: order.auth_code,
            rrn: order.rrn,
        }
    }

    fn test_orders(&self) -> Option<&dyn paygate_domain::ports::TestOrders> {
        Some(self)
    }

    async fn points_inquiry(
        &self,
        account: &PosAccount,
        card: &CardDetails,
        _currency: Currency,
    ) -> PointsResult {
        if card.number.ends_with("5100") {
            return PointsResult::Declined {
                code: "51".into(),
                message: "CARD NOT ELIGIBLE FOR POINTS".into(),
            };
        }
        if card.number.ends_with("9100") {
            return PointsResult::Error {
                code: "91".into(),
                message: "ISSUER OR SWITCH INOPERATIVE".into(),
            };
        }
        PointsResult::Ok {
            balances: balances(account, card),
        }
    }
}

#[async_trait]
impl paygate_domain::ports::TestOrders for SimBank {
    async fn register(
        &self,
        account: &PosAccount,
        order: &paygate_domain::ports::TestOrder,
    ) -> Result<(), StoreError> {
        use paygate_domain::ports::TestOrderState as S;
        let state = match order.state {
            S::Approved => InitialBankState::Approved,
            S::Preauth => InitialBankState::Preauth,
            S::Declined => InitialBankState::Declined,
            S::None => InitialBankState::None,
        };
        self.register_order(
            account,
            &order.order_id,
            order.amount,
            order.currency,
            state,
            order.settled,
        )
        .await
    }
}

#[cfg(test)]
mod tests;
