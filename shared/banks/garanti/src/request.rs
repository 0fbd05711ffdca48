//! Request encoding: the `GVPSRequest` document of each operation, element for element in
//! the order of the MEWS request-mapper samples (postauth, void, refund, orderinq,
//! orderhistoryinq) and of Garanti's own sample code (`rewardinq`).

use paygate_bankkit::{xml::XmlBuilder, BankRequest};
use paygate_domain::CardDetails;

use crate::{
    hash::{hash_data, HashInput},
    response::GvpsResponse,
};

/// API version sent in `Version`: the SHA-512 hash rule.
pub const API_VERSION: &str = "512";
/// The amount void, orderinq and orderhistoryinq carry (1.00 TL): the bank ignores it but
/// the field is mandatory and enters the hash (MEWS sends `100`; see README).
pub const FIXED_AMOUNT: &str = "100";
/// The amount `rewardinq` carries (Garanti's sample code and DTGP send `1`).
pub const REWARD_INQUIRY_AMOUNT: &str = "1";
/// Content type of requests.
pub const CONTENT_TYPE: &str = "text/xml; charset=utf-8";

/// The operations this adapter sends (`Transaction/Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxnType {
    PostAuth,
    Void,
    Refund,
    OrderInq,
    OrderHistoryInq,
    RewardInq,
}

impl TxnType {
    pub fn wire(self) -> &'static str {
        match self {
            Self::PostAuth => "postauth",
            Self::Void => "void",
            Self::Refund => "refund",
            Self::OrderInq => "orderinq",
            Self::OrderHistoryInq => "orderhistoryinq",
            Self::RewardInq => "rewardinq",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::PostAuth,
            Self::Void,
            Self::Refund,
            Self::OrderInq,
            Self::OrderHistoryInq,
            Self::RewardInq,
        ]
        .into_iter()
        .find(|t| t.wire() == s)
    }

    /// Void and refund are signed by the PROVRFN user with its own password.
    pub fn needs_refund_user(self) -> bool {
        matches!(self, Self::Void | Self::Refund)
    }
}

/// Who signs: the terminal and one of its users.
#[derive(Clone)]
pub struct Signer<'a> {
    /// `TEST` or `PROD`.
    pub mode: &'a str,
    pub terminal_id: &'a str,
    pub merchant_id: &'a str,
    pub user_id: &'a str,
    pub password: &'a str,
}

/// One request, before encoding.
pub struct Request<'a> {
    pub signer: Signer<'a>,
    pub txn: TxnType,
    pub ip_address: &'a str,
    pub order_id: &'a str,
    /// `Transaction/Amount` exactly as sent (integer kuruş, or a fixed amount).
    pub amount: String,
    /// ISO 4217 numeric code (`949`).
    pub currency_code: &'a str,
    /// The rrn of the transaction a void targets.
    pub original_rrn: Option<&'a str>,
    /// The card of a `rewardinq`.
    pub card: Option<&'a CardDetails>,
}

/// `MMYY` from the card's month and (two- or four-digit) year.
pub fn expire_date(card: &CardDetails) -> String {
    let month = format!("{:0>2}", card.exp_month.trim());
    let year: Vec<char> = card.exp_year.trim().chars().collect();
    let yy: String = year[year.len().saturating_sub(2)..].iter().collect();
    format!("{month}{yy:0>2}")
}

impl BankRequest for Request<'_> {
    type Reply = GvpsResponse;

    /// The `Transaction/Type`.
    fn kind(&self) -> &'static str {
        self.txn.wire()
    }

    /// An answer naming another order settles nothing.
    fn answered_by(&self, reply: &GvpsResponse) -> bool {
        reply.order_id.is_empty() || reply.order_id == self.order_id
    }
}

impl Request<'_> {
    /// The `HashData` of this request.
    pub fn hash(&self) -> String {
        hash_data(
            &HashInput {
                order_id: self.order_id,
                terminal_id: self.signer.terminal_id,
                card_number: self.card.map_or("", |c| c.number.as_str()),
                amount: &self.amount,
                currency_code: self.currency_code,
            },
            self.signer.password,
        )
    }

    /// The XML document (UTF-8). Contains the card number for `rewardinq`: never log it.
    pub fn to_xml(&self) -> String {
        let s = &self.signer;
        let mut b = XmlBuilder::new("GVPSRequest", "UTF-8")
            .leaf("Mode", s.mode)
            .leaf("Version", API_VERSION)
            .open("Terminal")
            .leaf("ProvUserID", s.user_id)
            .leaf("UserID", s.user_id)
            .leaf("HashData", &self.hash())
            .leaf("ID", s.terminal_id)
            .leaf("MerchantID", s.merchant_id)
            .close()
            .open("Customer")
            .leaf("IPAddress", self.ip_address)
            .close();
        if let Some(card) = self.card {
            b = b
                .open("Card")
                .leaf("Number", &card.number)
                .leaf("ExpireDate", &expire_date(card))
                .leaf("CVV2", &card.cvv)
                .close();
        }
        b = b
            .open("Order")
            .leaf("OrderID", self.order_id)
            .close()
            .open("Transaction")
            .leaf("Type", self.txn.wire());
        b = match self.txn {
            TxnType::PostAuth => b
                .leaf("Amount", &self.amount)
                .leaf("CurrencyCode", self.currency_code),
            TxnType::RewardInq => b
                .leaf("Amount", &self.amount)
                .leaf("CurrencyCode", self.currency_code)
                .leaf("CardholderPresentCode", "0")
                .leaf("MotoInd", "H"),
            _ => b
                .leaf("InstallmentCnt", "")
                .leaf("Amount", &self.amount)
                .leaf("CurrencyCode", self.currency_code)
                .leaf("CardholderPresentCode", "0")
                .leaf("MotoInd", "N"),
        };
        if let Some(rrn) = self.original_rrn {
            b = b.leaf("OriginalRetrefNum", rrn);
        }
        b.finish()
    }
}

#[cfg(test)]
mod tests {
    use paygate_bankkit::xml;

    use super::*;

    /// The MEWS test account: merchant 7000679, terminal 30691298, PROVAUT/PROVRFN with the
    /// same password `123qweASD/`.
    fn signer(user: &'static str) -> Signer<'static> {
        Signer {
            mode: "TEST",
            terminal_id: "30691298",
            merchant_id: "7000679",
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
}
