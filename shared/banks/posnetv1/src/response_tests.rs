use paygate_bankkit::BankReply;
use paygate_domain::BankOutcome;

use super::*;

fn outcome(body: &str) -> BankOutcome {
    Reply::decode(body.as_bytes()).unwrap().outcome()
}

fn answer(code: &str, message: &str) -> String {
    format!(
        r#"{{"ServiceResponseData":{{"ResponseCode":"{code}","ResponseDescription":"{message}"}},"AuthCode":null,"ReferenceCode":null}}"#
    )
}

/// MEWS `mapCancelResponseDataProvider`/`paymentTestDataProvider` `success1`.
#[test]
fn approvals_carry_the_banks_references() {
    let ok = r#"{"ServiceResponseData":{"ResponseCode":"00","ResponseDescription":"Onaylandı"},"AuthCode":"449324","ReferenceCode":"159044932490000231","PointDataList":null,"InstallmentData":null}"#;
    assert_eq!(
        outcome(ok),
        BankOutcome::Approved {
            code: "00".into(),
            auth_code: Some("449324".into()),
            rrn: Some("159044932490000231".into()),
        }
    );
    assert!(matches!(
        outcome(&answer("00", "Onaylandı")),
        BankOutcome::Approved {
            auth_code: None,
            rrn: None,
            ..
        }
    ));
}

/// MEWS `fail1` fixtures (`0127`, `0148`), the PosNet codes of the flows, and answers that do
/// not say nothing moved.
#[test]
fn codes_map_to_their_outcome_class() {
    assert!(matches!(
        outcome(&answer("0127", "ORDERID DAHA ONCE KULLANILMIS")),
        BankOutcome::Declined { code, after_cutoff: false, .. } if code == "0127"
    ));
    assert!(matches!(
        outcome(&answer("0148", "INVALID MID TID IP. Hatalı IP:92.38.180.64")),
        BankOutcome::Error { code, message } if code == "0148" && message.contains("INVALID MID")
    ));
    assert!(matches!(
        outcome(&answer("0211", "GRUP KAPAMA YAPILMIS")),
        BankOutcome::Declined {
            after_cutoff: true,
            ..
        }
    ));
    for code in ["0411", "0220", "0788", "0123", "0051", "0005"] {
        assert!(
            matches!(
                outcome(&answer(code, "x")),
                BankOutcome::Declined {
                    after_cutoff: false,
                    ..
                }
            ),
            "{code}"
        );
    }
    for code in ["0400", "0068", "0091", "0092", "0096", "", "0000"] {
        assert!(
            matches!(outcome(&answer(code, "x")), BankOutcome::Unknown { .. }),
            "{code}"
        );
    }
    assert!(matches!(
        outcome(r#"{"AuthCode":"1"}"#),
        BankOutcome::Unknown { .. }
    ));
    assert!(Reply::decode(b"[1]").is_err() && Reply::decode(b"<xml/>").is_err());
}
