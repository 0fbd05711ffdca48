//! The order's state from a `StatusHistory` answer. Fields (MEWS
//! `InterPosResponseDataMapperTest::statusTestDataProvider`; meanings from the LNK
//! `IvpPaymentDetailResponse`): `TxnStat` (`N` normal, `V` voided, `R` reversed, `S`
//! suspicious), `TxnStatus` (`D` declined, `V` voided, `A` pre-authorization, `K` closed
//! pre-authorization, `S` end of day done, `C` end of day not done), `ChargeTypeCd` (`S`
//! sale, `C` refund), `PurchAmount`, `RefundedAmount` (comma decimals), `VoidDate`
//! (`1.1.0001 00:00:00` = none).
//!
//! | answer | state |
//! |---|---|
//! | `ProcReturnCode` ≠ `00` with `ErrorCode` `E39` | not found |
//! | any other failure (`81` terminal not active, `91`, …) | unavailable |
//! | `TxnStat S` (suspicious), unknown letters, unreadable amounts | unavailable (never a guess) |
//! | `TxnStat V`/`R` or `TxnStatus V` | `cancelled` |
//! | `TxnStatus D` | `declined` |
//! | `TxnStatus A` | `preauth` |
//! | `TxnStatus K`, `S`, `C` | `approved` / `partially_refunded` / `refunded` by `RefundedAmount` |

use paygate_domain::{BankState, BankStatus};

use crate::response::{classify, parse_amount, Reply, Verdict, NOT_FOUND};

/// Whether the order's sale is past the end-of-day cut (`TxnStatus S`), for a refused void.
pub fn past_end_of_day(reply: &Reply) -> bool {
    classify(reply) == Verdict::Approved
        && reply.get("TxnStat").trim() == "N"
        && reply.get("TxnStatus").trim() == "S"
}

/// The order's state (see the module table).
pub fn status(reply: &Reply) -> BankStatus {
    if classify(reply) != Verdict::Approved {
        let code = reply.bank_code();
        return if reply.get("ErrorCode").trim() == NOT_FOUND {
            BankStatus::not_found(&code)
        } else {
            BankStatus::unavailable(&code)
        };
    }
    let stat = reply.get("TxnStat").trim();
    let status = reply.get("TxnStatus").trim();
    let (Some(amount), Some(refunded)) = (
        parse_amount(reply.get("PurchAmount")),
        parse_amount(reply.get("RefundedAmount")),
    ) else {
        return BankStatus::unavailable("StatusHistory:amount");
    };
    let state = match (stat, status) {
        ("S", _) => return BankStatus::unavailable("TxnStat:S"),
        ("V" | "R", _) | ("N", "V") => BankState::Cancelled,
        ("N", "D") => BankState::Declined,
        ("N", "A") => BankState::Preauth,
        ("N", "K" | "S" | "C") => match refunded {
            r if r > amount => return BankStatus::unavailable("RefundedAmount"),
            r if r == amount && r > 0 => BankState::Refunded,
            r if r > 0 => BankState::PartiallyRefunded,
            _ => BankState::Approved,
        },
        (s, t) => return BankStatus::unavailable(&format!("TxnStat:{s}/{t}")),
    };
    if refunded > 0 && !matches!(state, BankState::Refunded | BankState::PartiallyRefunded) {
        // A refund on an order that is not a sale: contradictory.
        return BankStatus::unavailable("RefundedAmount");
    }
    BankStatus {
        found: true,
        state,
        amount,
        refunded_amount: refunded,
        code: reply.proc_return_code().trim().to_owned(),
        auth_code: reply.get("AuthCode").trim().to_owned(),
        rrn: reply.get("HostRefNum").trim().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(body: &[u8]) -> Result<Reply, String> {
        <Reply as paygate_bankkit::BankReply>::decode(body)
    }

    fn answer(stat: &str, status_: &str, amount: &str, refunded: &str) -> Reply {
        parse(format!("OrderId=O1;;ProcReturnCode=00;;TxnResult=Success;;BatchNo=1;;TransId=T1;;TRXDATE=09.08.2024 10:40:34;;TxnStat={stat};;PurchAmount={amount};;VoidDate=1.1.0001 00:00:00;;TxnStatus={status_};;ChargeTypeCd=S;;ErrorCode=;;ErrorMessage=;;RefundedAmount={refunded};;AuthCode=A1;;HostRefNum=R1").as_bytes()).unwrap()
    }

    /// MEWS `statusTestDataProvider` `fail1`: the terminal is not active → unavailable.
    #[test]
    fn the_mews_failure_is_unavailable() {
        let r = parse(b"OrderId=SYSOID121327781;;ProcReturnCode=81;;BatchNo=;;TransId=;;TRXDATE=;;TxnStat=;;PurchAmount=0;;VoidDate=1.1.0001 00:00:00;;TxnStatus=;;ChargeTypeCd=;;ErrorCode=B810002;;ErrorMessage=TR:Terminal Aktif Degil;;RefundedAmount=0;;AuthCode=").unwrap();
        let st = status(&r);
        assert!(
            st.found && !st.is_conclusive() && st.code == "B810002",
            "{st:?}"
        );
        let nf = parse(b"OrderId=X;;ProcReturnCode=99;;TxnResult=Failed;;ErrorCode=E39;;ErrorMessage=Islem bulunamadi").unwrap();
        assert!(!status(&nf).found);
    }

    #[test]
    fn states() {
        let s = |a: &Reply| {
            let st = status(a);
            (st.state, st.amount, st.refunded_amount)
        };
        assert_eq!(
            s(&answer("N", "A", "200,00", "0")),
            (BankState::Preauth, 20_000, 0)
        );
        assert_eq!(
            s(&answer("N", "K", "150,00", "0")),
            (BankState::Approved, 15_000, 0)
        );
        assert_eq!(
            s(&answer("N", "C", "100,00", "25,00")),
            (BankState::PartiallyRefunded, 10_000, 2_500)
        );
        assert_eq!(
            s(&answer("N", "S", "100,00", "100,00")),
            (BankState::Refunded, 10_000, 10_000)
        );
        assert_eq!(s(&answer("V", "V", "100,00", "0")).0, BankState::Cancelled);
        assert_eq!(s(&answer("R", "C", "100,00", "0")).0, BankState::Cancelled);
        assert_eq!(s(&answer("N", "D", "100,00", "0")).0, BankState::Declined);
        assert!(past_end_of_day(&answer("N", "S", "1,00", "0")));
        assert!(!past_end_of_day(&answer("N", "C", "1,00", "0")));
    }

    #[test]
    fn suspicious_odd_and_contradictory_lines_are_not_conclusive() {
        for a in [
            answer("S", "C", "100,00", "0"),
            answer("N", "X", "100,00", "0"),
            answer("N", "C", "100,00", "150,00"),
            answer("N", "A", "100,00", "10,00"),
            answer("N", "C", "abc", "0"),
        ] {
            assert!(!status(&a).is_conclusive(), "{a:?}");
        }
    }
}
