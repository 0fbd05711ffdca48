use super::*;

fn parse(body: &[u8]) -> Result<Reply, String> {
    Reply::decode(body)
}

fn outcome(reply: &Reply) -> BankOutcome {
    reply.outcome()
}

fn points(reply: &Reply) -> PointsResult {
    reply.points()
}

fn reply(doc: &str) -> Reply {
    parse(doc.as_bytes()).unwrap()
}

#[test]
fn approved_refund_sample_maps_to_approved_with_references() {
    // PARA tests/samples/response/posnet/refund_successful.xml (comments dropped).
    let r = reply(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><posnetResponse><approved>1</approved>\
             <hostlogkey>0001000004P0503281</hostlogkey><authCode>007912</authCode><tranDate>050531135646</tranDate>\
             <instInfo><inst1>03</inst1><amnt1>000000005000</amnt1></instInfo>\
             <pointInfo><point>00000010</point><pointAmount>000000000005</pointAmount><totalPoint>00011742</totalPoint>\
             <totalPointAmount>000000005871</totalPointAmount></pointInfo></posnetResponse>",
        );
    assert_eq!(
        outcome(&r),
        BankOutcome::Approved {
            code: "1".into(),
            auth_code: Some("007912".into()),
            rrn: Some("0001000004P0503281".into()),
        }
    );
    // The same pointInfo read as a balance: 000000005871 → 58.71 TL.
    assert_eq!(
        points(&r),
        PointsResult::Ok {
            balances: vec![PointsBalance {
                name: "WorldPuan".into(),
                value: "58.71".into(),
                amount_minor: 5871
            }]
        }
    );
}

#[test]
fn refusals_carry_the_bank_code_and_text() {
    // PARA post_authorization_failed.xml.
    let r = reply(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><posnetResponse><approved>0</approved>\
             <respCode>0225</respCode><respText>ONAYLANMADI:0225 ISL. YAPILAMIY 0225</respText></posnetResponse>",
        );
    assert_eq!(
        outcome(&r),
        BankOutcome::Declined {
            code: "0225".into(),
            message: "ONAYLANMADI:0225 ISL. YAPILAMIY 0225".into(),
            after_cutoff: false
        }
    );
    // MEWS fail2: approved 2 + 0127 is a refusal, even with a hostlogkey present.
    let dup = reply(
            "<posnetResponse><approved>2</approved><respCode>0127</respCode>\
             <respText>ORDERID DAHA ONCE KULLANILMIS 0127</respText><hostlogkey>020527337090000191</hostlogkey>\
             <authCode>273370</authCode><tranDate>190703093340</tranDate></posnetResponse>",
        );
    assert!(matches!(outcome(&dup), BankOutcome::Declined { code, .. } if code == "0127"));
    let cut = reply("<posnetResponse><approved>0</approved><respCode>0211</respCode><respText>GRUP KAPAMA YAPILMIS</respText></posnetResponse>");
    assert!(matches!(
        outcome(&cut),
        BankOutcome::Declined {
            after_cutoff: true,
            ..
        }
    ));
    // An approved flag with an error code is not an approval.
    let odd = reply("<posnetResponse><approved>1</approved><respCode>0205</respCode><respText>x</respText></posnetResponse>");
    assert!(matches!(outcome(&odd), BankOutcome::Declined { code, .. } if code == "0205"));
}

#[test]
fn credential_and_technical_codes_are_errors() {
    // MEWS fail1, ISO-8859-9 on the wire ('ı' is one byte).
    let bytes = encoding::encode(
            "<?xml version='1.0' encoding='iso-8859-9'?><posnetResponse><approved>0</approved><respCode>0148</respCode>\
             <respText>INVALID MID TID IP. Hatalı IP:89.244.149.137</respText></posnetResponse>",
        );
    let r = parse(&bytes).unwrap();
    assert_eq!(
        outcome(&r),
        BankOutcome::Error {
            code: "0148".into(),
            message: "INVALID MID TID IP. Hatalı IP:89.244.149.137".into()
        }
    );
    assert!(matches!(points(&r), PointsResult::Error { code, .. } if code == "0148"));
    let declined = reply("<posnetResponse><approved>0</approved><respCode>0012</respCode><respText>RED-GECERSIZ ISLEM</respText></posnetResponse>");
    assert!(matches!(points(&declined), PointsResult::Declined { code, .. } if code == "0012"));
}

#[test]
fn codes_after_which_the_bank_may_have_acted_are_unknown() {
    for code in ["0400", "0068", "0091", "0096", "0092"] {
        let r = reply(&format!(
                "<posnetResponse><approved>0</approved><respCode>{code}</respCode><respText>HOST</respText></posnetResponse>"
            ));
        assert!(matches!(outcome(&r), BankOutcome::Unknown { .. }), "{code}");
        // A points inquiry moves nothing: it failed.
        assert!(matches!(points(&r), PointsResult::Error { .. }), "{code}");
    }
}

#[test]
fn unreadable_answers_are_errors() {
    for bad in [
        "",
        "<html>502</html>",
        "<posnetResponse><respCode>1</respCode></posnetResponse>",
        "<posnetResponse>",
    ] {
        assert!(parse(bad.as_bytes()).is_err(), "{bad}");
    }
    let no_points = reply("<posnetResponse><approved>1</approved></posnetResponse>");
    assert!(matches!(points(&no_points), PointsResult::Error { .. }));
}
