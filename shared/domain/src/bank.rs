//! What a bank says back, in the gateway's own terms (adapters map each protocol onto these).

use serde::{Deserialize, Serialize};

/// The answer to a money-moving operation (capture, cancel, refund).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BankOutcome {
    /// The bank approved it.
    Approved {
        code: String,
        auth_code: Option<String>,
        rrn: Option<String>,
    },
    /// The bank declined it; nothing moved. `after_cutoff` marks a cancel refused because the
    /// bank's end-of-day cut has passed (a refund is the way then).
    Declined {
        code: String,
        message: String,
        after_cutoff: bool,
    },
    /// The bank (or provider) answered with a technical error; nothing moved.
    Error { code: String, message: String },
    /// No usable answer (time-out, dropped connection): the outcome is unknown and must be
    /// settled by a status query, never by retrying the money movement.
    Unknown { reason: String },
}

/// The bank-side state of an order, as the spec's `bank.state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BankState {
    Approved,
    Preauth,
    Cancelled,
    Refunded,
    PartiallyRefunded,
    Declined,
    Unknown,
}

impl BankState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Approved => "approved",
            Self::Preauth => "preauth",
            Self::Cancelled => "cancelled",
            Self::Refunded => "refunded",
            Self::PartiallyRefunded => "partially_refunded",
            Self::Declined => "declined",
            Self::Unknown => "unknown",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::Approved,
            Self::Preauth,
            Self::Cancelled,
            Self::Refunded,
            Self::PartiallyRefunded,
            Self::Declined,
            Self::Unknown,
        ]
        .into_iter()
        .find(|st| st.as_str() == s)
    }
}

/// The result of a live status query at the bank (the spec's `bank` object, plus the
/// refunded total the gateway needs to settle an unknown refund).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BankStatus {
    /// False when the bank has no record of the order.
    pub found: bool,
    pub state: BankState,
    /// The order's amount at the bank: captured for a sale, held for a pre-authorization.
    pub amount: i64,
    /// Total refunded at the bank so far (internal; not part of the spec's `bank` object).
    pub refunded_amount: i64,
    pub code: String,
    pub auth_code: String,
    pub rrn: String,
}

impl BankStatus {
    /// The bank has no record of the order.
    pub fn not_found(code: &str) -> Self {
        Self {
            found: false,
            state: BankState::Unknown,
            amount: 0,
            refunded_amount: 0,
            code: code.to_owned(),
            auth_code: String::new(),
            rrn: String::new(),
        }
    }

    /// The query itself could not be performed (technical error or time-out).
    pub fn unavailable(code: &str) -> Self {
        Self {
            found: true,
            state: BankState::Unknown,
            ..Self::not_found(code)
        }
    }

    /// Whether this answer is a real bank state (not a failed query).
    pub fn is_conclusive(&self) -> bool {
        !(self.found && self.state == BankState::Unknown)
    }
}

/// The Luhn check digit of a card number (`digits`: ASCII digits only; anything else fails).
pub fn luhn_valid(digits: &str) -> bool {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            match (i % 2 == 1, d * 2) {
                (true, x) if x > 9 => x - 9,
                (true, x) => x,
                (false, _) => d,
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// Card data for a points inquiry. Never logged: `Debug` masks everything but the BIN and
/// the last four digits.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CardDetails {
    pub number: String,
    pub exp_month: String,
    pub exp_year: String,
    pub cvv: String,
    pub holder: String,
}

impl CardDetails {
    /// The masked card number: for 16 to 19 digits the first six and the last four (PCI
    /// DSS's most), e.g. `454360******4242`; shorter numbers show less so that at least
    /// eight digits stay hidden: 15 digits the first six and the last one, 12 to 14 the last
    /// four only, fewer nothing. Anything but ASCII digits shows nothing (one `*` per
    /// character).
    pub fn masked(&self) -> String {
        let n = &self.number;
        if !n.bytes().all(|b| b.is_ascii_digit()) {
            return "*".repeat(n.chars().count());
        }
        let (first, last) = match n.len() {
            16.. => (6, 4),
            15 => (6, 1),
            12..=14 => (0, 4),
            _ => (0, 0),
        };
        format!(
            "{}{}{}",
            &n[..first],
            "*".repeat(n.len() - first - last),
            &n[n.len() - last..]
        )
    }
}

impl std::fmt::Debug for CardDetails {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CardDetails")
            .field("number", &self.masked())
            .field("exp", &"**/**")
            .field("cvv", &"***")
            .field("holder", &"[redacted]")
            .finish()
    }
}

/// One points programme balance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PointsBalance {
    pub name: String,
    /// Decimal amount with a fractional part, e.g. `"58.71"`.
    pub value: String,
    pub amount_minor: i64,
}

/// The answer to a points inquiry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PointsResult {
    Ok { balances: Vec<PointsBalance> },
    Declined { code: String, message: String },
    Error { code: String, message: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luhn() {
        assert!(luhn_valid("4111111111111111"));
        assert!(!luhn_valid("4111111111111112"));
        assert!(luhn_valid("5406675406675403"));
        assert!(!luhn_valid(""));
        assert!(!luhn_valid("4111-1111"));
    }

    #[test]
    fn card_debug_never_shows_the_pan_or_cvv() {
        let card = CardDetails {
            number: "4543600299100712".into(),
            exp_month: "12".into(),
            exp_year: "2030".into(),
            cvv: "123".into(),
            holder: "Ayşe Yılmaz".into(),
        };
        let shown = format!("{card:?}");
        assert!(!shown.contains("4543600299100712"));
        assert!(!shown.contains("123\""));
        assert!(!shown.contains("Ayşe"));
        assert!(shown.contains("454360******0712"));
    }

    #[test]
    fn shorter_card_numbers_keep_at_least_eight_digits_hidden() {
        let masked = |number: &str| {
            CardDetails {
                number: number.into(),
                exp_month: "12".into(),
                exp_year: "2030".into(),
                cvv: "123".into(),
                holder: "A".into(),
            }
            .masked()
        };
        let digits = "1234567890123456789";
        for (len, want) in [
            (8, "********"),
            (11, "***********"),
            (12, "********9012"),
            (13, "*********0123"),
            (14, "**********1234"),
            (15, "123456********5"),
            (16, "123456******3456"),
            (17, "123456*******4567"),
            (18, "123456********5678"),
            (19, "123456*********6789"),
        ] {
            let got = masked(&digits[..len]);
            assert_eq!(got, want, "{len} digits");
            let hidden = got.bytes().filter(|b| *b == b'*').count();
            assert!(hidden >= 8 || (len == 16 && hidden == 6) || (len == 17 && hidden == 7));
        }
        // not digits: nothing shown, and no panic on a multi-byte character
        assert_eq!(masked("4543-6002-9910-0712"), "*******************");
        assert_eq!(masked("€€€€€€€€€€€€€€€€"), "****************");
        assert_eq!(masked(""), "");
    }

    #[test]
    fn a_failed_query_is_not_conclusive() {
        assert!(!BankStatus::unavailable("91").is_conclusive());
        assert!(BankStatus::not_found("NF").is_conclusive());
    }
}
