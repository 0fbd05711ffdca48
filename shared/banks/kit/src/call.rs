//! What every protocol adapter's call can end in, and what an answer counts as: the common
//! part of the adapter skeleton (request builder, send, response reader, status reader).

use paygate_domain::{BankOutcome, BankStatus};

use crate::TransportError;

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
            Self::Config(m) => BankOutcome::Error {
                code: "config".to_owned(),
                message: m.clone(),
            },
            Self::Transport(e) => e.outcome(),
            Self::Malformed(m) => BankOutcome::Unknown {
                reason: format!("unreadable answer from the bank: {m}"),
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

    /// What went wrong, as text (never a credential value).
    pub fn describe(&self) -> String {
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
