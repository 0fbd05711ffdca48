//! The merchant's client, as an SDK behaves.
//!
//! With a key: every answer that asks for a retry is retried with the same key — a time-out
//! (the handler was killed), any 5xx, any 409 but `invalid_state`; after
//! `409 operation_outcome_unknown` it first queries the payment, as the docs advise, and
//! retries once the query shows nothing pending.
//! Without a key: only answers saying nothing happened are retried (`500 internal_error`,
//! `409 concurrent_modification`, `operation_in_progress`, and `operation_outcome_unknown`
//! after a query); a time-out or `503 operation_not_recorded` ends the intent.
//!
//! A client retries at once a few times (querying at most once); an intent still asking for
//! a retry after that is queued for the next phase (after the clock has moved: leases over,
//! operations stale).

use std::{
    collections::BTreeMap,
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Arc, Mutex,
    },
    time::Duration,
};

use paygate_domain::error::code;

use crate::{
    harness::{Answer, Soak},
    kills::KillSwitch,
    plan::{IntentPlan, KillPoint},
};

/// One phase of the soak, as the clients see it.
pub struct Phase {
    pub name: &'static str,
    /// Requests an intent sends at most in this phase.
    pub tries: usize,
    /// Whether handlers may be killed in this phase.
    pub kills: bool,
}

/// One intent and what became of it.
pub struct Intent {
    pub plan: IntentPlan,
    pub switch: Arc<KillSwitch>,
    resent: AtomicBool,
    /// Every answer it got, in order, with the phase.
    pub answers: Mutex<Vec<(&'static str, Answer)>>,
}

impl Intent {
    pub fn new(plan: IntentPlan) -> Self {
        Self {
            switch: Arc::new(KillSwitch::new(plan.kill)),
            plan,
            resent: AtomicBool::new(false),
            answers: Mutex::new(Vec::new()),
        }
    }

    pub fn history(&self) -> String {
        self.answers
            .lock()
            .unwrap()
            .iter()
            .map(|(_, a)| a.label())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// What the client does after an answer.
#[derive(Debug, PartialEq, Eq)]
pub enum Next {
    Done,
    Retry,
    QueryThenRetry,
}

pub fn next(keyed: bool, answer: &Answer) -> Next {
    let (status, code) = match answer {
        Answer::Killed(_) if keyed => return Next::Retry,
        Answer::Killed(_) => return Next::Done,
        Answer::Http { status, code, .. } => (*status, code.as_str()),
    };
    if code == code::OPERATION_OUTCOME_UNKNOWN {
        return Next::QueryThenRetry;
    }
    let retry = if keyed {
        status >= 500 || status == 429 || (status == 409 && code != code::INVALID_STATE)
    } else {
        matches!(
            code,
            code::INTERNAL_ERROR
                | code::CONCURRENT_MODIFICATION
                | code::OPERATION_IN_PROGRESS
                | code::IDEMPOTENCY_KEY_IN_USE
        )
    };
    if retry {
        Next::Retry
    } else {
        Next::Done
    }
}

#[derive(Default, Debug)]
pub struct Figures {
    pub requests: AtomicUsize,
    pub retries: AtomicUsize,
    pub queries_before_retry: AtomicUsize,
    pub resent_answered: AtomicUsize,
    pub answers: Mutex<BTreeMap<String, usize>>,
    pub kills: Mutex<BTreeMap<KillPoint, usize>>,
}

impl Figures {
    fn count(&self, label: String) {
        *self.answers.lock().unwrap().entry(label).or_default() += 1;
    }
}

/// One phase of `intent`: `true` if its last answer still asks for a retry (it is queued
/// for the next phase).
pub async fn run(soak: &Soak, figures: &Figures, intent: &Intent, phase: &Phase) -> bool {
    let plan = &intent.plan;
    let keyed = plan.key.is_some();
    let mut tries = 0;
    let mut queried = false;
    loop {
        tries += 1;
        figures.requests.fetch_add(1, Ordering::Relaxed);
        let a = soak
            .send(
                &plan.payment,
                plan.op,
                plan.key.as_deref(),
                Some(plan.n),
                phase.kills.then(|| intent.switch.clone()),
            )
            .await;
        figures.count(a.label());
        if let Answer::Killed(point) = a {
            *figures.kills.lock().unwrap().entry(point).or_default() += 1;
        }
        let next = next(keyed, &a);
        intent.answers.lock().unwrap().push((phase.name, a));
        match next {
            Next::Done => {
                if plan.resend && !intent.resent.swap(true, Ordering::SeqCst) {
                    // The answer was lost on the way: the same request again.
                    figures.resent_answered.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                return false;
            }
            _ if tries >= phase.tries => return true,
            Next::Retry => {
                figures.retries.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            // Queried once already in this phase: the operation is still unknown; it needs
            // time (and the reconciler) before a retry can do anything.
            Next::QueryThenRetry if queried => return true,
            Next::QueryThenRetry => {
                queried = true;
                figures.queries_before_retry.fetch_add(1, Ordering::Relaxed);
                let (q, pending) = soak.query(&plan.payment).await;
                figures.count(format!("{} (query before retry)", q.label()));
                if pending {
                    // Still unknown: retry in the next phase.
                    return true;
                }
                figures.retries.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// The last retry of a keyed intent, long after everything settled (an SDK retrying after
/// a lost answer): no kill, one request.
pub async fn last_retry(soak: &Soak, intent: &Intent) -> Answer {
    let plan = &intent.plan;
    let a = soak
        .send(
            &plan.payment,
            plan.op,
            plan.key.as_deref(),
            Some(plan.n),
            None,
        )
        .await;
    intent
        .answers
        .lock()
        .unwrap()
        .push(("last retry", a.clone()));
    a
}
