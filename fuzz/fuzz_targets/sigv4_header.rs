//! SigV4 `Authorization` and `X-Amz-Date` parsers: any input, no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = paygate_cli::sigv4::AuthorizationHeader::parse(s);
        let _ = paygate_cli::sigv4::parse_amz_date(s);
    }
});
