//! Money: integers in minor units (kuruş for TRY). Never floats.

use serde::{Deserialize, Serialize};

/// The largest amount one payment or operation may carry: 10,000,000,000 minor units
/// (100 million TRY). Larger values are refused with `invalid_amount`.
pub const MAX_AMOUNT: i64 = 10_000_000_000;

/// ISO 4217 currencies a POS account can settle in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Currency {
    #[serde(rename = "TRY")]
    Try,
    #[serde(rename = "USD")]
    Usd,
    #[serde(rename = "EUR")]
    Eur,
    #[serde(rename = "GBP")]
    Gbp,
}

impl Currency {
    pub fn code(self) -> &'static str {
        match self {
            Self::Try => "TRY",
            Self::Usd => "USD",
            Self::Eur => "EUR",
            Self::Gbp => "GBP",
        }
    }

    pub fn parse(code: &str) -> Option<Self> {
        match code {
            "TRY" => Some(Self::Try),
            "USD" => Some(Self::Usd),
            "EUR" => Some(Self::Eur),
            "GBP" => Some(Self::Gbp),
            _ => None,
        }
    }

    /// ISO 4217 numeric code, as most Turkish bank protocols want it.
    pub fn numeric(self) -> &'static str {
        match self {
            Self::Try => "949",
            Self::Usd => "840",
            Self::Eur => "978",
            Self::Gbp => "826",
        }
    }
}

/// Formats minor units as a decimal string with two fractional digits (`12345` → `"123.45"`).
pub fn format_decimal(minor: i64) -> String {
    let sign = if minor < 0 { "-" } else { "" };
    let abs = minor.unsigned_abs();
    format!("{sign}{}.{:02}", abs / 100, abs % 100)
}

/// Whether an operation amount is acceptable on its own (positive, within [`MAX_AMOUNT`]).
pub fn valid_amount(minor: i64) -> bool {
    minor > 0 && minor <= MAX_AMOUNT
}

/// An amount a merchant may ask for: minor units, positive and within [`MAX_AMOUNT`] by
/// construction. The edge parses request amounts into it, so the rule is the domain's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Amount(i64);

impl Amount {
    /// `minor` units, or `DomainError::InvalidAmount`.
    pub fn new(minor: i64) -> Result<Self, crate::DomainError> {
        if valid_amount(minor) {
            Ok(Self(minor))
        } else {
            Err(crate::DomainError::InvalidAmount)
        }
    }

    /// The minor units.
    pub fn minor(self) -> i64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_formatting() {
        assert_eq!(format_decimal(0), "0.00");
        assert_eq!(format_decimal(5), "0.05");
        assert_eq!(format_decimal(12345), "123.45");
        assert_eq!(format_decimal(-250), "-2.50");
    }

    #[test]
    fn amount_bounds() {
        assert!(!valid_amount(0));
        assert!(!valid_amount(-1));
        assert!(valid_amount(1));
        assert!(valid_amount(MAX_AMOUNT));
        assert!(!valid_amount(MAX_AMOUNT + 1));
    }

    #[test]
    fn amounts_exist_only_within_the_bounds() {
        assert_eq!(Amount::new(1).map(Amount::minor), Ok(1));
        assert_eq!(Amount::new(MAX_AMOUNT).map(Amount::minor), Ok(MAX_AMOUNT));
        for bad in [0, -1, MAX_AMOUNT + 1] {
            assert_eq!(Amount::new(bad), Err(crate::DomainError::InvalidAmount));
        }
    }

    #[test]
    fn currency_codes_round_trip() {
        for c in [Currency::Try, Currency::Usd, Currency::Eur, Currency::Gbp] {
            assert_eq!(Currency::parse(c.code()), Some(c));
        }
        assert_eq!(Currency::parse("try"), None);
    }
}
