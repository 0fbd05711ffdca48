//! The request `MAC`: base64(SHA-256(the values of the fields `MACParams` names, in that
//! order, concatenated **without** a separator, then the account's `encKey` appended as its
//! text)). A field that is `null` or absent counts as the empty string. `MACParams` itself is
//! colon-separated (`MerchantNo:TerminalNo:ReferenceCode:OrderId`), the values are not.
//!
//! Source: MEWS `AbstractCrypt::hashFromParams` (`buildHashString(…, '', $storeKey)`: an
//! empty separator, the store key appended raw) with `PosNetV1PosCrypt::HASH_ALGORITHM`
//! `sha256`; vectors `PosNetV1PosCryptTest::hashFromParamsDataProvider`, recomputed in
//! `tests/encoding.rs`. The MAC covers only the fields `MACParams` names: for a capture and
//! an inquiry the merchant and terminal alone (MEWS request data mapper). The key is never
//! logged (the kit's `Wire` shows no body).

use base64::Engine;
use sha2::{Digest, Sha256};

/// `MACParams` of a capture and a transaction inquiry.
pub const PARAMS_MERCHANT: &str = "MerchantNo:TerminalNo";
/// `MACParams` of a reverse and a return.
pub const PARAMS_REFERENCE: &str = "MerchantNo:TerminalNo:ReferenceCode:OrderId";

/// The MAC over `values` (those `MACParams` names, in its order) and the `encKey`.
pub fn mac(values: &[&str], enc_key: &str) -> String {
    let mut h = Sha256::new();
    for v in values {
        h.update(v.as_bytes());
    }
    h.update(enc_key.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(h.finalize())
}

/// Whether `given` is the MAC of `values` under `enc_key` (the simulator's check).
pub fn verify(values: &[&str], enc_key: &str, given: &str) -> bool {
    let expected = mac(values, enc_key);
    // Constant-time enough for a simulator; the adapter never compares MACs.
    expected.len() == given.len()
        && expected
            .bytes()
            .zip(given.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}
