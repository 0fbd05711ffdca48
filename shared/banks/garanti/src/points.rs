//! `rewardinq` answers: `Transaction/RewardInqResult/RewardList/Reward{Type, TotalAmount,
//! LastTxnGainAmount}`, amounts in kuruş ("the two digits on the right are decimals").

use paygate_bankkit::amount::{parse_minor, to_decimal};
use paygate_domain::{PointsBalance, PointsResult};

use crate::response::{GvpsResponse, Verdict};

/// The display name of a reward programme code; unknown codes are shown as they come.
pub fn programme_name(code: &str) -> String {
    match code.trim().to_ascii_uppercase().as_str() {
        "BNS" => "Bonus".to_owned(),
        "FBB" => "FirmBonus".to_owned(),
        _ => code.trim().to_owned(),
    }
}

/// The balances of an approved answer (a reward with an unreadable amount is an error: a
/// wrong balance is worse than none).
pub fn balances(resp: &GvpsResponse) -> Result<Vec<PointsBalance>, String> {
    let Some(list) = resp
        .root
        .at(&["Transaction", "RewardInqResult", "RewardList"])
    else {
        return Ok(Vec::new());
    };
    list.children_named("Reward")
        .map(|r| {
            let code = r.text_at(&["Type"]).unwrap_or_default();
            let raw = r.text_at(&["TotalAmount"]).unwrap_or_default();
            let minor = parse_minor(raw)
                .ok_or_else(|| format!("unreadable TotalAmount for reward type {code}"))?;
            Ok(PointsBalance {
                name: programme_name(code),
                value: to_decimal(minor),
                amount_minor: minor,
            })
        })
        .collect()
}

/// The result of a `rewardinq`.
pub fn result(resp: &GvpsResponse) -> PointsResult {
    match resp.verdict() {
        Verdict::Approved => match balances(resp) {
            Ok(balances) => PointsResult::Ok { balances },
            Err(message) => PointsResult::Error {
                code: "malformed".to_owned(),
                message,
            },
        },
        Verdict::Declined => PointsResult::Declined {
            code: resp.bank_code(),
            message: resp.text(),
        },
        Verdict::Error | Verdict::Unknown => PointsResult::Error {
            code: resp.bank_code(),
            message: resp.text(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::response::parse_response;

    fn answer(code: &str, rewards: &str) -> GvpsResponse {
        let doc = format!(
            "<GVPSResponse><Transaction><Response><Source>HOST</Source><Code>{code}</Code><ReasonCode>{code}</ReasonCode>\
             <Message>x</Message><ErrorMsg>KART BONUS DEGIL</ErrorMsg></Response><RewardInqResult><RewardList>{rewards}</RewardList>\
             <ChequeList></ChequeList></RewardInqResult></Transaction></GVPSResponse>"
        );
        parse_response(doc.as_bytes()).unwrap()
    }

    #[test]
    fn bonus_and_firm_bonus_in_kurus() {
        let r = answer(
            "00",
            "<Reward><Type>BNS</Type><TotalAmount>1235</TotalAmount><LastTxnGainAmount>0</LastTxnGainAmount></Reward>\
             <Reward><Type>FBB</Type><TotalAmount>000000000500</TotalAmount></Reward>\
             <Reward><Type>MLS</Type><TotalAmount>7</TotalAmount></Reward>",
        );
        assert_eq!(
            result(&r),
            PointsResult::Ok {
                balances: vec![
                    PointsBalance {
                        name: "Bonus".into(),
                        value: "12.35".into(),
                        amount_minor: 1235
                    },
                    PointsBalance {
                        name: "FirmBonus".into(),
                        value: "5.00".into(),
                        amount_minor: 500
                    },
                    PointsBalance {
                        name: "MLS".into(),
                        value: "0.07".into(),
                        amount_minor: 7
                    },
                ]
            }
        );
        assert_eq!(
            result(&answer("00", "")),
            PointsResult::Ok { balances: vec![] }
        );
    }

    #[test]
    fn declines_and_bad_amounts() {
        assert_eq!(
            result(&answer("05", "")),
            PointsResult::Declined {
                code: "05".into(),
                message: "KART BONUS DEGIL".into()
            }
        );
        assert!(matches!(
            result(&answer(
                "00",
                "<Reward><Type>BNS</Type><TotalAmount>12.35</TotalAmount></Reward>"
            )),
            PointsResult::Error { .. }
        ));
        assert!(matches!(
            result(&answer("96", "")),
            PointsResult::Error { .. }
        ));
    }
}
