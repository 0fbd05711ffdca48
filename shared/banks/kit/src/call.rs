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

/// The parts of a money request's answer its outcome is made of ([`Verdict::outcome`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answer {
    /// What an approval reports: its code, authorization code and reference number (empty:
    /// none).
    pub approval: String,
    pub auth_code: String,
    pub rrn: String,
    /// The bank's code and message for anything else.
    pub code: String,
    pub message: String,
    /// A decline is the end-of-day cut's (refund instead).
    pub after_cutoff: bool,
}

/// Why an answer that settles nothing is unknown: its code and message.
pub fn unsettled(code: &str, message: &str) -> String {
    format!("the bank's answer does not settle the outcome ({code}: {message})")
}

impl Verdict {
    /// What an answer to a money-moving request means: approved with the answer's approval
    /// fields, declined, an error (nothing moved), or unknown ([`unsettled`]: settled by a
    /// status query).
    pub fn outcome(self, answer: Answer) -> BankOutcome {
        self.outcome_or(answer, unsettled)
    }

    /// [`Verdict::outcome`] with the protocol's own words for an unknown answer (`unknown`
    /// of the code and message).
    pub fn outcome_or(self, a: Answer, unknown: impl FnOnce(&str, &str) -> String) -> BankOutcome {
        let non_empty = |s: String| {
            let s = s.trim();
            (!s.is_empty()).then(|| s.to_owned())
        };
        match self {
            Verdict::Approved => BankOutcome::Approved {
                code: a.approval,
                auth_code: non_empty(a.auth_code),
                rrn: non_empty(a.rrn),
            },
            Verdict::Declined => BankOutcome::Declined {
                code: a.code,
                message: a.message,
                after_cutoff: a.after_cutoff,
            },
            Verdict::Error => BankOutcome::Error {
                code: a.code,
                message: a.message,
            },
            Verdict::Unknown => BankOutcome::Unknown {
                reason: unknown(&a.code, &a.message),
            },
        }
    }

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

/// What a read of one order found: its record, no such order, or a failed read (each with
/// the bank's code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatusRead<T> {
    /// The bank has no such order (only its explicit "no record" answer).
    NotFound {
        code: String,
    },
    /// The read itself failed (credentials, system error, an answer of another shape).
    Failed {
        code: String,
    },
    Found(T),
}

impl<T> StatusRead<T> {
    /// The record, or the status that ends the read: not found (conclusive) or unavailable.
    pub fn found(self) -> Result<T, BankStatus> {
        match self {
            Self::Found(t) => Ok(t),
            Self::NotFound { code } => Err(BankStatus::not_found(&code)),
            Self::Failed { code } => Err(BankStatus::unavailable(&code)),
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

    #[test]
    fn a_money_answer_reads_as_its_verdict_says() {
        let answer = || Answer {
            approval: "00".into(),
            auth_code: " 123456 ".into(),
            rrn: String::new(),
            code: "51".into(),
            message: "no funds".into(),
            after_cutoff: true,
        };
        assert_eq!(
            Verdict::Approved.outcome(answer()),
            BankOutcome::Approved {
                code: "00".into(),
                auth_code: Some("123456".into()),
                rrn: None
            }
        );
        assert_eq!(
            Verdict::Declined.outcome(answer()),
            BankOutcome::Declined {
                code: "51".into(),
                message: "no funds".into(),
                after_cutoff: true
            }
        );
        assert_eq!(
            Verdict::Error.outcome(answer()),
            BankOutcome::Error {
                code: "51".into(),
                message: "no funds".into()
            }
        );
        assert_eq!(
            Verdict::Unknown.outcome(answer()),
            BankOutcome::Unknown {
                reason: "the bank's answer does not settle the outcome (51: no funds)".into()
            }
        );
        assert_eq!(
            Verdict::Unknown.outcome_or(answer(), |c, _| format!("late {c}")),
            BankOutcome::Unknown {
                reason: "late 51".into()
            }
        );
    }

    #[test]
    fn a_status_read_ends_as_not_found_or_unavailable() {
        assert_eq!(StatusRead::Found(7).found(), Ok(7));
        let nf = StatusRead::<()>::NotFound {
            code: "V013".into(),
        }
        .found()
        .unwrap_err();
        assert!(nf.is_conclusive() && !nf.found && nf.code == "V013");
        let failed = StatusRead::<()>::Failed { code: "96".into() }
            .found()
            .unwrap_err();
        assert!(!failed.is_conclusive() && failed.code == "96");
    }
}
