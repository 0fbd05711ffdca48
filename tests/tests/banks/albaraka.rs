//! Albaraka (PosNet V1) through the merchant API, beyond the shared suites: the points
//! inquiry the family does not offer is refused explicitly, before the bank is asked.

use paygate_tests::{card_number, expect_error, points_body};

use crate::{sim, stack, ALBARAKA};

#[tokio::test]
async fn albaraka_points_are_refused_before_the_bank_is_asked() {
    let stack = stack().await;
    // GIVEN the PosNet V1 simulator would fail the next request it gets
    let bank = sim(&stack, ALBARAKA.provider);
    bank.faults().technical_errors = 1;
    // WHEN a points inquiry names the Albaraka account
    let r = stack
        .post_reply(
            "/v1/payments/points/inquiry",
            ALBARAKA.key(),
            &points_body(&card_number("540061", 16, ""), Some(ALBARAKA.account)),
        )
        .await;
    // THEN 400 operation_not_supported naming the operation and the account
    let err = expect_error(&(r.status, r.body.clone()), 400, "operation_not_supported");
    assert_eq!(err["details"]["operation"], "points_inquiry", "{err}");
    assert_eq!(err["details"]["accountId"], ALBARAKA.account, "{err}");
    // AND nothing reached the bank: the fault is still armed
    assert_eq!(bank.faults().technical_errors, 1);
}
