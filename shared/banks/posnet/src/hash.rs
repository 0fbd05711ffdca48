//! Posnet's XML service carries no hash: the terminal is identified by `mid`/`tid` in the
//! document and the `X-MERCHANT-ID`/`X-TERMINAL-ID` headers, and the bank also checks the
//! caller's IP address. A MAC (`mac` = SHA-256 over the encrypted key and terminal) exists
//! only in the 3-D Secure flow, which the gateway does not use (sources in this crate's
//! README).

/// Whether requests are signed: they are not (see the module documentation).
pub const SIGNED: bool = false;
