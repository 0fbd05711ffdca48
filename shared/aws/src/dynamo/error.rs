//! Mapping SDK errors to [`StoreError`] without leaking request details.

use aws_sdk_dynamodb::{
    config::http::HttpResponse,
    error::{DisplayErrorContext, ProvideErrorMetadata, SdkError},
};
use paygate_domain::StoreError;

/// `StoreError::Unavailable` with a short message: the operation, and the service's error
/// code and message (or the kind of transport failure). The full error goes to the log.
pub(crate) fn unavailable<E>(op: &str, err: &SdkError<E, HttpResponse>) -> StoreError
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
{
    tracing::warn!(op, error = %DisplayErrorContext(err), "dynamodb call failed");
    let what = match err {
        SdkError::ServiceError(se) => {
            let e = se.err();
            match (e.code(), e.message()) {
                (Some(code), Some(msg)) => format!("{code}: {msg}"),
                (Some(code), None) => code.to_owned(),
                _ => format!("unrecognised answer (HTTP {})", se.raw().status().as_u16()),
            }
        }
        SdkError::TimeoutError(_) => "timeout".to_owned(),
        SdkError::DispatchFailure(_) => "dispatch failure".to_owned(),
        SdkError::ResponseError(_) => "unreadable response".to_owned(),
        SdkError::ConstructionFailure(_) => "request construction failed".to_owned(),
        _ => "unknown failure".to_owned(),
    };
    StoreError::Unavailable(format!("{op}: {what}"))
}

/// A request builder refused its input (a bug in this crate, reported as unavailable).
pub(crate) fn build_error(what: &str, err: impl std::fmt::Display) -> StoreError {
    StoreError::Unavailable(format!("building {what}: {err}"))
}
