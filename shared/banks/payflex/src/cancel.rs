//! Cancel: a lookup, then `Cancel` referencing the live capture, else the sale or the
//! pre-authorization — never taking for done more than the bank's records confirm.
//!
//! - The order is already cancelled (its `Sale`/`Auth` is `IsCanceled` or `IsReversed`) →
//!   `Approved`, nothing sent.
//! - The cancel is answered "already cancelled" (`1083`, `1088`, `1101`: another cancel came
//!   first) → the order is read again; cancelled → `Approved`.
//! - A captured pre-authorization: whether cancelling its capture also releases the hold is
//!   not documented (crate README), so the order is read after the approved cancel:
//!   cancelled → `Approved`; the pre-authorization still open → it is cancelled as well (when
//!   that and a read still fit the operation's budget, [`StepRetry`]) and confirmed; anything
//!   else → `Unknown` (the capture's cancel moved money, so never an error).
//! - A lookup that fails before anything is sent moved no money: an `Error`.

use std::time::Instant;

use paygate_bankkit::{Session, StepRetry};
use paygate_domain::{ports::BankOperation, BankOutcome};

use crate::{
    found, no_reference,
    request::Request,
    response::{already_cancelled, Reply, APPROVED},
    search_before, status, PayFlex,
};

/// What a read of the order after a cancel shows.
enum After {
    Cancelled,
    /// The pre-authorization is open (its capture cancelled): its transaction id.
    OpenAuth(String),
    /// Unreadable, or anything else.
    Unsettled,
}

async fn read_after(s: &Session<'_, PayFlex>, order_id: &str) -> After {
    let Ok(Reply::Search(reply)) = s.call(&Request::Search { order_id }).await else {
        return After::Unsettled;
    };
    match status::lookup(&reply) {
        status::Lookup::Found(o) if o.cancelled() => After::Cancelled,
        status::Lookup::Found(o) => match o.open_auth() {
            Some(auth) => After::OpenAuth(auth.to_owned()),
            None => After::Unsettled,
        },
        _ => After::Unsettled,
    }
}

/// The order is cancelled (nothing sent now, or confirmed by a read).
fn done() -> BankOutcome {
    BankOutcome::Approved {
        code: APPROVED.to_owned(),
        auth_code: None,
        rrn: None,
    }
}

fn half_done() -> BankOutcome {
    BankOutcome::Unknown {
        reason: "the capture was cancelled; the release of the pre-authorization's hold is not \
                 confirmed"
            .to_owned(),
    }
}

pub(crate) async fn cancel(s: &Session<'_, PayFlex>, op: &BankOperation) -> BankOutcome {
    let started = Instant::now();
    let reply = match search_before(s, &op.order_id, "cancel").await {
        Ok(r) => r,
        Err(outcome) => return outcome,
    };
    let order = match found(&reply, "cancel") {
        Ok(o) => o,
        Err(outcome) => return outcome,
    };
    if order.cancelled() {
        return done();
    }
    let Some(reference) = order.to_cancel() else {
        return no_reference("cancel");
    };
    let captured = order.captured_auth();
    let first = s.send(&Request::Cancel { reference }).await;
    match &first {
        BankOutcome::Approved { .. } if captured => {
            confirm_released(s, &op.order_id, started, first).await
        }
        BankOutcome::Declined { code, .. } if already_cancelled(code) => {
            match read_after(s, &op.order_id).await {
                After::Cancelled => done(),
                _ => first,
            }
        }
        _ => first,
    }
}

/// After the approved cancel of a captured pre-authorization's capture: the order must read
/// cancelled, else its open pre-authorization is cancelled too and confirmed.
async fn confirm_released(
    s: &Session<'_, PayFlex>,
    order_id: &str,
    started: Instant,
    first: BankOutcome,
) -> BankOutcome {
    let auth = match read_after(s, order_id).await {
        After::Cancelled => return first,
        After::OpenAuth(auth) => auth,
        After::Unsettled => return half_done(),
    };
    if StepRetry::default()
        .wait_before(1, started, s.call_timeout())
        .is_none()
    {
        return half_done();
    }
    match s.send(&Request::Cancel { reference: &auth }).await {
        approved @ BankOutcome::Approved { .. } => approved,
        _ => match read_after(s, order_id).await {
            After::Cancelled => first,
            _ => half_done(),
        },
    }
}
