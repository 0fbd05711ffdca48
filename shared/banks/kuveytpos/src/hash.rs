//! `HashData` of the SOAP requests' `VPosMessage`: the BOA hash, written once in the kit
//! ([`paygate_bankkit::boa`]), `base64(SHA1(MerchantId + MerchantOrderId + Amount +
//! UserName + base64(SHA1(password))))` over ISO-8859-9 text, the URLs empty (no 3-D Secure
//! here) and `Amount` as the `VPosMessage` sends it (`0` for `GetMerchantOrderDetail`).
//!
//! Sources: MEWS `KuveytPosCrypt::createHash` and `KuveytPosRequestDataMapper` (the hash
//! over the `VPosMessage` of status, cancel and refund), Kuveyt Türk's PHP sample (`sha1`
//! over ISO-8859-9 text); vectors in the kit's `boa` tests and this crate's
//! `tests/encoding.rs`.

use paygate_bankkit::boa::{self, HashFields};

use crate::config::ApiCredentials;

/// `HashData` for a `VPosMessage` naming `merchant_order_id` and `amount` (as sent).
pub fn hash_data(creds: &ApiCredentials, merchant_order_id: &str, amount: &str) -> String {
    boa::hash_data(
        &HashFields {
            merchant_id: &creds.merchant_id,
            merchant_order_id,
            amount,
            user_name: &creds.user_name,
            ..HashFields::default()
        },
        &creds.password,
    )
}
