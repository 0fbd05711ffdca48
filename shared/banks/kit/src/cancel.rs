//! The end-of-day cut seen from a cancel: most banks void only before their end-of-day cut
//! and refuse a later void like any ineligible one. Whether a refusal was the cut's (the
//! merchant should refund instead: `after_cutoff`) is read from the order, the one fact each
//! protocol supplies ([`Session::void_checking_cut`]).

use std::future::Future;

use paygate_domain::{
    bank::{BankOutcome, BankState, BankStatus},
    ports::BankOperation,
};

use crate::{Op, Protocol, Session};

/// Whether the order still holds a live sale (found and approved): what a refused void of it
/// means is "past the cut".
pub fn holds_live_sale(st: &BankStatus) -> bool {
    st.found && st.state == BankState::Approved
}

impl<P: Protocol> Session<'_, P> {
    /// Sends the cancel's single request (`Op::Cancel`). When the bank declines it without
    /// saying why, and `refused_for_cut(code)` says the code can be the cut's, `past_cut`
    /// (e.g. the protocol's query, or a read made before the void) decides whether the
    /// refusal is the end-of-day cut's (`after_cutoff`). `past_cut` runs only then; any
    /// other answer is returned as it is.
    pub async fn void_checking_cut(
        &self,
        op: &BankOperation,
        refused_for_cut: impl FnOnce(&str) -> bool + Send,
        past_cut: impl Future<Output = bool> + Send,
    ) -> BankOutcome {
        match self.operate(Op::Cancel(op)).await {
            BankOutcome::Declined {
                code,
                message,
                after_cutoff: false,
            } if refused_for_cut(&code) => BankOutcome::Declined {
                after_cutoff: past_cut.await,
                code,
                message,
            },
            other => other,
        }
    }
}

#[cfg(test)]
#[path = "cancel_tests.rs"]
mod tests;
