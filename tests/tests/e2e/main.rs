//! End-to-end tests over real HTTP: the dev server hosts the very function handlers the
//! Lambdas run, behind the template's routes and the emulated authorizer, over moto.
//!
//! Each test starts its own seeded [`Stack`] (its own table prefix on the binary's one
//! moto server), so tests run in parallel and never see each other's payments.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod auth;
mod idempotency;
mod modes;
mod permissions;
mod points;
mod provider;
mod query;
mod race;
mod reconciler;
mod stale;
mod throttle;
mod transitions;
