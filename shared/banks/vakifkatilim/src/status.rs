//! The order's state at the bank, from `SelectOrderByMerchantOrderId`: one `OrderContract`
//! per transaction of the order, each repeating the order's own figures (MEWS
//! `statusTestDataProvider`, `success_history.json`):
//!
//! - `OrderStatus`: the transaction's type; `LastOrderStatus`: the order's latest. From the
//!   reference (`orderStatusMappings`): `1` Satış (sale), `4` İade (fully refunded), `5`
//!   partially refunded, `6` İptal (cancelled). The pre-authorization's codes are not in the
//!   public sources: this crate reads `2` as an open pre-authorization and `3` as a closed one
//!   (README: an assumption to confirm with the bank); any other code is not a state to act on.
//! - `FirstAmount`, `CancelAmount`, `DrawbackAmount`, `ClosedAmount`: decimal TL.
//! - `TransactionStatus 1` Başarılı; `EndOfDayStatus 1` Açık (the day's batch still open: a
//!   cancel is possible, a refund is not yet), `2` closed (assumed, README).
//!
//! Not found is the answer's `ResponseCode NonResult` ("Kriterlere uygun sonuc
//! bulunmamaktadir."); any other failed answer (`MerchantNotDefined`, a system error) is a
//! failed read, never "no such order". Figures that contradict the codes are unavailable.

use paygate_bankkit::{StatusRead, Verdict};
use paygate_domain::{BankState, BankStatus};

use crate::response::{classify, Fields, Reply};

/// The query answer's code for "no order matches".
pub const NOT_FOUND: &str = "NonResult";
/// `EndOfDayStatus` of a day whose batch is still open (MEWS fixtures: `Acik`).
pub const END_OF_DAY_OPEN: &str = "1";
/// `EndOfDayStatus` of a closed day (assumed: README).
pub const END_OF_DAY_CLOSED: &str = "2";

/// What a query answer says: no such order, a failed read, or the order's main transaction.
pub type Read = StatusRead<Fields>;

/// The transaction types that open an order: a sale, a pre-authorization.
const MAIN: [&str; 2] = ["1", "2"];

/// The order-level figures every entry of one order repeats.
const ORDER_LEVEL: [&str; 7] = [
    "OrderId",
    "MerchantOrderId",
    "LastOrderStatus",
    "FirstAmount",
    "CancelAmount",
    "DrawbackAmount",
    "ClosedAmount",
];

/// Reads a query answer; `order_id` (when given) must be the order the entries name.
pub fn read(reply: &Reply, order_id: Option<&str>) -> Read {
    let code = reply.fields.bank_code();
    match reply.fields.code() {
        "00" => {}
        NOT_FOUND => return Read::NotFound { code },
        _ => return Read::Failed { code },
    }
    let Some(first) = reply.orders.first() else {
        return Read::Failed {
            code: "VPosOrderData".to_owned(),
        };
    };
    let same_order = reply.orders.iter().all(|o| {
        ORDER_LEVEL.iter().all(|k| o.get(k) == first.get(k))
            && order_id.is_none_or(|id| o.get("MerchantOrderId") == id)
    });
    if !same_order {
        return Read::Failed {
            code: "OrderContract".to_owned(),
        };
    }
    let main = reply
        .orders
        .iter()
        .find(|o| MAIN.contains(&o.get("OrderStatus")))
        .unwrap_or(first);
    Read::Found(main.clone())
}

/// The bank's own id of the order (`OrderId`), needed by every money request.
pub fn bank_order_id(line: &Fields) -> &str {
    line.get("OrderId")
}

/// The order's `EndOfDayStatus`.
pub fn end_of_day(line: &Fields) -> &str {
    line.get("EndOfDayStatus")
}

/// The order's state from its main entry.
pub fn state(line: &Fields) -> BankStatus {
    let status = |state: BankState, amount: i64, refunded: i64| BankStatus {
        found: true,
        state,
        amount,
        refunded_amount: refunded,
        code: "00".to_owned(),
        auth_code: line.get("ProvNumber").to_owned(),
        rrn: line.get("RRN").to_owned(),
    };
    let code = line.bank_code();
    let Some(first) = line.amount("FirstAmount") else {
        return BankStatus::unavailable("FirstAmount");
    };
    if line.code() != "00" {
        // A refused sale, unless its code says the bank may have acted.
        return if classify(line.code()) == Verdict::Declined && line.get("TransactionStatus") != "1"
        {
            BankStatus {
                code,
                ..status(BankState::Declined, first, 0)
            }
        } else {
            BankStatus::unavailable(&code)
        };
    }
    if line.get("TransactionStatus") != "1" {
        return BankStatus::unavailable(&format!(
            "TransactionStatus:{}",
            line.get("TransactionStatus")
        ));
    }
    let figure = |k: &str| {
        let v = line.get(k);
        if v.is_empty() {
            Some(0)
        } else {
            line.amount(k)
        }
    };
    let (Some(cancelled), Some(refunded), Some(closed)) = (
        figure("CancelAmount"),
        figure("DrawbackAmount"),
        figure("ClosedAmount"),
    ) else {
        return BankStatus::unavailable("amounts");
    };
    let origin = line.get("OrderStatus");
    // What the order holds: the closed amount of a closed pre-authorization, else the first.
    let held = if origin == "2" && closed > 0 {
        closed
    } else {
        first
    };
    let last = line.get("LastOrderStatus");
    match (origin, last) {
        (_, "6") if cancelled > 0 && refunded == 0 => status(BankState::Cancelled, held, 0),
        ("1", "1") if cancelled == 0 && refunded == 0 && closed == 0 => {
            status(BankState::Approved, first, 0)
        }
        ("2", "2") if cancelled == 0 && refunded == 0 && closed == 0 => {
            status(BankState::Preauth, first, 0)
        }
        ("2", "3") if cancelled == 0 && refunded == 0 && closed > 0 && closed <= first => {
            status(BankState::Approved, closed, 0)
        }
        ("1" | "2", "4") if cancelled == 0 && refunded == held => {
            status(BankState::Refunded, held, refunded)
        }
        ("1" | "2", "5") if cancelled == 0 && refunded > 0 && refunded < held => {
            status(BankState::PartiallyRefunded, held, refunded)
        }
        _ => BankStatus::unavailable(&format!("OrderStatus:{origin}/LastOrderStatus:{last}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paygate_bankkit::BankReply;

    fn entry(fields: &[(&str, &str)]) -> String {
        let mut base = vec![
            ("OrderId", "12743"),
            ("MerchantOrderId", "1995434716"),
            ("OrderStatus", "1"),
            ("TransactionStatus", "1"),
            ("LastOrderStatus", "1"),
            ("EndOfDayStatus", "1"),
            ("FirstAmount", "9.30"),
            ("CancelAmount", "0.00"),
            ("DrawbackAmount", "0.00"),
            ("ClosedAmount", "0.00"),
            ("ResponseCode", "00"),
            ("ProvNumber", "043290"),
            ("RRN", "035909014127"),
        ];
        base.retain(|(k, _)| !fields.iter().any(|(f, _)| f == k));
        base.extend_from_slice(fields);
        let body: String = base
            .iter()
            .map(|(k, v)| format!("<{k}>{v}</{k}>"))
            .collect();
        format!("<OrderContract>{body}</OrderContract>")
    }

    fn answer(code: &str, entries: &[String]) -> Reply {
        let doc = format!(
            "<?xml version=\"1.0\" encoding=\"utf-16\"?><VPosOrderDataResponseContract \
             xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"><VPosOrderData>{}\
             </VPosOrderData><ResponseCode>{code}</ResponseCode><ResponseMessage />\
             </VPosOrderDataResponseContract>",
            entries.concat()
        );
        Reply::decode(doc.as_bytes()).unwrap()
    }

    fn st(fields: &[(&str, &str)]) -> BankStatus {
        match read(&answer("00", &[entry(fields)]), Some("1995434716")) {
            Read::Found(l) => state(&l),
            other => panic!("{other:?}"),
        }
    }

    /// MEWS `statusTestDataProvider` `success1`: a sale of 9.30 TL.
    #[test]
    fn a_sale() {
        let s = st(&[]);
        assert_eq!(
            (s.state, s.amount, s.auth_code.as_str(), s.rrn.as_str()),
            (BankState::Approved, 930, "043290", "035909014127")
        );
    }

    /// MEWS `success_canceled_order` (`LastOrderStatus 6`, `CancelAmount 10.01`) and the
    /// history fixture's two entries of one cancelled order (sale, then cancel).
    #[test]
    fn a_cancelled_order() {
        let cancelled = [
            ("LastOrderStatus", "6"),
            ("FirstAmount", "10.01"),
            ("CancelAmount", "10.01"),
        ];
        assert_eq!(st(&cancelled).state, BankState::Cancelled);
        let mut cancel_entry = cancelled.to_vec();
        cancel_entry.push(("OrderStatus", "6"));
        let r = answer("00", &[entry(&cancelled), entry(&cancel_entry)]);
        let Read::Found(main) = read(&r, None) else {
            panic!()
        };
        assert_eq!(main.get("OrderStatus"), "1");
        assert_eq!(state(&main).state, BankState::Cancelled);
    }

    #[test]
    fn refunds_and_preauthorizations() {
        let s = st(&[("LastOrderStatus", "5"), ("DrawbackAmount", "2.00")]);
        assert_eq!(
            (s.state, s.refunded_amount),
            (BankState::PartiallyRefunded, 200)
        );
        let s = st(&[("LastOrderStatus", "4"), ("DrawbackAmount", "9.30")]);
        assert_eq!(s.state, BankState::Refunded);
        let pre = [("OrderStatus", "2"), ("LastOrderStatus", "2")];
        assert_eq!(st(&pre).state, BankState::Preauth);
        let closed = [
            ("OrderStatus", "2"),
            ("LastOrderStatus", "3"),
            ("ClosedAmount", "5.00"),
        ];
        let s = st(&closed);
        assert_eq!((s.state, s.amount), (BankState::Approved, 500));
    }

    /// Figures that contradict the codes, unknown codes, a transaction not yet done: never
    /// a state to act on.
    #[test]
    fn contradictions_are_unavailable() {
        for bad in [
            &[("LastOrderStatus", "4"), ("DrawbackAmount", "1.00")][..],
            &[("LastOrderStatus", "5"), ("DrawbackAmount", "0.00")],
            &[("LastOrderStatus", "6")],
            &[("LastOrderStatus", "9")],
            &[("TransactionStatus", "0")],
            &[("FirstAmount", "")],
            &[("ResponseCode", "SystemError")],
        ] {
            assert!(!st(bad).is_conclusive(), "{bad:?}");
        }
        let declined = st(&[("ResponseCode", "51"), ("TransactionStatus", "2")]);
        assert_eq!(
            (declined.state, declined.code.as_str()),
            (BankState::Declined, "51")
        );
    }

    /// MEWS `fail_order_not_found` (`NonResult`) and `fail1` (`MerchantNotDefined`).
    #[test]
    fn not_found_and_failed_reads() {
        let nf = answer(NOT_FOUND, &[]);
        assert_eq!(
            read(&nf, None),
            Read::NotFound {
                code: "NonResult".into()
            }
        );
        let failed = answer("MerchantNotDefined", &[]);
        assert!(matches!(read(&failed, None), Read::Failed { .. }));
        // An approved answer without entries, or about another order.
        assert!(matches!(
            read(&answer("00", &[]), None),
            Read::Failed { .. }
        ));
        let r = answer("00", &[entry(&[])]);
        assert!(matches!(read(&r, Some("other")), Read::Failed { .. }));
    }
}
