//! The webhook pipeline over the domain ports: sweep the outbox, fan events out to
//! endpoints, deliver attempts. Each step is safe to run twice on the same input: SQS
//! delivers at least once, and so does everything built on it.

pub mod deliver;
pub mod fanout;
pub mod sweep;

pub use deliver::{deliver, DeliverDeps, DeliverOutcome, USER_AGENT};
pub use fanout::{fanout, FanoutDeps};
pub use sweep::{sweep, SweepDeps, SweepReport};

use paygate_domain::StoreError;

/// A step could not finish; the message goes back to its queue and is tried again.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error("store: {0}")]
    Store(#[from] StoreError),
}
