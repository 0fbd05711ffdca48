//! Nestpay's API requests carry no hash: the API user's `Name` and `Password` travel in every
//! `CC5Request` body (over TLS), which is why no body is ever logged. A hash (SHA-512 over
//! the form fields with the store key) exists only on the 3-D Secure form, which the gateway
//! does not use (sources in this crate's README: MEWS `EstV3Pos`).

/// Whether requests are signed: they are not (see the module documentation).
pub const SIGNED: bool = false;
