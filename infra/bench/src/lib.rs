//! Performance and process-level support: a Lambda Runtime API stub ([`runtime_stub`]), the
//! real function binaries started against it with a local stack's environment
//! ([`functions`]), real events of each kind ([`events`]) and one checked invocation per
//! function ([`cases`]). `make bench` and the binaries test (tests/tests/binaries) use them.
//!
//! Test and bench support only: a broken expectation here is a failed run, so it panics.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod cases;
pub mod events;
pub mod functions;
pub mod runtime_stub;
