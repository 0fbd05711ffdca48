//! Stable decline codes ([`DeclineCode`]) for what every family shares: the ISO 8583
//! two-digit host codes most Turkish POS protocols pass through, and the kit's own codes (a
//! request refused before sending, a failed call). A family's own table
//! ([`crate::Protocol::DECLINE_CODES`], its `src/decline.rs`) is read first; [`classify`]
//! falls back to these.
//!
//! Sources: the ISO 8583:1987 response-code meanings (field 39), as listed in the family
//! READMEs' code tables (Nestpay `ISO8583-NN`, Garanti and Kuveyt host codes) and the
//! reference library's mappers (MEWS `*ResponseDataMapper::$codes`: `51` → "reject" /
//! insufficient, `54` expired, `05` do not honor, `57`/`62` restricted).
//!
//! `68`, `91`, `92`, `96` are not here: every family reads them as *unknown* (the host may
//! have acted), and an unknown outcome is [`DeclineCode::OutcomeUnknown`] whatever its code.

use paygate_domain::{bank::BankOutcome, decline::DeclineCode};

use DeclineCode as D;

/// ISO 8583 two-digit host codes (`ProcReturnCode`, `hostResponseCode`, …).
pub const ISO8583: &[(&str, DeclineCode)] = &[
    ("01", D::DoNotHonor),            // refer to card issuer
    ("02", D::DoNotHonor),            // refer to card issuer, special condition
    ("03", D::OperationNotPermitted), // invalid merchant
    ("04", D::LostOrStolen),          // pick up card
    ("05", D::DoNotHonor),            // do not honor
    ("06", D::BankUnavailable),       // error
    ("07", D::LostOrStolen),          // pick up card, special condition
    ("12", D::InvalidRequest),        // invalid transaction
    ("13", D::InvalidAmount),         // invalid amount
    ("14", D::InvalidCard),           // invalid card number
    ("15", D::InvalidCard),           // no such issuer
    ("19", D::BankUnavailable),       // re-enter transaction
    ("25", D::NotFound),              // unable to locate record
    ("30", D::InvalidRequest),        // format error
    ("33", D::CardExpired),           // expired card, pick up
    ("34", D::DoNotHonor),            // suspected fraud
    ("41", D::LostOrStolen),          // lost card
    ("43", D::LostOrStolen),          // stolen card
    ("51", D::InsufficientFunds),     // not sufficient funds
    ("54", D::CardExpired),           // expired card
    ("55", D::InvalidCard),           // incorrect PIN
    ("56", D::InvalidCard),           // no card record
    ("57", D::CardRestricted),        // not permitted to cardholder
    ("58", D::CardRestricted),        // not permitted to terminal
    ("59", D::DoNotHonor),            // suspected fraud
    ("61", D::LimitExceeded),         // exceeds withdrawal amount limit
    ("62", D::CardRestricted),        // restricted card
    ("65", D::LimitExceeded),         // exceeds withdrawal frequency limit
    ("82", D::InvalidCard),           // CVV refused
    ("90", D::BankUnavailable),       // cut-off in progress
    ("93", D::CardRestricted),        // violation of law
    ("94", D::DuplicateOrder),        // duplicate transmission
    ("98", D::BankUnavailable),       // MAC / security error at the switch
];

/// The kit's own codes: a request refused before it was sent ([`crate::Refusal`]) or a
/// call that failed before the bank acted ([`crate::CallError`]).
pub const KIT: &[(&str, DeclineCode)] = &[
    ("invalid_card", D::InvalidCard),
    ("operation_not_supported", D::OperationNotPermitted),
    ("order_id", D::InvalidRequest),
    ("config", D::InvalidCredentials),
    ("transport", D::BankUnavailable),
];

/// The code of a money operation's `outcome` on a protocol whose own table is `family`:
/// the family's table, then [`KIT`], then [`ISO8583`] (also as Nestpay's `ISO8583-NN`).
pub fn classify(outcome: &BankOutcome, family: &[(&str, DeclineCode)]) -> Option<DeclineCode> {
    DeclineCode::of_outcome(outcome, family, fallback)
}

/// What the shared tables say about `code` (`None` when they do not name it).
pub fn fallback(code: &str) -> Option<DeclineCode> {
    let find = |t: &[(&str, DeclineCode)], c: &str| t.iter().find(|(k, _)| *k == c).map(|e| e.1);
    find(KIT, code).or_else(|| find(ISO8583, code.strip_prefix("ISO8583-").unwrap_or(code)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declined(code: &str) -> BankOutcome {
        BankOutcome::Declined {
            code: code.into(),
            message: String::new(),
            after_cutoff: false,
        }
    }

    #[test]
    fn the_shared_tables_are_consistent() {
        for table in [ISO8583, KIT] {
            let mut seen = std::collections::HashSet::new();
            for (code, d) in table {
                assert!(seen.insert(*code), "{code} twice");
                assert_ne!(*d, D::OutcomeUnknown, "{code}");
                assert_ne!(
                    *d,
                    D::AfterEndOfDay,
                    "{code}: only a cancel refused for the cut"
                );
            }
        }
        // the codes every family reads as "the host may have acted" are named by none
        for code in ["68", "91", "92", "96"] {
            assert_eq!(fallback(code), None, "{code}");
        }
        for (code, _) in ISO8583 {
            assert!(code.len() == 2 && code.bytes().all(|b| b.is_ascii_digit()));
        }
    }

    #[test]
    fn a_family_table_comes_first_then_the_kit_then_iso() {
        let family = [("51", D::DoNotHonor)];
        assert_eq!(classify(&declined("51"), &family), Some(D::DoNotHonor));
        assert_eq!(classify(&declined("51"), &[]), Some(D::InsufficientFunds));
        assert_eq!(classify(&declined("ISO8583-54"), &[]), Some(D::CardExpired));
        assert_eq!(
            classify(&declined("invalid_card"), &[]),
            Some(D::InvalidCard)
        );
        assert_eq!(classify(&declined("0051"), &[]), Some(D::Unclassified));
        let unknown = BankOutcome::Unknown {
            reason: "51".into(),
        };
        assert_eq!(classify(&unknown, &family), Some(D::OutcomeUnknown));
    }
}
