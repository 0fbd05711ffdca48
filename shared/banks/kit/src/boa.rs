//! The request hash of Kuveyt Türk's BOA virtual POS, which Vakıf Katılım's virtual POS
//! (built on the same BOA platform) uses unchanged:
//!
//! - `HashedPassword = base64(SHA1(password))`
//! - `HashData = base64(SHA1(MerchantId + MerchantOrderId + Amount + OkUrl + FailUrl + UserName
//!   + HashedPassword))`, every field exactly as sent (amounts in kuruş digits), a field the
//!   request does not carry entering as `""`; no separator.
//!
//! Text is hashed as ISO-8859-9 (Kuveyt Türk's integration document and its PHP sample,
//! `sha1(…, "ISO-8859-9")`); for ASCII fields that is the same bytes as UTF-8.
//!
//! Which fields each request carries (so which enter the hash), from the reference library
//! (mewebstudio/pos, `KuveytPosCrypt::createHash` and the two request data mappers,
//! commit a4c454a5):
//!
//! | request | MerchantOrderId | Amount | OkUrl / FailUrl |
//! |---|---|---|---|
//! | Kuveyt Türk payment (`Sale`, non-3-D) | yes | yes | no |
//! | Kuveyt Türk 3-D enrolment (`ThreeDModelPayGate`) | yes | yes | yes |
//! | Kuveyt Türk SOAP `VPosMessage` (status: Amount `0`; cancel, refund: the amount) | yes | yes | no |
//! | Vakıf Katılım sale, cancel of a sale | yes | yes | no |
//! | Vakıf Katılım pre-auth close, cancel of a pre-auth, refund, status | yes | no | no |
//! | Vakıf Katılım history (date range) | no | no | no |
//!
//! Vakıf Katılım also sends `HashPassword` ([`hashed_password`]) as a field of its own.

use base64::Engine;
use sha1::{Digest, Sha1};

use crate::encoding;

/// The fields a BOA `HashData` covers, exactly as the request sends them; `""` for a field
/// the request does not carry. No secret here: the password is an argument of its own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HashFields<'a> {
    pub merchant_id: &'a str,
    pub merchant_order_id: &'a str,
    /// The amount as sent: kuruş digits (`"7256"` for 72.56 TL), `"0"` where a request sends 0.
    pub amount: &'a str,
    pub ok_url: &'a str,
    pub fail_url: &'a str,
    pub user_name: &'a str,
}

fn sha1_base64(text: &str) -> String {
    let digest = Sha1::digest(encoding::encode(text));
    base64::engine::general_purpose::STANDARD.encode(digest)
}

/// `base64(SHA1(password))`: the API user's password as it enters the hash (and Vakıf
/// Katılım's `HashPassword` field).
pub fn hashed_password(password: &str) -> String {
    sha1_base64(password)
}

/// `HashData` for `fields`, signed with the API user's `password`.
pub fn hash_data(fields: &HashFields<'_>, password: &str) -> String {
    hash_data_with_hashed_password(fields, &hashed_password(password))
}

/// `HashData` for `fields`, from the already hashed password ([`hashed_password`]).
pub fn hash_data_with_hashed_password(fields: &HashFields<'_>, hashed_password: &str) -> String {
    let HashFields {
        merchant_id,
        merchant_order_id,
        amount,
        ok_url,
        fail_url,
        user_name,
    } = fields;
    sha1_base64(&format!(
        "{merchant_id}{merchant_order_id}{amount}{ok_url}{fail_url}{user_name}{hashed_password}"
    ))
}

/// Whether `got` is the `HashData` of `fields` under `password` (a simulator's check).
pub fn verify(fields: &HashFields<'_>, password: &str, got: &str) -> bool {
    let want = hash_data(fields, password);
    // Equal-length, content-independent comparison.
    want.len() == got.len()
        && want
            .bytes()
            .zip(got.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    //! Vectors from the reference library's `tests/Unit/Crypt/KuveytPosCryptTest.php`
    //! (mewebstudio/pos, commit a4c454a5): account MerchantId `80`, UserName `apiuser`,
    //! password (store key) `Api123`; recomputed independently with Python's hashlib.
    use super::*;

    const ACCOUNT: HashFields<'static> = HashFields {
        merchant_id: "80",
        merchant_order_id: "ORDER-123",
        amount: "7256",
        ok_url: "",
        fail_url: "",
        user_name: "apiuser",
    };

    #[test]
    fn hashed_password_is_base64_sha1() {
        assert_eq!(hashed_password("123"), "QL0AFWMIX8NRZTKeof9cXsvbvu8=");
    }

    #[test]
    fn payment_hash_without_urls() {
        assert_eq!(
            hash_data(&ACCOUNT, "Api123"),
            "Bf+hZf2c1gf1pTXnEaSGxDpGRr0="
        );
        assert_eq!(
            hash_data_with_hashed_password(&ACCOUNT, &hashed_password("Api123")),
            "Bf+hZf2c1gf1pTXnEaSGxDpGRr0="
        );
    }

    #[test]
    fn three_d_hash_covers_the_urls() {
        let fields = HashFields {
            ok_url: "http://localhost:44785/Home/Success",
            fail_url: "http://localhost:44785/Home/Fail",
            ..ACCOUNT
        };
        assert_eq!(hash_data(&fields, "Api123"), "P3a0zjAklu2g8XDJfTx2qvwHH8g=");
    }

    #[test]
    fn verify_accepts_only_the_right_hash() {
        assert!(verify(&ACCOUNT, "Api123", "Bf+hZf2c1gf1pTXnEaSGxDpGRr0="));
        assert!(!verify(&ACCOUNT, "Api124", "Bf+hZf2c1gf1pTXnEaSGxDpGRr0="));
        let other = HashFields {
            amount: "7257",
            ..ACCOUNT
        };
        assert!(!verify(&other, "Api123", "Bf+hZf2c1gf1pTXnEaSGxDpGRr0="));
        assert!(!verify(&ACCOUNT, "Api123", ""));
    }

    #[test]
    fn turkish_text_is_hashed_as_iso_8859_9() {
        // python: base64(sha1("ğ".encode("iso-8859-9"))) — one byte 0xF0, not UTF-8's two.
        let fields = HashFields {
            user_name: "ğ",
            ..HashFields::default()
        };
        assert_eq!(
            hash_data_with_hashed_password(&fields, ""),
            sha1_base64_bytes(&[0xF0])
        );
    }

    fn sha1_base64_bytes(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(Sha1::digest(bytes))
    }
}
