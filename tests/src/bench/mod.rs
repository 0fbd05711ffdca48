//! Performance and process-level support: a Lambda Runtime API stub ([`runtime_stub`]), the
//! real function binaries started against it with a local stack's environment
//! ([`functions`]), real events of each kind ([`events`]), one checked invocation per
//! function ([`cases`]) and a proxy counting a process's AWS round trips ([`aws_counter`]).
//! `make bench` (`src/bin/paygate-bench.rs`, `src/bin/handler-cpu.rs`) and the binaries test
//! (tests/tests/binaries) use them.

pub mod aws_counter;
pub mod cases;
pub mod events;
pub mod functions;
pub mod hook_stub;
pub mod runtime_stub;
