//! The banks' response readers, every family (Nestpay, Garanti GVPS, Posnet, PayFlex,
//! InterVPOS, PayFor, Akbank POS, Posnet V1, Kuveyt POS, Vakıf Katılım, Tosla, Param POS):
//! any bytes, no panic. Each bank's reply type is decoded through the kit's `BankReply` (as
//! the adapter reads every answer) and read as a money outcome, a status and a points
//! answer; the status readers of more than one read are fed the same reply too, and so are
//! the daily reconciliation's day-history readers (Garanti, PayFor, Akbank POS, Vakıf
//! Katılım, Tosla).
#![no_main]
use libfuzzer_sys::fuzz_target;
use paygate_bankkit::{BankReply, StatusRead};
use paygate_domain::daily::BusinessDay;

/// The day the history readers are asked about.
fn day() -> BusinessDay {
    BusinessDay::parse("2026-11-20").expect("a valid day")
}

/// Decodes `data` as `R` and reads it every way the adapter may.
fn read_all<R: BankReply>(data: &[u8]) -> Option<R> {
    let reply = R::decode(data).ok()?;
    let _ = reply.outcome();
    let _ = reply.status();
    let _ = reply.points();
    Some(reply)
}

fuzz_target!(|data: &[u8]| {
    if let Some(reply) = read_all::<paygate_bank_nestpay::response::Reply>(data) {
        let history = paygate_bank_nestpay::status::read_history(&reply).unwrap_or_default();
        if let StatusRead::Found(line) = paygate_bank_nestpay::status::read_status(&reply) {
            let _ = paygate_bank_nestpay::status::combine(&line, Some(&history));
        }
    }
    if let Some(resp) = read_all::<paygate_bank_garanti::response::GvpsResponse>(data) {
        let history = paygate_bank_garanti::status::parse_history(&resp).unwrap_or_default();
        if let Ok(inq) = paygate_bank_garanti::status::parse_order_inq(&resp) {
            let _ = paygate_bank_garanti::status::combine(&inq, &history);
        }
        let _ = paygate_bank_garanti::history::parse_page(&resp, day(), 1);
    }
    let _ = read_all::<paygate_bank_posnet::response::Reply>(data);
    if let Some(paygate_bank_payflex::response::Reply::Search(s)) =
        read_all::<paygate_bank_payflex::response::Reply>(data)
    {
        let _ = paygate_bank_payflex::status::status(&s);
    }
    if let Some(reply) = read_all::<paygate_bank_interpos::response::Reply>(data) {
        let _ = paygate_bank_interpos::status::status(&reply);
    }
    if let Some(reply) = read_all::<paygate_bank_payfor::response::Reply>(data) {
        let history = paygate_bank_payfor::status::read_history(&reply).unwrap_or_default();
        if let StatusRead::Found(line) = paygate_bank_payfor::status::read_inquiry(&reply) {
            let _ = paygate_bank_payfor::status::combine(&line, Some(&history));
        }
        let _ = paygate_bank_payfor::history::read_day(&reply);
    }
    if let Some(reply) = read_all::<paygate_bank_akbankpos::response::Reply>(data) {
        let _ = paygate_bank_akbankpos::status::from_history(&reply);
        let _ = paygate_bank_akbankpos::history::parse_report(&reply, day());
    }
    if let Some(reply) = read_all::<paygate_bank_posnetv1::response::Reply>(data) {
        let _ = paygate_bank_posnetv1::status::read(&reply);
    }
    if let Some(reply) = read_all::<paygate_bank_kuveytpos::response::Reply>(data) {
        let _ = paygate_bank_kuveytpos::status::read_detail(&reply, None);
        let _ = paygate_bank_kuveytpos::status::read_detail(&reply, Some("ORD-1"));
    }
    if let Some(reply) = read_all::<paygate_bank_vakifkatilim::response::Reply>(data) {
        let _ = paygate_bank_vakifkatilim::status::read(&reply, None);
        let _ = paygate_bank_vakifkatilim::status::read(&reply, Some("ORD-1"));
        let _ = paygate_bank_vakifkatilim::history::read_page(&reply, day());
    }
    if let Some(reply) = read_all::<paygate_bank_toslapos::response::Reply>(data) {
        let _ = paygate_bank_toslapos::status::from_inquiry(&reply, None);
        let _ = paygate_bank_toslapos::status::from_inquiry(&reply, Some("ORD-1"));
        let _ = paygate_bank_toslapos::history::read_page(&reply);
    }
    if let Some(reply) = read_all::<paygate_bank_parampos::response::Reply>(data) {
        let _ = paygate_bank_parampos::status::read(&reply);
        let _ = paygate_bank_parampos::status::read_for(&reply, "ORD-1");
    }
});
