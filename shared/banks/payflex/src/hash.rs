//! PayFlex V4 back-office requests carry no hash: the merchant's `MerchantId` and `Password`
//! travel in every `VposRequest` (and as `HostMerchantId` / `MerchantPassword` in every
//! `SearchRequest`) over TLS, which is why no body is ever logged. A hash exists only on the
//! Common Payment hosted page (`PayFlexCPV4Pos`), which the gateway does not use (sources in
//! this crate's README: MEWS `PayFlexV4PosRequestDataMapper`, `PayFlexCPV4Crypt`).

/// Whether requests are signed: they are not (see the module documentation).
pub const SIGNED: bool = false;
