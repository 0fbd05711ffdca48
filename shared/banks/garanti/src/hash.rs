//! GVPS request hashing, API version `512` (the current rule).
//!
//! - `SecurityData = UPPER(HEX(SHA1(password + terminalId left-padded with '0' to 9)))`
//! - `HashData = UPPER(HEX(SHA512(OrderID + TerminalID + CardNumber + Amount + CurrencyCode
//!   + SecurityData)))`, with `CardNumber` empty when the request carries no card.
//!
//! The password is the one of the user in `Terminal/ProvUserID`: PROVAUT's for postauth and
//! queries, PROVRFN's for void and refund. The legacy `v0.01` rule (SHA-1, no currency code)
//! is not implemented; see the crate README for the sources.

use sha1::Sha1;
use sha2::{Digest, Sha512};

/// The terminal id as it enters `SecurityData`: left-padded with zeros to 9 characters.
pub fn padded_terminal_id(terminal_id: &str) -> String {
    format!("{terminal_id:0>9}")
}

/// `SecurityData` for a user's password and the terminal.
pub fn security_data(password: &str, terminal_id: &str) -> String {
    let mut h = Sha1::new();
    h.update(password.as_bytes());
    h.update(padded_terminal_id(terminal_id).as_bytes());
    hex::encode_upper(h.finalize())
}

/// The fields a request's `HashData` covers, exactly as they are sent.
#[derive(Debug, Clone, Copy)]
pub struct HashInput<'a> {
    pub order_id: &'a str,
    pub terminal_id: &'a str,
    /// The card number, or `""` for requests without a card.
    pub card_number: &'a str,
    /// `Transaction/Amount` as sent (kuruş digits, or the fixed amount of void/queries).
    pub amount: &'a str,
    pub currency_code: &'a str,
}

/// `HashData` (SHA-512, upper-case hex) for a request signed with `password`.
pub fn hash_data(input: &HashInput<'_>, password: &str) -> String {
    let security = security_data(password, input.terminal_id);
    let mut h = Sha512::new();
    for part in [
        input.order_id,
        input.terminal_id,
        input.card_number,
        input.amount,
        input.currency_code,
        security.as_str(),
    ] {
        h.update(part.as_bytes());
    }
    hex::encode_upper(h.finalize())
}

#[cfg(test)]
#[path = "hash_tests.rs"]
mod tests;
