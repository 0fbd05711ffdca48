//! InterVPOS back-office requests carry no hash: `ShopCode`, `UserCode` and `UserPass` travel
//! in every form body over TLS, which is why no body is ever logged. A hash exists only on
//! the 3-D forms (MEWS `InterPosCrypt`), which the gateway does not use.

/// Whether requests are signed: they are not (see the module documentation).
pub const SIGNED: bool = false;
