//! HTTP glue shared by the API functions: the authorizer context, request parsing with
//! field-naming errors, the one mapping from errors to the JSON error envelope, and the
//! `Idempotency-Key` wrapper every merchant POST handler runs in, the dashboard's admin API
//! ([`admin`]: its handlers, routes and input) and the test helper's body
//! ([`test_helpers`]).

pub mod admin;
pub mod body;
pub mod context;
pub mod error;
pub mod handlers;
pub mod idempotency;
pub mod respond;
pub mod reverse;
pub mod test_helpers;
pub mod throttle;

pub use body::{parse_object, Fields};
pub use context::{principal, principal_fields, AUTH_ERROR, KEY_ID, MERCHANT_ID, MODE};
pub use error::ApiError;
pub use idempotency::{idempotent, idempotent_operation, BoundAnswer, Idempotency};
pub use respond::{json, respond};
pub use throttle::{throttled, Throttle};
