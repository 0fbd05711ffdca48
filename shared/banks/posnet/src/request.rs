//! Request documents, element for element as the reference gives them (§2.3; YKB
//! `posnet_xml.php`; MEWS `PosNetRequestDataMapper` + tests; PARA samples). Amounts are
//! integer kuruş, currencies Posnet letters, order ids the 24-character bank form.

use paygate_bankkit::xml::XmlBuilder;

use crate::wire::ENCODING;

/// The terminal a request is for.
#[derive(Debug, Clone, Copy)]
pub struct Terminal<'a> {
    /// Merchant number (`<mid>`, 10 digits at YKB).
    pub mid: &'a str,
    /// Terminal number (`<tid>`, 8 digits).
    pub tid: &'a str,
}

/// Which transaction a `reverse` undoes (YKB module: authrev / salerev / captrev).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reversal {
    Sale,
    Auth,
    Capt,
}

impl Reversal {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sale => "sale",
            Self::Auth => "auth",
            Self::Capt => "capt",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "sale" => Some(Self::Sale),
            "auth" => Some(Self::Auth),
            "capt" => Some(Self::Capt),
            _ => None,
        }
    }
}

fn header(t: Terminal<'_>) -> XmlBuilder {
    XmlBuilder::new("posnetRequest", ENCODING)
        .leaf("mid", t.mid)
        .leaf("tid", t.tid)
}

/// Capture of a pre-authorization (`capt`), addressed by the authorization's `hostLogKey`.
pub fn capt(t: Terminal<'_>, host_log_key: &str, amount: &str, currency: &str) -> String {
    header(t)
        .leaf("tranDateRequired", "1")
        .open("capt")
        .leaf("hostLogKey", host_log_key)
        .leaf("amount", amount)
        .leaf("currencyCode", currency)
        .leaf("installment", "00")
        .finish()
}

/// Reversal (void) of one transaction by its `hostLogKey`, with its `authCode` when known.
pub fn reverse(
    t: Terminal<'_>,
    of: Reversal,
    host_log_key: &str,
    auth_code: Option<&str>,
) -> String {
    let mut doc = header(t)
        .leaf("tranDateRequired", "1")
        .open("reverse")
        .leaf("transaction", of.as_str())
        .leaf("hostLogKey", host_log_key);
    if let Some(code) = auth_code.filter(|c| !c.is_empty()) {
        doc = doc.leaf("authCode", code);
    }
    doc.finish()
}

/// Reversal by the 24-character order id (MEWS; used when no reference is known).
pub fn reverse_by_order(t: Terminal<'_>, of: Reversal, order_id: &str) -> String {
    header(t)
        .leaf("tranDateRequired", "1")
        .open("reverse")
        .leaf("transaction", of.as_str())
        .leaf("orderID", order_id)
        .finish()
}

/// Refund (`return`), full or partial, of the order's sale or capture.
pub fn refund(t: Terminal<'_>, amount: &str, currency: &str, order_id: &str) -> String {
    header(t)
        .leaf("tranDateRequired", "1")
        .open("return")
        .leaf("amount", amount)
        .leaf("currencyCode", currency)
        .leaf("orderID", order_id)
        .finish()
}

/// Order status inquiry (`agreement`).
pub fn agreement(t: Terminal<'_>, order_id: &str) -> String {
    header(t)
        .open("agreement")
        .leaf("orderID", order_id)
        .finish()
}

/// WorldPuan balance of a card (`pointInquiry`); `exp_date` is `YYMM`.
pub fn point_inquiry(t: Terminal<'_>, card_number: &str, exp_date: &str) -> String {
    header(t)
        .open("pointInquiry")
        .leaf("ccno", card_number)
        .leaf("expDate", exp_date)
        .finish()
}

/// A card's expiry as Posnet's `YYMM` (year first: December 2030 is `3012`; the other order
/// gets `0150 PAKET HATALI (EXPDATE)`). `None` unless month is 1–12 and year has 2 or 4
/// digits.
pub fn exp_date(month: &str, year: &str) -> Option<String> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(month) || !digits(year) || month.len() > 2 {
        return None;
    }
    let m: u32 = month.parse().ok()?;
    if !(1..=12).contains(&m) {
        return None;
    }
    let yy = match year.len() {
        2 => year,
        4 => &year[2..],
        _ => return None,
    };
    Some(format!("{yy}{m:02}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    // The reference's test terminal (MEWS PosNetRequestDataMapperTest; YKB 3-D document
    // "Sample Data": MERCHANT_ID 6706598320, TERMINAL_ID 67005551). Posnet API requests carry
    // no hash or MAC (the MAC exists only in the 3-D Secure / OOS flow), so there is no hash
    // vector to recompute here: the documents themselves are the vectors.
    const T: Terminal<'static> = Terminal {
        mid: "6706598320",
        tid: "67005551",
    };
    const DECL: &str = "<?xml version=\"1.0\" encoding=\"ISO-8859-9\"?>";

    #[test]
    fn capt_matches_the_reference_sample() {
        // Reference §2.3 / MEWS nonSecurePaymentPostRequestDataProvider (hostLogKey
        // 019676067890000191, 10.02 TL → 1002) with the reference sample's installment `00`.
        assert_eq!(
            capt(T, "019676067890000191", "1002", "TL"),
            format!(
                "{DECL}<posnetRequest><mid>6706598320</mid><tid>67005551</tid><tranDateRequired>1</tranDateRequired>\
                 <capt><hostLogKey>019676067890000191</hostLogKey><amount>1002</amount><currencyCode>TL</currencyCode>\
                 <installment>00</installment></capt></posnetRequest>"
            )
        );
    }

    #[test]
    fn reverse_matches_the_reference_samples() {
        // PARA tests/samples/request/posnet/cancel_request.xml: transaction, hostLogKey, authCode.
        assert_eq!(
            reverse(T, Reversal::Sale, "12345678901", Some("000000")),
            format!(
                "{DECL}<posnetRequest><mid>6706598320</mid><tid>67005551</tid><tranDateRequired>1</tranDateRequired>\
                 <reverse><transaction>sale</transaction><hostLogKey>12345678901</hostLogKey><authCode>000000</authCode>\
                 </reverse></posnetRequest>"
            )
        );
        assert!(reverse(T, Reversal::Capt, "019676067890000191", None)
            .contains("<reverse><transaction>capt</transaction><hostLogKey>019676067890000191</hostLogKey></reverse>"));
        // MEWS cancelDataProvider `with_order_id`.
        assert!(reverse_by_order(T, Reversal::Sale, "TDSC000000002020110828BC")
            .ends_with("<reverse><transaction>sale</transaction><orderID>TDSC000000002020110828BC</orderID></reverse></posnetRequest>"));
        assert_eq!(Reversal::parse("auth"), Some(Reversal::Auth));
        assert_eq!(Reversal::parse("Sale"), None);
    }

    #[test]
    fn return_agreement_and_points_match_the_reference() {
        // MEWS refundRequestDataProvider `with_order_id`: 50 TL → 5000.
        assert_eq!(
            refund(T, "5000", "TL", "TDSC000000002020110828BC"),
            format!(
                "{DECL}<posnetRequest><mid>6706598320</mid><tid>67005551</tid><tranDateRequired>1</tranDateRequired>\
                 <return><amount>5000</amount><currencyCode>TL</currencyCode><orderID>TDSC000000002020110828BC</orderID>\
                 </return></posnetRequest>"
            )
        );
        // MEWS statusRequestDataProvider (no tranDateRequired on a status inquiry).
        assert_eq!(
            agreement(T, "0000000000002020110828BC"),
            format!(
                "{DECL}<posnetRequest><mid>6706598320</mid><tid>67005551</tid>\
                 <agreement><orderID>0000000000002020110828BC</orderID></agreement></posnetRequest>"
            )
        );
        // YKB module `pointinquiry`: ccno + expDate (YYMM); the bank's sample card.
        assert_eq!(
            point_inquiry(T, "5400637500005263", "3012"),
            format!(
                "{DECL}<posnetRequest><mid>6706598320</mid><tid>67005551</tid>\
                 <pointInquiry><ccno>5400637500005263</ccno><expDate>3012</expDate></pointInquiry></posnetRequest>"
            )
        );
    }

    #[test]
    fn expiry_is_year_first() {
        assert_eq!(exp_date("12", "2030").as_deref(), Some("3012"));
        assert_eq!(exp_date("1", "29").as_deref(), Some("2901"));
        for (m, y) in [
            ("13", "2030"),
            ("0", "30"),
            ("12", "203"),
            ("ab", "30"),
            ("", "30"),
            ("012", "30"),
        ] {
            assert_eq!(exp_date(m, y), None, "{m}/{y}");
        }
    }
}
