//! Decline and error codes a merchant can act on: every bank outcome that is not an approval
//! maps to one small, stable [`DeclineCode`] (`details.declineCode` of the error envelope and
//! `declineCode` of the transaction), beside the bank's own code. Each bank family maps its
//! codes in its crate's `src/decline.rs` (sources cited there and in its README); what no
//! table names is [`DeclineCode::Unclassified`].
//!
//! [`DeclineCode::retryable`] is true only where sending the same operation again cannot move
//! money twice: the bank's answer says nothing moved *and* the cause may pass (a technical
//! error, funds, a limit, a refund before the end-of-day cut). An unknown outcome is never
//! retryable: it is settled by a query (or the reconciler), never by sending again.

use serde::{Deserialize, Serialize};

use crate::bank::BankOutcome;

/// The stable code of a declined or failed bank operation (`snake_case` on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeclineCode {
    /// The card's account lacks the funds (ISO 8583 `51`).
    InsufficientFunds,
    /// A daily or per-transaction limit is reached (ISO `61`, `65`).
    LimitExceeded,
    /// The issuer refused without a reason (ISO `05`, and refusals that name none).
    DoNotHonor,
    /// The card has expired (ISO `54`, `33`).
    CardExpired,
    /// The card number, expiry or security code is not valid (ISO `14`, `15`, `56`).
    InvalidCard,
    /// The card may not be used for this (ISO `57`, `58`, `62`).
    CardRestricted,
    /// The card is reported lost or stolen, or to be picked up (ISO `04`, `07`, `41`, `43`).
    LostOrStolen,
    /// The amount is not valid for the operation (ISO `13`).
    InvalidAmount,
    /// The order was already cancelled or refunded at the bank.
    AlreadyReversed,
    /// The amount exceeds what is left of the original (refund above the sale, capture above
    /// the pre-authorization).
    AmountExceedsOriginal,
    /// A cancel refused because the bank's end-of-day cut has passed: refund instead.
    AfterEndOfDay,
    /// A refund refused because the sale is not settled yet: cancel it today, or refund after
    /// the end-of-day cut.
    RefundBeforeEndOfDay,
    /// The bank has no such order or original transaction.
    NotFound,
    /// The order id was already used at the bank.
    DuplicateOrder,
    /// The merchant or terminal may not do this operation (permissions, set-up).
    OperationNotPermitted,
    /// The bank refused the caller's IP address.
    IpNotAllowed,
    /// The account's credentials (user, password, key, hash) were refused.
    InvalidCredentials,
    /// The bank refused the request's format or fields.
    InvalidRequest,
    /// A technical error at the bank or on the way to it; nothing moved.
    BankUnavailable,
    /// No usable answer: the operation may or may not have taken effect. It is settled by a
    /// query of the payment (or the reconciler), never by sending it again.
    OutcomeUnknown,
    /// A refusal no table names.
    Unclassified,
}

/// The language of a merchant-facing message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    #[default]
    En,
    Tr,
}

impl Lang {
    /// The language an `Accept-Language` header asks for: Turkish when its most preferred
    /// language (highest `q`, first on a tie) is `tr` or `tr-*`; English otherwise.
    pub fn from_accept_language(header: &str) -> Self {
        let mut best: Option<(u32, &str)> = None;
        for item in header.split(',') {
            let mut parts = item.split(';');
            let tag = parts.next().unwrap_or("").trim();
            if tag.is_empty() {
                continue;
            }
            // q in thousandths; a malformed q counts as 0 (not preferred).
            let q = parts
                .find_map(|p| p.trim().strip_prefix("q="))
                .map_or(1000, |v| parse_q(v.trim()));
            if q > 0 && best.is_none_or(|(bq, _)| q > bq) {
                best = Some((q, tag));
            }
        }
        match best {
            Some((_, tag))
                if tag
                    .split('-')
                    .next()
                    .is_some_and(|p| p.eq_ignore_ascii_case("tr")) =>
            {
                Self::Tr
            }
            _ => Self::En,
        }
    }
}

fn parse_q(v: &str) -> u32 {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    let whole = match int {
        "1" => 1000,
        "0" => 0,
        _ => return 0,
    };
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return 0;
    }
    let mut thousandths = 0;
    for (i, b) in frac.bytes().enumerate() {
        thousandths += u32::from(b - b'0') * [100, 10, 1][i];
    }
    (whole + thousandths).min(1000)
}

impl DeclineCode {
    pub const ALL: [DeclineCode; 21] = [
        Self::InsufficientFunds,
        Self::LimitExceeded,
        Self::DoNotHonor,
        Self::CardExpired,
        Self::InvalidCard,
        Self::CardRestricted,
        Self::LostOrStolen,
        Self::InvalidAmount,
        Self::AlreadyReversed,
        Self::AmountExceedsOriginal,
        Self::AfterEndOfDay,
        Self::RefundBeforeEndOfDay,
        Self::NotFound,
        Self::DuplicateOrder,
        Self::OperationNotPermitted,
        Self::IpNotAllowed,
        Self::InvalidCredentials,
        Self::InvalidRequest,
        Self::BankUnavailable,
        Self::OutcomeUnknown,
        Self::Unclassified,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::InsufficientFunds => "insufficient_funds",
            Self::LimitExceeded => "limit_exceeded",
            Self::DoNotHonor => "do_not_honor",
            Self::CardExpired => "card_expired",
            Self::InvalidCard => "invalid_card",
            Self::CardRestricted => "card_restricted",
            Self::LostOrStolen => "lost_or_stolen",
            Self::InvalidAmount => "invalid_amount",
            Self::AlreadyReversed => "already_reversed",
            Self::AmountExceedsOriginal => "amount_exceeds_original",
            Self::AfterEndOfDay => "after_end_of_day",
            Self::RefundBeforeEndOfDay => "refund_before_end_of_day",
            Self::NotFound => "not_found",
            Self::DuplicateOrder => "duplicate_order",
            Self::OperationNotPermitted => "operation_not_permitted",
            Self::IpNotAllowed => "ip_not_allowed",
            Self::InvalidCredentials => "invalid_credentials",
            Self::InvalidRequest => "invalid_request",
            Self::BankUnavailable => "bank_unavailable",
            Self::OutcomeUnknown => "outcome_unknown",
            Self::Unclassified => "unclassified",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// Whether the same operation may be sent again (later) without any risk of moving
    /// money twice: only causes that may pass, on answers that say nothing moved. Never for
    /// [`DeclineCode::OutcomeUnknown`].
    pub fn retryable(self) -> bool {
        matches!(
            self,
            Self::BankUnavailable
                | Self::InsufficientFunds
                | Self::LimitExceeded
                | Self::RefundBeforeEndOfDay
        )
    }

    /// What the merchant can do, in `lang`.
    pub fn message(self, lang: Lang) -> &'static str {
        let (en, tr) = match self {
            Self::InsufficientFunds => (
                "Insufficient funds on the card. Nothing was charged; the operation may pass later.",
                "Kartta yeterli bakiye yok. Hiçbir tutar çekilmedi; işlem daha sonra geçebilir.",
            ),
            Self::LimitExceeded => (
                "The card's limit is reached. Nothing was charged; the operation may pass later.",
                "Kart limiti aşıldı. Hiçbir tutar çekilmedi; işlem daha sonra geçebilir.",
            ),
            Self::DoNotHonor => (
                "The card's bank declined the operation. The cardholder should contact their bank.",
                "Kartı veren banka işlemi onaylamadı. Kart sahibi bankasıyla görüşmelidir.",
            ),
            Self::CardExpired => (
                "The card has expired.",
                "Kartın son kullanma tarihi geçmiş.",
            ),
            Self::InvalidCard => (
                "The card number, expiry date or security code is not valid.",
                "Kart numarası, son kullanma tarihi veya güvenlik kodu geçersiz.",
            ),
            Self::CardRestricted => (
                "The card may not be used for this operation.",
                "Kart bu işlem için kullanılamaz.",
            ),
            Self::LostOrStolen => (
                "The card is reported lost or stolen. Do not retry.",
                "Kart kayıp veya çalıntı olarak bildirilmiş. Tekrar denemeyin.",
            ),
            Self::InvalidAmount => (
                "The amount is not valid for this operation.",
                "Tutar bu işlem için geçersiz.",
            ),
            Self::AlreadyReversed => (
                "The order was already cancelled or refunded at the bank. Query the payment to see its state.",
                "Sipariş bankada zaten iptal veya iade edilmiş. Durumunu görmek için ödemeyi sorgulayın.",
            ),
            Self::AmountExceedsOriginal => (
                "The amount exceeds what is left of the original transaction.",
                "Tutar, asıl işlemden kalan tutarı aşıyor.",
            ),
            Self::AfterEndOfDay => (
                "The bank's end-of-day cut has passed, so the payment can no longer be cancelled. Refund it instead.",
                "Bankanın gün sonu geçtiği için ödeme artık iptal edilemez. Bunun yerine iade edin.",
            ),
            Self::RefundBeforeEndOfDay => (
                "The bank refunds only after its end-of-day cut. Cancel the payment today, or refund it after the cut.",
                "Banka iadeyi yalnızca gün sonundan sonra yapar. Ödemeyi bugün iptal edin veya gün sonundan sonra iade edin.",
            ),
            Self::NotFound => (
                "The bank has no record of the order or its original transaction.",
                "Bankada siparişin veya asıl işlemin kaydı yok.",
            ),
            Self::DuplicateOrder => (
                "The order id was already used at the bank.",
                "Sipariş numarası bankada daha önce kullanılmış.",
            ),
            Self::OperationNotPermitted => (
                "The POS account may not do this operation. Ask the bank to enable it.",
                "POS hesabı bu işlemi yapamaz. Bankadan yetki isteyin.",
            ),
            Self::IpNotAllowed => (
                "The bank refused the gateway's IP address for this POS account.",
                "Banka bu POS hesabı için ağ geçidinin IP adresini reddetti.",
            ),
            Self::InvalidCredentials => (
                "The bank refused the POS account's credentials. Check the account's settings.",
                "Banka POS hesabının kimlik bilgilerini reddetti. Hesap ayarlarını kontrol edin.",
            ),
            Self::InvalidRequest => (
                "The bank refused the request's content.",
                "Banka isteğin içeriğini reddetti.",
            ),
            Self::BankUnavailable => (
                "A technical error at the bank; nothing was changed. Retry later.",
                "Bankada teknik bir hata oluştu; hiçbir şey değişmedi. Daha sonra tekrar deneyin.",
            ),
            Self::OutcomeUnknown => (
                "The bank's answer did not settle the outcome. Do not repeat the operation: query the payment to settle it.",
                "Bankanın yanıtı işlemin sonucunu belirlemedi. İşlemi tekrarlamayın: sonucu için ödemeyi sorgulayın.",
            ),
            Self::Unclassified => (
                "The bank declined the operation.",
                "Banka işlemi reddetti.",
            ),
        };
        match lang {
            Lang::En => en,
            Lang::Tr => tr,
        }
    }

    /// The code of `outcome` given a family's `table` (bank code → stable code) and
    /// `fallback` for codes the table does not name: `None` for an approval,
    /// [`DeclineCode::OutcomeUnknown`] for an unknown outcome (whatever its code), a cancel
    /// refused for the cut is [`DeclineCode::AfterEndOfDay`], a code nobody names is
    /// [`DeclineCode::Unclassified`].
    pub fn of_outcome(
        outcome: &BankOutcome,
        table: &[(&str, DeclineCode)],
        fallback: impl Fn(&str) -> Option<DeclineCode>,
    ) -> Option<Self> {
        let code = match outcome {
            BankOutcome::Approved { .. } => return None,
            BankOutcome::Unknown { .. } => return Some(Self::OutcomeUnknown),
            BankOutcome::Declined {
                after_cutoff: true, ..
            } => return Some(Self::AfterEndOfDay),
            BankOutcome::Declined { code, .. } | BankOutcome::Error { code, .. } => code,
        };
        let named = table
            .iter()
            .find(|(c, _)| c == code)
            .map(|(_, d)| *d)
            .or_else(|| fallback(code));
        // A code a table names as unknown cannot be an answer that says nothing moved.
        Some(match named {
            Some(Self::OutcomeUnknown) | None => Self::Unclassified,
            Some(d) => d,
        })
    }
}

impl std::fmt::Display for DeclineCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_are_snake_case() {
        for c in DeclineCode::ALL {
            assert_eq!(DeclineCode::parse(c.as_str()), Some(c));
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
            assert!(c
                .as_str()
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'_'));
            assert!(!c.message(Lang::En).is_empty() && !c.message(Lang::Tr).is_empty());
            assert_ne!(c.message(Lang::En), c.message(Lang::Tr));
        }
        assert_eq!(DeclineCode::parse("nope"), None);
    }

    /// Retrying an unknown outcome could move money twice: it is never retryable, whatever
    /// code the bank sent with it and whatever a table says about that code.
    #[test]
    fn an_unknown_outcome_is_never_retryable() {
        assert!(!DeclineCode::OutcomeUnknown.retryable());
        let everything = |_: &str| Some(DeclineCode::BankUnavailable);
        let table = [("91", DeclineCode::BankUnavailable)];
        let unknown = BankOutcome::Unknown {
            reason: "91".into(),
        };
        let got = DeclineCode::of_outcome(&unknown, &table, everything).unwrap();
        assert_eq!(got, DeclineCode::OutcomeUnknown);
        assert!(!got.retryable());
        let retryable: Vec<_> = DeclineCode::ALL
            .into_iter()
            .filter(|c| c.retryable())
            .collect();
        assert_eq!(
            retryable,
            [
                DeclineCode::InsufficientFunds,
                DeclineCode::LimitExceeded,
                DeclineCode::RefundBeforeEndOfDay,
                DeclineCode::BankUnavailable
            ]
        );
    }

    #[test]
    fn outcomes_map_through_the_table_then_the_fallback() {
        let table = [("V014", DeclineCode::RefundBeforeEndOfDay)];
        let iso = |c: &str| (c == "51").then_some(DeclineCode::InsufficientFunds);
        let declined = |code: &str, after_cutoff| BankOutcome::Declined {
            code: code.into(),
            message: String::new(),
            after_cutoff,
        };
        let of = |o: &BankOutcome| DeclineCode::of_outcome(o, &table, iso);
        assert_eq!(
            of(&declined("V014", false)),
            Some(DeclineCode::RefundBeforeEndOfDay)
        );
        assert_eq!(
            of(&declined("51", false)),
            Some(DeclineCode::InsufficientFunds)
        );
        assert_eq!(of(&declined("51", true)), Some(DeclineCode::AfterEndOfDay));
        assert_eq!(of(&declined("X", false)), Some(DeclineCode::Unclassified));
        let error = BankOutcome::Error {
            code: "V014".into(),
            message: String::new(),
        };
        assert_eq!(of(&error), Some(DeclineCode::RefundBeforeEndOfDay));
        let approved = BankOutcome::Approved {
            code: "00".into(),
            auth_code: None,
            rrn: None,
        };
        assert_eq!(of(&approved), None);
        // a table naming a code "unknown" cannot turn a decline into one
        let odd = [("V014", DeclineCode::OutcomeUnknown)];
        assert_eq!(
            DeclineCode::of_outcome(&declined("V014", false), &odd, iso),
            Some(DeclineCode::Unclassified)
        );
    }

    #[test]
    fn accept_language_picks_turkish_only_when_preferred() {
        for (h, want) in [
            ("tr", Lang::Tr),
            ("tr-TR", Lang::Tr),
            ("TR-tr,en;q=0.5", Lang::Tr),
            ("en;q=0.4, tr;q=0.9", Lang::Tr),
            ("en-US,tr;q=0.9", Lang::En),
            ("tr;q=0, en", Lang::En),
            ("", Lang::En),
            ("de", Lang::En),
            ("trk", Lang::En),
            ("en;q=1, tr;q=1", Lang::En),
            ("tr;q=banana", Lang::En),
        ] {
            assert_eq!(Lang::from_accept_language(h), want, "{h}");
        }
    }
}
