//! The built-in bank simulator provider (`provider_code = "simulator"`).
//!
//! It keeps real per-order state in a [`SimLedger`] (DynamoDB in the stack, memory in unit
//! tests), so a `query` reflects what earlier operations did. Deterministic triggers, by the
//! operation's amount in minor units:
//!
//! | amount | answer |
//! |---|---|
//! | 5100 | declined, bank code `51` (insufficient funds) |
//! | 9100 | technical error, bank code `91` (issuer or switch inoperative) |
//! | 9900 | no answer (time-out); the bank *did* apply the operation, so a later query shows it |
//!
//! A cancel is declined (`after_cutoff`) once the bank's end-of-day cut has passed for the
//! order: its business day (Istanbul, UTC+3) is before today's, or it was registered
//! `settled`. A query of an order *registered* with amount 9100 or 9900 cannot be performed
//! (`state = unknown`, `found = true`); orders that only saw an operation of that amount
//! query normally, so its unknown outcome can be settled. Points inquiry: a card ending in `5100` is declined,
//! one ending in `9100` gets a technical error.

pub mod decline;
mod ledger;
mod provider;

pub use ledger::{MemoryLedger, SimLedger, SimOrder, SimOrderState, SimTxn};
pub use provider::{
    InitialBankState, SimBank, DECLINE_AMOUNT, ERROR_AMOUNT, PROVIDER_CODE, TIMEOUT_AMOUNT,
};
