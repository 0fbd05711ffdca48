//! Nestpay: the bank's codes → stable decline codes ([`DeclineCode`]), read by the kit's
//! adapter through `Protocol::DECLINE_CODES`. A code not named here falls back to the kit's
//! shared tables (`paygate_bankkit::decline`: ISO 8583 two-digit host codes, the kit's own
//! codes); none at all is `unclassified`. An unknown outcome is `outcome_unknown` whatever its
//! code, and a cancel refused for the end-of-day cut is `after_end_of_day`, so neither needs a
//! line here.
//!
//! Sources: this crate's README "Code → outcome" (the Nestpay Merchant Integration API manual's error
//! tables as transcribed in two indexed client libraries; MEWS `EstPosResponseDataMapper`) and
//! the simulator's code table (`src/sim`, `CORE-25xx` refund and post-auth refusals).

use paygate_domain::decline::DeclineCode;

use DeclineCode as D;

/// Bank code → stable code.
pub const TABLE: &[(&str, DeclineCode)] = &[
    ("CORE-2008", D::NotFound),              // no sale eligible for void
    ("CORE-2012", D::InvalidCard),           // invalid PAN
    ("CORE-2115", D::NotFound),              // PostAuth only for a related PreAuth
    ("CORE-2117", D::NotFound),              // no settled or captured transaction to credit
    ("CORE-2123", D::NotFound),              // no matching order to refund
    ("CORE-2200", D::InvalidCredentials),    // authentication
    ("CORE-2201", D::InvalidCredentials),    // authentication
    ("CORE-2202", D::OperationNotPermitted), // store not permitted
    ("CORE-2203", D::OperationNotPermitted), // permission
    ("CORE-2205", D::CardRestricted),        // card not eligible
    ("CORE-2252", D::IpNotAllowed),          // IP not allowed
    ("CORE-2254", D::OperationNotPermitted), // day/time allowance
    ("CORE-2255", D::OperationNotPermitted), // day/time allowance
    ("CORE-2256", D::OperationNotPermitted), // day/time allowance
    ("CORE-2503", D::AmountExceedsOriginal), // refund above the net amount
    ("CORE-2504", D::InvalidAmount),         // zero refund / nothing left
    ("CORE-2506", D::InvalidAmount),         // post-auth of zero
    ("CORE-2507", D::DuplicateOrder),        // order already has a successful transaction
    ("CORE-2508", D::RefundBeforeEndOfDay),  // "Iade yapilamaz, siparis gunsonuna girmemis."
    ("CORE-2512", D::AmountExceedsOriginal), // post-auth above the pre-authorization
    ("CORE-2515", D::InvalidCard),           // invalid CVV
    ("BM-9100", D::BankUnavailable),         // host unknown (nothing moved)
    ("BM-9101", D::BankUnavailable),         // port closed
    ("BM-1008", D::BankUnavailable),         // acquirer request not made
];
