//! A card as a bank request carries it: the number without blanks, the expiry as a checked
//! month and two-digit year, the CVV trimmed. `Debug` shows none of it. Each protocol writes
//! the expiry its own way ([`CardFields::expiry_mm_yy`] `MM/YY`, [`CardFields::expiry_mmyy`]
//! `MMYY`).

use paygate_domain::{bank::PointsResult, CardDetails};

use crate::Refusal;

/// Card fields for a request (a points inquiry). `Debug` hides them.
#[derive(Clone, PartialEq, Eq)]
pub struct CardFields {
    /// The card number, blanks removed.
    pub number: String,
    pub cvv: String,
    month: u8,
    /// The year's last two digits.
    year: String,
}

impl CardFields {
    /// The card's fields; `None` when the expiry is not a month (1–12) and a year of two or
    /// four digits.
    pub fn from_card(card: &CardDetails) -> Option<Self> {
        let month: u8 = card.exp_month.trim().parse().ok()?;
        let year = card.exp_year.trim();
        if !(1..=12).contains(&month)
            || !matches!(year.len(), 2 | 4)
            || !year.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        Some(Self {
            number: card.number.chars().filter(|c| !c.is_whitespace()).collect(),
            cvv: card.cvv.trim().to_owned(),
            month,
            year: year[year.len() - 2..].to_owned(),
        })
    }

    /// The card's fields, or the inquiry's answer for a card whose expiry is not a month and
    /// a year (declined `invalid_card`: nothing was sent).
    pub fn for_points(card: &CardDetails) -> Result<Self, PointsResult> {
        Self::for_request(card).map_err(Refusal::points)
    }

    /// The card's fields, or the request's refusal for a card whose expiry is not a month
    /// and a year (declined `invalid_card`: nothing is sent).
    pub fn for_request(card: &CardDetails) -> Result<Self, Refusal> {
        Self::from_card(card).ok_or_else(|| Refusal::declined("invalid_card", INVALID_EXPIRY))
    }

    /// `MM/YY`.
    pub fn expiry_mm_yy(&self) -> String {
        format!("{:02}/{}", self.month, self.year)
    }

    /// `MMYY`.
    pub fn expiry_mmyy(&self) -> String {
        format!("{:02}{}", self.month, self.year)
    }
}

/// Why a card was not sent: its expiry.
pub const INVALID_EXPIRY: &str = "the card's expiry is not a valid month and year";

impl std::fmt::Debug for CardFields {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CardFields(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(month: &str, year: &str) -> CardDetails {
        CardDetails {
            number: "4155 6501 0041 6111".into(),
            exp_month: month.into(),
            exp_year: year.into(),
            cvv: " 123 ".into(),
            holder: "x".into(),
        }
    }

    #[test]
    fn card_fields_are_formatted_and_checked() {
        let c = CardFields::from_card(&card("1", "2025")).unwrap();
        assert_eq!(
            (c.number.as_str(), c.cvv.as_str()),
            ("4155650100416111", "123")
        );
        assert_eq!(
            (c.expiry_mmyy(), c.expiry_mm_yy()),
            ("0125".into(), "01/25".into())
        );
        let c = CardFields::from_card(&card("3", "2030")).unwrap();
        assert_eq!(c.expiry_mm_yy(), "03/30");
        let c = CardFields::from_card(&card("12", "30")).unwrap();
        assert_eq!(
            (c.expiry_mmyy(), c.expiry_mm_yy()),
            ("1230".into(), "12/30".into())
        );
        for (m, y) in [
            ("13", "2030"),
            ("0", "30"),
            ("1", "203"),
            ("x", "30"),
            ("1", "2x"),
            ("1", "20a0"),
        ] {
            assert!(CardFields::from_card(&card(m, y)).is_none(), "{m}/{y}");
        }
    }

    #[test]
    fn card_fields_never_show_in_debug() {
        let c = CardFields::from_card(&card("1", "2025")).unwrap();
        let shown = format!("{c:?}");
        assert!(!shown.contains("4155") && !shown.contains("123"), "{shown}");
    }

    #[test]
    fn a_card_with_a_bad_expiry_is_a_declined_inquiry() {
        assert!(matches!(
            CardFields::for_points(&card("13", "2030")),
            Err(PointsResult::Declined { code, message }) if code == "invalid_card" && message == INVALID_EXPIRY
        ));
        assert!(CardFields::for_points(&card("12", "2030")).is_ok());
    }
}
