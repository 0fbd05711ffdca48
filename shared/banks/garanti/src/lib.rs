//! Garanti BBVA virtual POS (GVPS): `GVPSRequest`/`GVPSResponse` XML posted to
//! `<endpoint>/VPServlet`.
//!
//! - [`adapter`]: the [`paygate_domain::ports::PosProvider`] (`postauth`, `void`, `refund`,
//!   `orderinq` + `orderhistoryinq`, `rewardinq`), with test-order registration for the
//!   simulator.
//! - [`request`], [`hash`]: request encoding and the SHA-512 `HashData` rule (API version
//!   `512`).
//! - [`response`], [`status`], [`points`]: answer decoding and mapping onto the gateway's
//!   outcomes, statuses and points balances.
//! - `sim` (feature `sim`): a GVPS simulator with the bank's rules and codes.
//!
//! Nothing here logs a request or response body: they carry hashes and, for `rewardinq`,
//! the card number.

pub mod adapter;
pub mod cancel;
pub mod hash;
pub mod points;
pub mod request;
pub mod response;
pub mod status;

#[cfg(feature = "sim")]
pub mod sim;

pub use adapter::{keys, GarantiConfig, GarantiProvider, PROVIDER_CODE};
