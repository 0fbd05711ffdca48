//! End-to-end webhook tests: a payment operation over HTTP → the outbox event → the events
//! queue → fanout → the deliveries queue → deliver → a signed HTTPS POST to a local
//! receiver, with retries on a compressed schedule, and the sweeper for events whose fast
//! path was lost. The dev server runs the same pipeline functions the Lambdas call; moto
//! serves DynamoDB, SQS and Secrets Manager.
//!
//! Each test starts its own stack and receiver. Waits poll for what the test expects, with
//! a deadline; none sleeps for a fixed time.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod envelope;
mod events;
mod filters;
mod retries;
mod support;
mod sweeper;
