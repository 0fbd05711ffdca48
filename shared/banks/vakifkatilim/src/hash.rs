//! Vakıf Katılım signs every request with the BOA platform's `HashData`, written once in the
//! kit ([`paygate_bankkit::boa`], shared with Kuveyt Türk; MEWS `CryptFactory` maps
//! `VakifKatilimPos` to `KuveytPosCrypt`): base64(SHA1(`MerchantId` + `MerchantOrderId` +
//! `Amount` + `OkUrl` + `FailUrl` + `UserName` + base64(SHA1(password)))), each field as the
//! request sends it and `""` where it sends none. The money requests also carry the hashed
//! password itself (`HashPassword`). This crate only says which fields each request hashes
//! ([`crate::request`]); the password never leaves the process in clear.

pub use paygate_bankkit::boa::{
    hash_data, hash_data_with_hashed_password, hashed_password, verify, HashFields,
};
