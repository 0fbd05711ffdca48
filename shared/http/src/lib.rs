//! HTTP glue shared by the API functions: the authorizer context, request parsing with
//! field-naming errors, and the one mapping from errors to the JSON error envelope.

pub mod body;
pub mod context;
pub mod error;
pub mod handlers;
pub mod respond;

pub use body::{parse_object, Fields};
pub use context::{principal, principal_fields, AUTH_ERROR, KEY_ID, MERCHANT_ID, MODE};
pub use error::ApiError;
pub use respond::{json, respond};
