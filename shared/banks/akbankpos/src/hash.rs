//! The `auth-hash` header: base64(HMAC-SHA512(key = the terminal's secret key, message = the
//! exact JSON body)), the key used as its text's bytes (MEWS `AkbankPos::send`,
//! `AkbankPosCrypt::hashString`; vector `AkbankPosCryptTest::hashStringDataProvider`,
//! recomputed in `tests/encoding.rs`). The header is never logged (the kit's [`Wire`] shows
//! header names only).
//!
//! [`Wire`]: paygate_bankkit::Wire

use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha512;

/// The header's name.
pub const HEADER: &str = "auth-hash";

/// Whether requests are signed: they are.
pub const SIGNED: bool = true;

/// base64(HMAC-SHA512(secret_key, body)).
pub fn auth_hash(secret_key: &str, body: &[u8]) -> String {
    // HMAC takes keys of every length: the error branch never runs (an empty header would
    // be refused by the bank, never accepted).
    let Ok(mut mac) = Hmac::<Sha512>::new_from_slice(secret_key.as_bytes()) else {
        return String::new();
    };
    mac.update(body);
    base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
}

/// Whether `header` is the body's hash under `secret_key` (constant-time comparison).
pub fn verify(secret_key: &str, body: &[u8], header: &str) -> bool {
    let Ok(given) = base64::engine::general_purpose::STANDARD.decode(header.trim()) else {
        return false;
    };
    let Ok(mut mac) = Hmac::<Sha512>::new_from_slice(secret_key.as_bytes()) else {
        return false;
    };
    mac.update(body);
    mac.verify_slice(&given).is_ok()
}
