//! `X-Svc-Signature` header parser: any input, no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = paygate_webhooks::signature::parse_header(s);
    }
});
