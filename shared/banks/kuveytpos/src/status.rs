//! The order's state at the bank, from `GetMerchantOrderDetail`'s `OrderContract`.
//!
//! `LastOrderStatus` says where the order stands (MEWS `KuveytPosResponseDataMapper`: `1`
//! paid, `4` fully refunded, `5` partially refunded, `6` cancelled; the LNK library adds `2`
//! pre-authorization, `3` closed pre-authorization, `8` rejected, `10` cancelled);
//! `FirstAmount` is the sale, `DrawbackAmount` what was refunded so far, `CancelAmount` what
//! was reversed (decimal TL). A contract whose own `ResponseCode` is not `00` is a refused
//! sale. Where the figures contradict the status, or the status is one the sources do not
//! explain (`9` "end of day done" among them), the state is not conclusive.
//!
//! "No such order" is only the service's plain answer without a contract (`Success true`,
//! no `Results`, an empty `Value`: MEWS fixture `fail1`); an answer with errors, of another
//! method or about another order is a failed read. Searched by the merchant's order id, the
//! service may list several contracts (every attempt with that id); exactly one approved
//! sale is the order, two approved ones are not a state to act on.

use paygate_bankkit::{amount, StatusRead, Verdict};
use paygate_domain::{BankState, BankStatus};

use crate::{
    request::{method, SaleRef},
    response::{classify, Fields, Reply},
};

/// The code a read without a contract reports (the service sends none).
pub const NOT_FOUND: &str = "NoOrderContract";

/// What a `GetMerchantOrderDetail` answer says: no such order, a failed read, or the
/// order's contract.
pub type Detail = StatusRead<Fields>;

/// Reads a `GetMerchantOrderDetail` answer; `order_id`, when given, must be the contract's
/// `MerchantOrderId`.
pub fn read_detail(reply: &Reply, order_id: Option<&str>) -> Detail {
    let failed = |code: &str| Detail::Failed {
        code: code.to_owned(),
    };
    if reply.fault.is_some() {
        return failed("SoapFault");
    }
    if reply.method != method::ORDER_DETAIL {
        return failed(&reply.method);
    }
    if !reply.results.is_empty() || reply.success != "true" {
        let code = reply.bank_code();
        return failed(if code == "unknown" { "Success" } else { &code });
    }
    let mine: Vec<&Fields> = reply
        .contracts
        .iter()
        .filter(|c| order_id.is_none_or(|id| c.get("MerchantOrderId") == id))
        .collect();
    if mine.len() != reply.contracts.len() {
        return failed("MerchantOrderId");
    }
    let approved: Vec<&&Fields> = mine
        .iter()
        .filter(|c| c.get("ResponseCode") == "00")
        .collect();
    match (approved.as_slice(), mine.first()) {
        ([one], _) => Detail::Found((**one).clone()),
        ([], None) => Detail::NotFound {
            code: NOT_FOUND.to_owned(),
        },
        // Only refused attempts: the latest one.
        ([], Some(_)) => Detail::Found(mine.last().map(|c| (*c).clone()).unwrap_or_default()),
        _ => failed("several approved orders"),
    }
}

/// The sale's references a reversal or refund needs, when the contract has them all.
pub fn sale_ref(c: &Fields) -> Option<SaleRef> {
    let r = SaleRef {
        order_id: c.get("OrderId").to_owned(),
        rrn: c.get("RRN").to_owned(),
        stan: c.get("Stan").to_owned(),
        provision: c.get("ProvNumber").to_owned(),
    };
    let complete = [&r.order_id, &r.rrn, &r.stan, &r.provision]
        .iter()
        .all(|v| !v.is_empty())
        && r.order_id != "0";
    complete.then_some(r)
}

/// The sale's amount in kuruş (`FirstAmount`).
pub fn sale_amount(c: &Fields) -> Option<i64> {
    amount::parse_decimal(c.get("FirstAmount"))
}

/// The order's state from its contract.
pub fn of_contract(c: &Fields) -> BankStatus {
    let status = |state: BankState, amount: i64, refunded: i64, code: &str| BankStatus {
        found: true,
        state,
        amount,
        refunded_amount: refunded,
        code: code.to_owned(),
        auth_code: c.get("ProvNumber").to_owned(),
        rrn: c.get("RRN").to_owned(),
    };
    let code = c.get("ResponseCode");
    let Some(amount) = sale_amount(c) else {
        return BankStatus::unavailable("FirstAmount");
    };
    if code != "00" {
        // A refused sale, unless its code says the host may have acted.
        return if classify(code, false) == Verdict::Declined {
            status(BankState::Declined, amount, 0, code)
        } else {
            BankStatus::unavailable(if code.is_empty() {
                "ResponseCode"
            } else {
                code
            })
        };
    }
    let Some(refunded) = amount::parse_decimal(c.get("DrawbackAmount")) else {
        return BankStatus::unavailable("DrawbackAmount");
    };
    let last = c.get("LastOrderStatus");
    match last {
        "1" | "3" if refunded == 0 => status(BankState::Approved, amount, 0, code),
        "4" if refunded == amount => status(BankState::Refunded, amount, refunded, code),
        "5" if refunded > 0 && refunded < amount => {
            status(BankState::PartiallyRefunded, amount, refunded, code)
        }
        "6" | "10" if refunded == 0 => status(BankState::Cancelled, amount, 0, code),
        "2" => status(BankState::Preauth, amount, 0, code),
        "8" => status(BankState::Declined, amount, 0, code),
        "1" | "3" | "4" | "5" | "6" | "10" => BankStatus::unavailable("DrawbackAmount"),
        other => BankStatus::unavailable(&format!("LastOrderStatus:{other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The contract of MEWS fixture `tdv2_success_tx_pay` (the fields this crate reads).
    fn contract(last: &str, first: &str, drawback: &str) -> Fields {
        Fields::default()
            .with("OrderId", "155768281")
            .with("MerchantOrderId", "20240424C7A5")
            .with("LastOrderStatus", last)
            .with("FirstAmount", first)
            .with("CancelAmount", "0.00")
            .with("DrawbackAmount", drawback)
            .with("ResponseCode", "00")
            .with("ProvNumber", "050990")
            .with("RRN", "411516539768")
            .with("Stan", "539768")
    }

    fn reply(contracts: Vec<Fields>) -> Reply {
        Reply {
            method: method::ORDER_DETAIL.to_owned(),
            success: "true".to_owned(),
            contracts,
            ..Reply::default()
        }
    }

    #[test]
    fn the_fixtures_states() {
        let st = of_contract(&contract("1", "10.01", "0.00"));
        assert_eq!(
            (st.state, st.amount, st.auth_code.as_str(), st.rrn.as_str()),
            (BankState::Approved, 1_001, "050990", "411516539768")
        );
        // `tdv2_success_tx_pay_then_cancel`, `tdv2_success_tx_pay_then_refund`.
        assert_eq!(
            of_contract(&contract("6", "10.01", "0.00")).state,
            BankState::Cancelled
        );
        let st = of_contract(&contract("4", "10.01", "10.01"));
        assert_eq!((st.state, st.refunded_amount), (BankState::Refunded, 1_001));
        let st = of_contract(&contract("5", "10.01", "3.00"));
        assert_eq!(
            (st.state, st.refunded_amount),
            (BankState::PartiallyRefunded, 300)
        );
    }

    #[test]
    fn contradictions_and_unexplained_states_are_not_conclusive() {
        for (last, drawback) in [
            ("1", "1.00"),
            ("4", "3.00"),
            ("5", "0.00"),
            ("5", "10.01"),
            ("9", "0.00"),
            ("", "0.00"),
        ] {
            let st = of_contract(&contract(last, "10.01", drawback));
            assert!(!st.is_conclusive(), "{last} {drawback}: {st:?}");
        }
        let no_amount = contract("1", "", "0.00");
        assert!(!of_contract(&no_amount).is_conclusive());
    }

    #[test]
    fn a_refused_sale_is_declined_unless_its_code_is_unsure() {
        let mut c = contract("8", "10.01", "0.00");
        c.0.retain(|(k, _)| k != "ResponseCode");
        let declined = c.clone().with("ResponseCode", "51");
        assert_eq!(of_contract(&declined).state, BankState::Declined);
        let unsure = c.with("ResponseCode", "91");
        assert!(!of_contract(&unsure).is_conclusive());
    }

    #[test]
    fn not_found_failed_and_several_contracts() {
        // MEWS `fail1`: Success true, no results, an empty Value.
        assert_eq!(
            read_detail(&reply(vec![]), Some("X")),
            Detail::NotFound {
                code: NOT_FOUND.into()
            }
        );
        // `tdv2_fail_hash_error`.
        let mut r = reply(vec![]);
        r.success = "false".into();
        r.results.push(crate::response::ResultEntry {
            code: "HashDataError".into(),
            message: "Şifrelenen veriler (Hashdata) uyuşmamaktadır.".into(),
            severity: "BusinessError".into(),
        });
        assert_eq!(
            read_detail(&r, None),
            Detail::Failed {
                code: "HashDataError".into()
            }
        );
        // Nil `Success` with an empty value: not a "no record" answer.
        let mut nil = reply(vec![]);
        nil.success.clear();
        assert!(matches!(read_detail(&nil, None), Detail::Failed { .. }));
        // Another order's contract.
        let c = contract("1", "10.01", "0.00");
        assert!(matches!(
            read_detail(&reply(vec![c.clone()]), Some("OTHER")),
            Detail::Failed { .. }
        ));
        // A refused attempt and the approved sale: the sale; two approved: no state.
        let mut refused = c.clone();
        refused.0.retain(|(k, _)| k != "ResponseCode");
        let refused = refused.with("ResponseCode", "05");
        assert_eq!(
            read_detail(
                &reply(vec![refused.clone(), c.clone()]),
                Some("20240424C7A5")
            ),
            Detail::Found(c.clone())
        );
        assert!(matches!(
            read_detail(&reply(vec![c.clone(), c.clone()]), None),
            Detail::Failed { .. }
        ));
        assert_eq!(
            read_detail(&reply(vec![refused.clone()]), None),
            Detail::Found(refused)
        );
    }

    #[test]
    fn sale_references() {
        let c = contract("1", "10.01", "0.00");
        assert_eq!(
            sale_ref(&c),
            Some(SaleRef {
                order_id: "155768281".into(),
                rrn: "411516539768".into(),
                stan: "539768".into(),
                provision: "050990".into(),
            })
        );
        let mut partial = c;
        partial.0.retain(|(k, _)| k != "Stan");
        assert_eq!(sale_ref(&partial), None);
    }
}
