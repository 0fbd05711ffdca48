//! Nestpay / EST v3 (Asseco, now Payten): the `CC5Request` / `CC5Response` XML API that
//! İşbank, Akbank (legacy), TEB, Halkbank, Ziraat, Şekerbank, Finansbank and others run their
//! virtual POS on (provider code [`PROVIDER_CODE`]).
//!
//! - [`request`] encodes requests: plain credentials in every document (`Name`, `Password`,
//!   `ClientId`; the API has no hash — that exists only on the 3-D form), decimal-TL amounts,
//!   ISO 4217 numeric currencies, ISO-8859-9 text. The document is POSTed as the raw request
//!   body to the account's `/fim/api` URL (see this crate's README, "Sources": MEWS `EstPos::send`).
//! - [`response`] reads `CC5Response` and classifies it (both `ProcReturnCode` and `Response`
//!   must say approved; `Extra/ERRORCODE` becomes the bank code).
//! - [`status`] combines `ORDERSTATUS` and `ORDERHISTORY` (partial refunds are visible only
//!   in the history) into a [`paygate_domain::BankStatus`].
//! - [`adapter`] is the [`paygate_domain::ports::PosProvider`].
//! - `sim` (feature `sim`) is a simulator speaking the same wire protocol.

pub mod adapter;
pub mod credentials;
pub mod request;
pub mod response;
pub mod status;

#[cfg(feature = "sim")]
pub mod sim;

pub use adapter::NestpayProvider;
pub use credentials::ApiCredentials;

/// The provider code accounts refer to.
pub const PROVIDER_CODE: &str = "nestpay";

/// The path of the API on a Nestpay host (`https://<bank host>/fim/api`). Accounts store the
/// full URL as their `endpointUrl`.
pub const API_PATH: &str = "/fim/api";
