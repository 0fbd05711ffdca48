//! The banks' response readers (Nestpay, Garanti GVPS, Posnet, PayFlex, InterVPOS, PayFor,
//! Akbank POS): any bytes, no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(reply) = paygate_bank_nestpay::response::parse(data) {
        let _ = paygate_bank_nestpay::status::read_status(&reply);
        let _ = paygate_bank_nestpay::status::read_history(&reply);
    }
    if let Ok(resp) = paygate_bank_garanti::response::parse_response(data) {
        let _ = paygate_bank_garanti::status::parse_order_inq(&resp);
        let _ = paygate_bank_garanti::status::parse_history(&resp);
    }
    let _ = paygate_bank_posnet::response::parse(data);
    match paygate_bank_payflex::response::parse(data) {
        Ok(paygate_bank_payflex::response::Reply::Search(s)) => {
            let _ = paygate_bank_payflex::status::status(&s);
        }
        Ok(reply) => {
            let _ = paygate_bank_payflex::response::outcome(&reply);
        }
        Err(_) => {}
    }
    if let Ok(reply) = paygate_bank_interpos::response::parse(data) {
        let _ = paygate_bank_interpos::status::status(&reply);
        let _ = paygate_bank_interpos::response::outcome(&reply);
    }
    if let Ok(reply) = paygate_bank_payfor::response::parse(data) {
        let _ = paygate_bank_payfor::response::outcome(&reply);
        if let paygate_bank_payfor::status::Inquiry::Found(line) =
            paygate_bank_payfor::status::read_inquiry(&reply)
        {
            let history = paygate_bank_payfor::status::read_history(&reply).unwrap_or_default();
            let _ = paygate_bank_payfor::status::combine(&line, Some(&history));
        }
    }
    if let Ok(reply) = paygate_bank_akbankpos::response::parse(data) {
        let _ = paygate_bank_akbankpos::response::outcome(&reply);
        let _ = paygate_bank_akbankpos::status::from_history(&reply);
    }
});
