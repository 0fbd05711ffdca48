//! Yapı Kredi **Posnet** XML service: a [`PosProvider`](paygate_domain::ports::PosProvider)
//! adapter ([`PosnetProvider`]) and, behind the `sim` feature, a simulator speaking the same
//! wire protocol ([`sim::start`]).
//!
//! Protocol (sources in this crate's README; YKB's own PHP module and 3-D integration document;
//! MEWS/PARA/OZG): `POST /PosnetWebService/XML`, form field `xmldata` = URL-encoded
//! `posnetRequest` XML declared ISO-8859-9; `mid`/`tid` identify the terminal (the bank also
//! checks the caller's IP); amounts are integer kuruş; currencies `TL`/`YT`, `US`, `EU`,
//! `GB`; order ids are 24 characters, zero-padded. Answers are `posnetResponse` with
//! `approved` (`1` approved, `0` declined, `2` already used) and `respCode`/`respText`.
//! See the crate README for the support matrix, credential keys and code mapping.

pub mod adapter;
pub mod cancel;
pub mod codes;
pub mod request;
pub mod response;
pub mod status;
pub mod wire;

#[cfg(feature = "sim")]
pub mod sim;

pub use adapter::{keys, PosnetProvider, PROVIDER_CODE};
