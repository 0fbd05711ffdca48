//! The request `hash`: base64(SHA-512(apiPass + clientId + apiUser + rnd + timeSpan)), the
//! five texts joined with nothing between them and hashed as UTF-8 (Tosla's developer centre
//! "Hash Üretimi", https://tosla.com/isim-icin/gelistirici-merkezi; MEWS
//! `ToslaPosCrypt::createHash` with `AbstractCrypt::hashString`; vector
//! `ToslaPosCryptTest::testCreateHash`, recomputed in `tests/encoding.rs`). It signs the
//! credentials and the request's `rnd`/`timeSpan`, not the body: each hash is accepted once
//! and within an hour of `timeSpan` (the same page), so every call is stamped anew. The hash
//! and the password are never logged (the kit's `Wire` never shows bodies).

use base64::Engine;
use sha2::{Digest, Sha512};

/// base64(SHA-512(api_pass + client_id + api_user + rnd + time_span)).
pub fn request_hash(
    api_pass: &str,
    client_id: &str,
    api_user: &str,
    rnd: &str,
    time_span: &str,
) -> String {
    let mut h = Sha512::new();
    for part in [api_pass, client_id, api_user, rnd, time_span] {
        h.update(part.as_bytes());
    }
    base64::engine::general_purpose::STANDARD.encode(h.finalize())
}
