//! Garanti BBVA (GVPS): the bank's codes → stable decline codes ([`DeclineCode`]), read by the kit's
//! adapter through `Protocol::DECLINE_CODES`. A code not named here falls back to the kit's
//! shared tables (`paygate_bankkit::decline`: ISO 8583 two-digit host codes, the kit's own
//! codes); none at all is `unclassified`. An unknown outcome is `outcome_unknown` whatever its
//! code, and a cancel refused for the end-of-day cut is `after_end_of_day`, so neither needs a
//! line here.
//!
//! Sources: this crate's README "Code → outcome" (the GVPS reason-code table in an indexed
//! TypeScript file, MEWS fixtures, ActiveMerchant's fixture `0651`); host codes are ISO 8583
//! (the kit's table).

use paygate_domain::decline::DeclineCode;

use DeclineCode as D;

/// Bank code → stable code.
pub const TABLE: &[(&str, DeclineCode)] = &[
    ("0102", D::NotFound),              // no pre-auth to close
    ("0103", D::NotFound),              // nothing to refund
    ("0108", D::NotFound),              // order unknown
    ("0110", D::NotFound),              // not found
    ("0201", D::NotFound),              // nothing to void
    ("0202", D::InvalidRequest),        // several voidable: send the rrn
    ("0207", D::InvalidRequest),        // void the latest first
    ("0208", D::NotFound),              // refund not valid
    ("0209", D::AmountExceedsOriginal), // postauth not valid / above the pre-auth
    ("0210", D::NotFound),              // void not valid
    ("0214", D::AmountExceedsOriginal), // refund above the sale
    ("0402", D::LimitExceeded),         // limit
    ("0405", D::LimitExceeded),         // limit
    ("0001", D::InvalidRequest),        // invalid characters
    ("0002", D::InvalidRequest),        // mandatory field / zero amount
    ("0003", D::CardExpired),           // expiry
    ("0231", D::InvalidRequest),        // order id
    ("0099", D::InvalidCredentials),    // security code
    ("0651", D::InvalidCredentials),    // wrong password (HashData)
    ("0652", D::OperationNotPermitted), // not authorised
    ("0653", D::InvalidCredentials),    // user not on terminal
    ("0654", D::InvalidCredentials),    // user closed
    ("0752", D::InvalidCredentials),    // no terminal
    ("0753", D::InvalidCredentials),    // wrong merchant
    ("0756", D::OperationNotPermitted), // permission
    ("0759", D::OperationNotPermitted), // permission
    ("0763", D::OperationNotPermitted), // permission
    ("0764", D::OperationNotPermitted), // permission
    ("0769", D::OperationNotPermitted), // permission
    ("0785", D::OperationNotPermitted), // permission
    ("0804", D::OperationNotPermitted), // permission
];
