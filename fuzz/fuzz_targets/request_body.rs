//! Request bodies: `parse_object` then the field readers the handlers use (integers,
//! strings, booleans, nested objects): any bytes, no panic.
#![no_main]
use lambda_http::{Body, Request};
use libfuzzer_sys::fuzz_target;
use paygate_http::{parse_object, Fields};

fuzz_target!(|data: &[u8]| {
    let mut req = Request::new(Body::Binary(data.to_vec()));
    req.headers_mut().insert(
        "content-type",
        lambda_http::http::HeaderValue::from_static("application/json"),
    );
    let Ok(map) = parse_object(&req) else { return };
    let f = Fields::new(&map);
    let _ = f.only(&["amount", "card", "currency", "accountId", "settled"]);
    let _ = f.opt_i64("amount");
    let _ = f.opt_str("currency");
    let _ = f.opt_bool("settled");
    if let Ok(card) = f.req_object("card") {
        let c = Fields::nested(card, "card");
        let _ = c.req_str("number");
        let _ = c.opt_i64("expMonth");
    }
});
