//! PayFor's API requests carry no hash: the API user's `UserCode` and `UserPass` (with
//! `MbrId` and `MerchantId`) travel in every `PayforRequest` body (over TLS), which is why no
//! body is ever logged. A hash — base64(SHA-1) over `MbrId`, `OrderId`, `PurchAmount`, the
//! URLs, `TxnType`, `InstallmentCount`, `Rnd` and the store key — exists only on the 3-D
//! Secure form, which the gateway does not build (sources in this crate's README: MEWS
//! `PayForPosCrypt`, `PayForPosRequestDataMapper`).

/// Whether requests are signed: they are not (see the module documentation).
pub const SIGNED: bool = false;
