//! What every protocol adapter's call can end in, and what an answer counts as: the common
//! part of the adapter skeleton (request builder, send, response reader, status reader).

use paygate_domain::{
    bank::{PointsBalance, PointsResult},
    BankOutcome, BankStatus,
};

use crate::TransportError;

/// What a merchant reads when the account's bank configuration cannot be used.
pub const CONFIG_MESSAGE: &str = "the account's bank configuration could not be used";
/// What a merchant reads when the bank's answer could not be read.
pub const MALFORMED_MESSAGE: &str = "the bank's answer could not be read";

/// Why a call produced no usable answer from the bank.
#[derive(Debug)]
pub enum CallError {
    /// The account's credentials could not be read or lack a key: nothing was sent.
    Config(String),
    Transport(TransportError),
    /// An answer arrived but is not a readable document of the protocol.
    Malformed(String),
}

impl CallError {
    /// For a money-moving request: may it have been applied? Something answered (even
    /// unreadably), so the request reached the bank and it may have acted.
    pub fn outcome(&self) -> BankOutcome {
        match self {
            Self::Config(_) => BankOutcome::Error {
                code: "config".to_owned(),
                message: self.describe(),
            },
            Self::Transport(e) => e.outcome(),
            Self::Malformed(_) => BankOutcome::Unknown {
                reason: self.describe(),
            },
        }
    }

    /// The short code of the failure: `config`, `timeout`, `transport` or `malformed`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Config(_) => "config",
            Self::Transport(TransportError::Timeout) => "timeout",
            Self::Transport(_) => "transport",
            Self::Malformed(_) => "malformed",
        }
    }

    /// For a read (nothing moved, whatever happened): the code and what went wrong.
    pub fn code_and_message(&self) -> (String, String) {
        (self.code().to_owned(), self.describe())
    }

    /// What went wrong, as a stable text fit for a merchant (it becomes `bankMessage` and
    /// points failures' messages): never internal detail such as a store error, a
    /// credential key or a parser's complaint (those are in [`Self::detail`], for logs).
    pub fn describe(&self) -> String {
        match self {
            Self::Config(_) => CONFIG_MESSAGE.to_owned(),
            Self::Malformed(_) => MALFORMED_MESSAGE.to_owned(),
            Self::Transport(t) => t.to_string(),
        }
    }

    /// The internal detail, for logs only (never a credential value).
    pub fn detail(&self) -> String {
        match self {
            Self::Config(m) | Self::Malformed(m) => m.clone(),
            Self::Transport(t) => t.to_string(),
        }
    }

    /// A status query that got no answer.
    pub fn status(&self) -> BankStatus {
        BankStatus::unavailable(self.code())
    }
}

/// How a bank's answer counts for the gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The bank approved it.
    Approved,
    /// The bank refused it on its merits (issuer decline or business rule); nothing moved.
    Declined,
    /// Refused before any processing: credentials, terminal set-up, a malformed request, a
    /// technical error the bank reports as such; nothing moved.
    Error,
    /// The bank may have applied it (it does not know, or its signals contradict): settled
    /// by a status query.
    Unknown,
}

impl Verdict {
    /// What the answer to a points inquiry reporting one balance says: approved with the
    /// balance (in minor units, shown as `name`), approved without a readable one
    /// (`malformed`: "approved answer without `missing`"), declined, or an error (`code` and
    /// `message` are the bank's).
    pub fn points(
        self,
        balance: Option<i64>,
        name: &str,
        missing: &str,
        code: String,
        message: String,
    ) -> PointsResult {
        match self {
            Verdict::Approved => match balance {
                Some(minor) => PointsResult::Ok {
                    balances: vec![PointsBalance {
                        name: name.to_owned(),
                        value: crate::amount::to_decimal(minor),
                        amount_minor: minor,
                    }],
                },
                None => PointsResult::Error {
                    code: "malformed".to_owned(),
                    message: format!("approved answer without {missing}"),
                },
            },
            Verdict::Declined => PointsResult::Declined { code, message },
            Verdict::Error | Verdict::Unknown => PointsResult::Error { code, message },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Internal text (a store error, a credential key's name, a parser's complaint) never
    /// becomes the merchant's `bankMessage` or a points failure's message.
    #[test]
    fn merchants_read_stable_messages_never_internal_detail() {
        let internal = "secrets manager GetSecretValue failed for paygate/x: key provPassword";
        let config = CallError::Config(internal.to_owned());
        let malformed = CallError::Malformed(format!("xml error at byte 17: {internal}"));
        for (e, safe) in [(&config, CONFIG_MESSAGE), (&malformed, MALFORMED_MESSAGE)] {
            assert_eq!(e.describe(), safe);
            assert_eq!(e.code_and_message().1, safe);
            let shown = match e.outcome() {
                BankOutcome::Error { message, .. } => message,
                BankOutcome::Unknown { reason } => reason,
                other => panic!("{other:?}"),
            };
            assert_eq!(shown, safe);
            assert!(
                e.detail().contains("provPassword"),
                "the logs keep the detail"
            );
        }
        assert!(matches!(config.outcome(), BankOutcome::Error { code, .. } if code == "config"));
        assert!(matches!(malformed.outcome(), BankOutcome::Unknown { .. }));
    }

    #[test]
    fn a_points_answer_reads_one_balance_or_says_why_not() {
        let points = |v: Verdict, balance| {
            v.points(balance, "Bonus", "an X balance", "51".into(), "no".into())
        };
        assert_eq!(
            points(Verdict::Approved, Some(1235)),
            PointsResult::Ok {
                balances: vec![PointsBalance {
                    name: "Bonus".into(),
                    value: "12.35".into(),
                    amount_minor: 1235,
                }]
            }
        );
        assert_eq!(
            points(Verdict::Approved, None),
            PointsResult::Error {
                code: "malformed".into(),
                message: "approved answer without an X balance".into()
            }
        );
        assert_eq!(
            points(Verdict::Declined, Some(1)),
            PointsResult::Declined {
                code: "51".into(),
                message: "no".into()
            }
        );
        for v in [Verdict::Error, Verdict::Unknown] {
            assert_eq!(
                points(v, Some(1)),
                PointsResult::Error {
                    code: "51".into(),
                    message: "no".into()
                }
            );
        }
    }
}
