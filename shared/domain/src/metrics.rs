//! The figures operators watch, as a port: the code says what happened ([`Metric`]), an
//! adapter turns it into CloudWatch metrics (`paygate_aws::metrics`, embedded metric format).
//! Emitting never fails and never blocks the request.

use crate::throttle::Scope;

/// How a merchant operation ended, as the merchant was told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OperationOutcome {
    /// The bank approved (for a query: the bank answered).
    Approved,
    /// The bank declined.
    Declined,
    /// The bank reported a technical error, or the gateway failed before an answer.
    Error,
    /// The bank did not answer: the outcome is unknown until it is settled.
    Unknown,
    /// The bank answered but the answer could not be recorded (`503 operation_not_recorded`).
    NotRecorded,
}

impl OperationOutcome {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Approved => "approved",
            Self::Declined => "declined",
            Self::Error => "error",
            Self::Unknown => "unknown",
            Self::NotRecorded => "not_recorded",
        }
    }
}

/// How one webhook attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttemptResult {
    /// A 2xx.
    Success,
    /// Another HTTP status.
    Failure,
    /// No answer within the attempt's bound.
    Timeout,
    /// No connection (DNS, refused, TLS) or a refused address.
    Connection,
    /// Not sent: the endpoint was deleted or disabled, or its signing secret unreadable.
    Unavailable,
}

impl AttemptResult {
    /// How a recorded attempt ended.
    pub fn of(attempt: &crate::webhook::Attempt) -> Self {
        use crate::webhook::AttemptError as E;
        match (attempt.succeeded, attempt.error) {
            (true, _) => Self::Success,
            (false, Some(E::Timeout)) => Self::Timeout,
            (false, Some(E::Connection | E::Tls | E::Dns | E::Blocked)) => Self::Connection,
            (false, Some(E::Secret | E::EndpointUnavailable)) => Self::Unavailable,
            (false, None) => Self::Failure,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::Failure => "failure",
            Self::Timeout => "timeout",
            Self::Connection => "connection",
            Self::Unavailable => "unavailable",
        }
    }
}

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Metric {
    /// A money operation or query answered (`operation`: capture, cancel, refund, query).
    Operation {
        operation: &'static str,
        outcome: OperationOutcome,
    },
    /// One call to a bank: its provider, what was asked, how it ended (`Approved`,
    /// `Declined`, `Error` or `Unknown`) and how long it took.
    BankCall {
        provider: &'static str,
        operation: &'static str,
        outcome: OperationOutcome,
        millis: u64,
    },
    /// One webhook attempt.
    WebhookAttempt { result: AttemptResult },
    /// From an event's creation to its delivery's first attempt.
    DeliveryLag { millis: u64 },
    /// A request refused with `429 rate_limited` (by the in-process gate or the counters).
    Throttled { scope: Scope },
    /// The throttling counters could not be reached: the request was let through, or, for a
    /// scope that fails closed (points inquiry), refused with `503 rate_limit_unavailable`.
    ThrottleStoreError { scope: Scope },
    /// A query (the merchant's or the reconciler's) found a refund or cancel made at the bank
    /// without this service: `recorded` as an `external` transaction (`operation`: cancel,
    /// refund), or not recordable (`recorded: false`: more refunded than captured, a cancel
    /// after a refund) and left to the daily reconciliation.
    ExternalOperation {
        operation: &'static str,
        recorded: bool,
    },
}

/// Where metrics go.
pub trait Metrics: Send + Sync {
    fn emit(&self, metric: Metric);
}

/// Metrics nobody reads (tests that do not look at them).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoMetrics;

impl Metrics for NoMetrics {
    fn emit(&self, _metric: Metric) {}
}
