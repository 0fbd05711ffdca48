use std::sync::LazyLock;

use paygate_bankkit::xml;

use super::*;

/// The MEWS test account: merchant 7000679, terminal 30691298, PROVAUT/PROVRFN with the
/// same password `123qweASD/`.
fn signer(user: &'static str) -> Signer<'static> {
    static MEWS: LazyLock<Terminal> = LazyLock::new(|| Terminal {
        terminal_id: "30691298".into(),
        merchant_id: "7000679".into(),
        prov_user_id: "PROVAUT".into(),
        prov_password: "123qweASD/".into(),
        refund_user_id: "PROVRFN".into(),
        refund_password: "123qweASD/".into(),
    });
    Signer {
        mode: "TEST",
        terminal: &MEWS,
        user_id: user,
        password: "123qweASD/",
    }
}

fn req(
    user: &'static str,
    txn: TxnType,
    order: &'static str,
    ip: &'static str,
    amount: &str,
    rrn: Option<&'static str>,
) -> Request<'static> {
    Request {
        signer: signer(user),
        txn,
        ip_address: ip,
        order_id: order,
        amount: amount.to_owned(),
        currency_code: "949",
        original_rrn: rrn,
        card: None,
        list: None,
    }
}

/// MEWS `getSampleCancelXMLData`, rendered as the document we send.
#[test]
fn void_matches_the_mews_sample_exactly() {
    let r = req(
        "PROVRFN",
        TxnType::Void,
        "2020110828BC",
        "127.15.15.1",
        FIXED_AMOUNT,
        Some("831803579226"),
    );
    let expected = concat!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<GVPSRequest><Mode>TEST</Mode><Version>512</Version>",
            "<Terminal><ProvUserID>PROVRFN</ProvUserID><UserID>PROVRFN</UserID>",
            "<HashData>35E8410A78E24949D78F5E025B5E05AF470B01385A2ECBFEE6C5B3CDACFF78011D387ECAFDCE4B8453D80D35C2F344F3DAA6F2EF9143079F64DE88401EC5E4F5</HashData>",
            "<ID>30691298</ID><MerchantID>7000679</MerchantID></Terminal>",
            "<Customer><IPAddress>127.15.15.1</IPAddress></Customer>",
            "<Order><OrderID>2020110828BC</OrderID></Order>",
            "<Transaction><Type>void</Type><InstallmentCnt></InstallmentCnt><Amount>100</Amount>",
            "<CurrencyCode>949</CurrencyCode><CardholderPresentCode>0</CardholderPresentCode>",
            "<MotoInd>N</MotoInd><OriginalRetrefNum>831803579226</OriginalRetrefNum></Transaction>",
            "</GVPSRequest>"
        );
    assert_eq!(r.to_xml(), expected);
}

fn fields(doc: &str) -> xml::Element {
    xml::parse(doc).unwrap()
}

/// MEWS `getSampleNonSecurePaymentPostRequestData`.
#[test]
fn postauth_matches_the_mews_sample() {
    let r = req(
        "PROVAUT",
        TxnType::PostAuth,
        "order222",
        "156.155.154.153",
        "10025",
        None,
    );
    let doc = fields(&r.to_xml());
    assert_eq!(doc.text_at(&["Terminal", "ProvUserID"]), Some("PROVAUT"));
    assert_eq!(
            doc.text_at(&["Terminal", "HashData"]),
            Some("0CFE09F107274C6A07292DA061A4EECAB0F5F0CF87F831F2D3626A3346A941126C52D1D95A3B77ADF5AC348B3D25C76BA5D8D98A29557D087D3367BFFACCD25C")
        );
    let t = doc.child("Transaction").unwrap();
    let names: Vec<&str> = t.children.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Type", "Amount", "CurrencyCode"]);
    assert_eq!(t.text_at(&["Type"]), Some("postauth"));
    assert_eq!(t.text_at(&["Amount"]), Some("10025"));
}

/// MEWS `refundOrderDataProvider` (123.10 TL → 12310 kuruş).
#[test]
fn refund_matches_the_mews_sample() {
    let r = req(
        "PROVRFN",
        TxnType::Refund,
        "2020110828BC",
        "127.15.15.1",
        "12310",
        Some("831803579226"),
    );
    let doc = fields(&r.to_xml());
    assert_eq!(
            doc.text_at(&["Terminal", "HashData"]),
            Some("CF49751B3B793B9E1946A08815451989D0231D68A5B495C6EABA9C400442F2E6B7DF97446CE2D3562780767E634A6ECBAA1DF69F6DF7F447884A71BDE38D12AA")
        );
    let t = doc.child("Transaction").unwrap();
    let names: Vec<&str> = t.children.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Type",
            "InstallmentCnt",
            "Amount",
            "CurrencyCode",
            "CardholderPresentCode",
            "MotoInd",
            "OriginalRetrefNum"
        ]
    );
    assert_eq!(t.text_at(&["Amount"]), Some("12310"));
}

/// MEWS `getSampleStatusRequestData` and `orderHistoryRequestDataProvider`.
#[test]
fn queries_match_the_mews_samples() {
    let inq = req(
        "PROVAUT",
        TxnType::OrderInq,
        "2020110828BC",
        "127.15.15.1",
        FIXED_AMOUNT,
        None,
    );
    let doc = fields(&inq.to_xml());
    assert_eq!(doc.text_at(&["Transaction", "Type"]), Some("orderinq"));
    assert_eq!(doc.text_at(&["Transaction", "Amount"]), Some("100"));
    assert_eq!(doc.text_at(&["Transaction", "OriginalRetrefNum"]), None);
    assert!(doc
        .text_at(&["Terminal", "HashData"])
        .unwrap()
        .starts_with("35E8410A78E24949"));
    let hist = req(
        "PROVAUT",
        TxnType::OrderHistoryInq,
        "order222",
        "156.155.154.153",
        FIXED_AMOUNT,
        None,
    );
    let doc = fields(&hist.to_xml());
    assert_eq!(
        doc.text_at(&["Transaction", "Type"]),
        Some("orderhistoryinq")
    );
    assert_eq!(
            doc.text_at(&["Terminal", "HashData"]),
            Some("817BA6A5013BD1E75E1C2FE82AA0F2EFEF89033C31563575701BD05F3C20ADC5DD2AF65D9EF8CF81784E9DA787603E0C1321C6909BE920504BEB3A85992440F5")
        );
}

/// Garanti's `RewardInquiry.php`: card block, amount 1, MotoInd H, empty order id; the
/// card number enters the hash.
#[test]
fn reward_inquiry_carries_the_card_and_hashes_it() {
    let card = CardDetails {
        number: "4824914752007011".into(),
        exp_month: "4".into(),
        exp_year: "2021".into(),
        cvv: "446".into(),
        holder: "A B".into(),
    };
    let mut r = req(
        "PROVAUT",
        TxnType::RewardInq,
        "",
        "127.0.0.1",
        REWARD_INQUIRY_AMOUNT,
        None,
    );
    r.card = Some(&card);
    let doc = fields(&r.to_xml());
    assert_eq!(doc.text_at(&["Card", "Number"]), Some("4824914752007011"));
    assert_eq!(doc.text_at(&["Card", "ExpireDate"]), Some("0421"));
    assert_eq!(doc.text_at(&["Order", "OrderID"]), Some(""));
    assert_eq!(doc.text_at(&["Transaction", "MotoInd"]), Some("H"));
    assert_eq!(doc.text_at(&["Transaction", "Amount"]), Some("1"));
    // python: sha512(("" + "30691298" + "4824914752007011" + "1" + "949" + sec).encode())
    let expected = hash_data(
        &HashInput {
            order_id: "",
            terminal_id: "30691298",
            card_number: "4824914752007011",
            amount: "1",
            currency_code: "949",
        },
        "123qweASD/",
    );
    assert_eq!(doc.text_at(&["Terminal", "HashData"]), Some(&*expected));
    r.card = None;
    assert_ne!(r.hash(), expected);
}

#[test]
fn expire_dates() {
    let mut c = CardDetails {
        number: String::new(),
        exp_month: "01".into(),
        exp_year: "22".into(),
        cvv: String::new(),
        holder: String::new(),
    };
    assert_eq!(expire_date(&c), "0122");
    c.exp_month = "12".into();
    c.exp_year = "2030".into();
    assert_eq!(expire_date(&c), "1230");
}
