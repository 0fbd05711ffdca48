//! The merchant handlers' own body parsers, as the functions call them: the capture, cancel
//! and refund body (`{}` or `{amount?}`) and the points-inquiry body (card, currency,
//! account): any bytes, no panic.
#![no_main]
use lambda_http::{Body, Request};
use libfuzzer_sys::fuzz_target;
use paygate_domain::TransactionType;
use paygate_http::handlers::{operation_amount, parse_points};

fuzz_target!(|data: &[u8]| {
    let mut req = Request::new(Body::Binary(data.to_vec()));
    req.headers_mut().insert(
        "content-type",
        lambda_http::http::HeaderValue::from_static("application/json"),
    );
    for kind in [
        TransactionType::Capture,
        TransactionType::Cancel,
        TransactionType::Refund,
    ] {
        if let Ok(Some(amount)) = operation_amount(&req, kind) {
            assert!(amount > 0, "an accepted amount is positive");
        }
    }
    let _ = parse_points(&req);
});
