//! End-to-end tests of the dashboard's admin API through the dev server, with requests
//! signed with AWS Signature Version 4 exactly as for API Gateway's IAM authorization
//! (service `execute-api`, the seed's local admin credentials). Webhooks go to a local
//! HTTPS receiver through the real pipeline (fanout, deliver, sweeper) over moto.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod auth;
mod endpoints;
mod history;
mod keys;
mod operations;
mod resend;
mod rotation;
mod support;
mod test_event;
