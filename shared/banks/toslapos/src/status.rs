//! The order's state from an `inquiry` answer: one flat object (MEWS
//! `ToslaPosResponseDataMapper::mapStatusResponse`, its `statusResponseDataProvider`) with
//! `TransactionType` (`1` sale, `2` pre-auth; `0` none), `RequestStatus` (`0` error, `1`
//! paid / held, `2` cancelled, `3` partially refunded, `4` fully refunded, `5` pre-auth
//! closed; MEWS `orderStatusMappings`, reference notes `pos-protocols.md` §2.7), `Amount`,
//! `RefundedAmount`, `PostAuthedAmount` (kuruş), `BankResponseCode`, `AuthCode`,
//! `HostReferenceNumber`, `OrderId`, `Code`.
//!
//! "Not found" is `Code 0` with no `OrderId`, `TransactionType 0` and `RequestStatus 0`
//! (MEWS `fail_order_not_found`), or `Code 101`. Anything that does not settle the state is
//! *unavailable*, never a guess: another `Code` (`999` included), an answer about another
//! order, a status the reader does not know (`10` "waiting for 3-D authentication" among
//! them), `RequestStatus 0` without a host refusal or with a host code after which the host
//! may have acted (`68`, `91`, `96`), unreadable amounts, or amounts that
//! contradict the status (refunds on a status without refunds, a partial refund not below
//! the sale, a full refund that is not the sale, a capture above the hold).

use paygate_domain::{BankState, BankStatus};

use crate::response::{minor, text, Reply, HOST_APPROVED, HOST_MAY_HAVE_ACTED, NOT_FOUND, OK};

/// The order's state from an inquiry answer; `order_id`, when given, must be the answer's.
pub fn from_inquiry(reply: &Reply, order_id: Option<&str>) -> BankStatus {
    read(reply, order_id).unwrap_or_else(|why| BankStatus::unavailable(&why))
}

fn read(reply: &Reply, order_id: Option<&str>) -> Result<BankStatus, String> {
    let v = &reply.0;
    let code = reply.code();
    if code == NOT_FOUND {
        return Ok(BankStatus::not_found(NOT_FOUND));
    }
    if code != OK {
        return Err(reply.bank_code());
    }
    let named = reply.order_id();
    let (kind, request_status) = (text(v, "TransactionType"), text(v, "RequestStatus"));
    if named.is_empty()
        && matches!(kind.as_str(), "" | "0")
        && matches!(request_status.as_str(), "" | "0")
    {
        return Ok(BankStatus::not_found(OK));
    }
    if named.is_empty() || order_id.is_some_and(|o| o != named) {
        return Err("OrderId".to_owned());
    }
    let preauth = match kind.as_str() {
        "1" => false,
        "2" => true,
        other => return Err(format!("TransactionType:{other}")),
    };
    let amount = |key: &str| minor(v, key).ok_or_else(|| format!("{key}:unreadable"));
    let held = amount("Amount")?;
    let refunded = if v.get("RefundedAmount").is_some_and(|x| !x.is_null()) {
        amount("RefundedAmount")?
    } else {
        0
    };
    let captured = if v.get("PostAuthedAmount").is_some_and(|x| !x.is_null()) {
        amount("PostAuthedAmount")?
    } else {
        0
    };
    let host = reply.host_code();
    let status = |state, amount, refunded_amount, code: &str| BankStatus {
        found: true,
        state,
        amount,
        refunded_amount,
        code: code.to_owned(),
        auth_code: text(v, "AuthCode"),
        rrn: reply.reference(),
    };
    // What was sold: a sale's amount, a closed pre-auth's capture.
    let sold = if preauth { captured } else { held };
    let approved = host == HOST_APPROVED;
    let contradiction = || Err(format!("RequestStatus:{request_status}/amounts"));
    match request_status.as_str() {
        // A payment the host refused: nothing moved (unless the host's code says it may have
        // acted: then not a state to act on).
        "0" if HOST_MAY_HAVE_ACTED.contains(&host.as_str()) => Err(host),
        "0" if !approved && !host.is_empty() => Ok(status(BankState::Declined, held, 0, &host)),
        "1" if approved && refunded == 0 && captured == 0 => Ok(status(
            if preauth {
                BankState::Preauth
            } else {
                BankState::Approved
            },
            held,
            0,
            HOST_APPROVED,
        )),
        "2" if approved => Ok(status(BankState::Cancelled, held, 0, HOST_APPROVED)),
        "3" if approved && refunded > 0 && refunded < sold => Ok(status(
            BankState::PartiallyRefunded,
            sold,
            refunded,
            HOST_APPROVED,
        )),
        "4" if approved && sold > 0 && refunded == sold => {
            Ok(status(BankState::Refunded, sold, refunded, HOST_APPROVED))
        }
        "5" if approved && preauth && captured > 0 && captured <= held && refunded == 0 => {
            Ok(status(BankState::Approved, captured, 0, HOST_APPROVED))
        }
        "0" | "1" | "2" | "3" | "4" | "5" => contradiction(),
        other => Err(format!("RequestStatus:{other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inquiry(fields: &str) -> BankStatus {
        let body = format!(
            r#"{{"OrderId":"202401199AAA","AuthCode":null,"HostReferenceNumber":null,"Currency":949,"TransactionId":0,"Code":0,"Message":"",{fields}}}"#
        );
        from_inquiry(
            &<Reply as paygate_bankkit::BankReply>::decode(body.as_bytes()).unwrap(),
            Some("202401199AAA"),
        )
    }

    fn line(kind: u8, status: u8, brc: &str, amount: i64, refunded: i64, post: i64) -> String {
        format!(
            r#""TransactionType":{kind},"RequestStatus":{status},"BankResponseCode":{brc},"Amount":{amount},"RefundedAmount":{refunded},"PostAuthedAmount":{post}"#
        )
    }

    fn seen(st: &BankStatus) -> (BankState, i64, i64) {
        (st.state, st.amount, st.refunded_amount)
    }

    /// MEWS `statusResponseDataProvider`: `success_pay`, `success_pre_auth`,
    /// `success_pre_pay_then_cancel`, `success_pre_auth_then_post_auth`,
    /// `success_pay_and_partial_refund`, `fail_unsuccessful_payment`.
    #[test]
    fn the_fixtures_states() {
        let ok = r#""00""#;
        assert_eq!(
            seen(&inquiry(&line(1, 1, ok, 101, 0, 0))),
            (BankState::Approved, 101, 0)
        );
        assert_eq!(
            seen(&inquiry(&line(2, 1, ok, 101, 0, 0))),
            (BankState::Preauth, 101, 0)
        );
        assert_eq!(
            seen(&inquiry(&line(2, 2, ok, 101, 0, 0))),
            (BankState::Cancelled, 101, 0)
        );
        assert_eq!(
            seen(&inquiry(&line(2, 5, ok, 101, 0, 101))),
            (BankState::Approved, 101, 0)
        );
        assert_eq!(
            seen(&inquiry(&line(1, 3, ok, 101, 59, 0))),
            (BankState::PartiallyRefunded, 101, 59)
        );
        let refused = inquiry(&line(2, 0, r#""MD:0""#, 200, 0, 0));
        assert_eq!(
            (refused.state, refused.code.as_str()),
            (BankState::Declined, "MD:0")
        );
        // Partial capture, then refunds of it.
        assert_eq!(
            seen(&inquiry(&line(2, 5, ok, 200, 0, 120))),
            (BankState::Approved, 120, 0)
        );
        assert_eq!(
            seen(&inquiry(&line(2, 3, ok, 200, 20, 120))),
            (BankState::PartiallyRefunded, 120, 20)
        );
        assert_eq!(
            seen(&inquiry(&line(1, 4, ok, 101, 101, 0))),
            (BankState::Refunded, 101, 101)
        );
    }

    /// MEWS `fail_order_not_found` (Code 0, everything empty) and `Code 101`.
    #[test]
    fn not_found() {
        let body = br#"{"TransactionType":0,"CreateDate":null,"OrderId":null,"BankResponseCode":null,"Amount":0,"RequestStatus":0,"RefundedAmount":0,"PostAuthedAmount":0,"TransactionId":0,"Code":0,"Message":""}"#;
        let st = from_inquiry(
            &<Reply as paygate_bankkit::BankReply>::decode(body).unwrap(),
            Some("X"),
        );
        assert!(!st.found && st.is_conclusive());
        let st = from_inquiry(
            &<Reply as paygate_bankkit::BankReply>::decode(
                r#"{"Code":101,"Message":"Orjinal Kayıt Bulunamadı"}"#.as_bytes(),
            )
            .unwrap(),
            Some("X"),
        );
        assert!(!st.found && st.is_conclusive());
    }

    /// What cannot be read conclusively is unavailable.
    #[test]
    fn inconclusive_answers_are_unavailable() {
        let ok = r#""00""#;
        for odd in [
            // MEWS `fail_waiting_for_3d_auth`: not final yet.
            line(1, 10, "null", 101, 0, 0),
            // No host answer yet.
            line(1, 0, "null", 101, 0, 0),
            // The host did not approve what the status says happened.
            line(1, 1, r#""05""#, 101, 0, 0),
            // A refused record whose host code says the host may have acted (late answer,
            // issuer or switch inoperative, system malfunction).
            line(1, 0, r#""68""#, 101, 0, 0),
            line(1, 0, r#""91""#, 101, 0, 0),
            line(2, 0, r#""96""#, 101, 0, 0),
            // Amounts that contradict the status.
            line(1, 1, ok, 101, 10, 0),
            line(2, 1, ok, 101, 0, 50),
            line(1, 3, ok, 101, 101, 0),
            line(1, 3, ok, 101, 0, 0),
            line(1, 4, ok, 101, 50, 0),
            line(2, 5, ok, 101, 0, 102),
            line(2, 5, ok, 101, 0, 0),
            line(3, 1, ok, 101, 0, 0),
            // Unreadable amounts.
            r#""TransactionType":1,"RequestStatus":1,"BankResponseCode":"00","Amount":1.01"#
                .to_owned(),
            r#""TransactionType":1,"RequestStatus":1,"BankResponseCode":"00","Amount":-1"#
                .to_owned(),
        ] {
            assert!(!inquiry(&odd).is_conclusive(), "{odd}");
        }
        let other_order = br#"{"OrderId":"OTHER","TransactionType":1,"RequestStatus":1,"BankResponseCode":"00","Amount":1,"Code":0}"#;
        let st = from_inquiry(
            &<Reply as paygate_bankkit::BankReply>::decode(other_order).unwrap(),
            Some("X"),
        );
        assert!(!st.is_conclusive());
        for code in ["999", "998", "997"] {
            let body = format!(r#"{{"Code":{code},"Message":"Genel Hata"}}"#);
            let st = from_inquiry(
                &<Reply as paygate_bankkit::BankReply>::decode(body.as_bytes()).unwrap(),
                Some("X"),
            );
            assert!(!st.is_conclusive(), "{code}");
        }
    }
}
