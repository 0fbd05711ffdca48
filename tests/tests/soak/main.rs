//! The money-safety soak: hundreds of merchant intents, concurrent, through the real
//! handlers and the `Idempotency-Key` wrapper, against the Nestpay simulator with random
//! bank faults (time-outs and dropped connections before and after applying, technical
//! errors, late bookings) over DynamoDB (moto) with random write faults (lost answers, 500s,
//! transaction conflicts, throttling), while the harness kills handlers (drops their
//! future, as a Lambda dies) after the bank call, after the commit, and around storing the
//! idempotent answer — for a reverse whose void the bank refused past its end-of-day cut,
//! also after its fall-back refund's bank call and commit.
//!
//! Time moves as it does in production: no request outlives its Lambda, so the shared clock
//! moves only between phases. Phase 1 runs every intent; the intents still asking for a
//! retry (time-outs, 5xx, 409s) retry in later rounds, each after the clock has passed the
//! idempotency lease and the stale threshold, each followed by a reconciler run; faults
//! stop after two rounds; then the not-found grace passes and the reconciler settles the
//! rest; last, every keyed intent is retried once more (an answer lost), which must be
//! replayed or final and move no money.
//!
//! The checker (`checker.rs`) compares every payment with the bank's ledger and every intent
//! with the money it moved (no intent executed twice, refunds equal to the distinct approved
//! refund intents). It prints its figures (`cargo test -p paygate-tests --test soak --
//! --nocapture`, or `make chaos` for a longer run: `PAYGATE_SOAK_OPS`, `PAYGATE_SOAK_SEED`).
//!
//! `plan.rs`: the intents; `client.rs`: the SDK-like client; `harness.rs`: the stack;
//! `kills.rs`: the kill points and what the harness records per intent; `reversals.rs`: the
//! reverse intents' oracle.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod checker;
mod client;
mod harness;
mod kills;
mod plan;
mod reversals;

use std::{
    collections::BTreeMap,
    sync::atomic::Ordering,
    time::{Duration, Instant},
};

use futures::{stream, StreamExt};
use paygate_bankkit::sim::FaultOdds;
use paygate_domain::{
    idempotency::LEASE_MS, PaymentId, PaymentStatus, StaleAfter, NOT_FOUND_GRACE_MS,
};

use crate::{
    client::{Figures, Intent, Phase},
    harness::{Answer, Soak},
    plan::{Rng, Start, PREAUTH, SALE},
};

/// Intents served at once in phase 1 and in the last retries (the DynamoDB server takes one
/// call at a time); the later phases serve every payment at once, one intent each.
const CONCURRENCY: usize = 16;
/// Retry rounds after phase 1; the first ones with faults still on.
const ROUNDS: [&str; 3] = ["retry round 1", "retry round 2", "retry round 3"];
const ROUNDS_WITH_FAULTS: usize = 2;
/// Requests a client sends at most in one phase before it waits for the next one.
const TRIES: usize = 2;
const PHASE_1: Phase = Phase {
    name: "phase 1",
    tries: TRIES,
    kills: true,
};
/// Everything is settled and nothing fails any more: the queued intents retry until they
/// get a final answer.
const AFTER_GRACE: Phase = Phase {
    name: "after the grace",
    tries: 10,
    kills: false,
};
const LAST_RETRY: &str = "last retry";

/// How long each stage took.
#[derive(Default)]
struct Timings(Vec<(&'static str, Duration)>);

impl Timings {
    fn since(&mut self, stage: &'static str, started: &mut Instant) {
        self.0.push((stage, started.elapsed()));
        *started = Instant::now();
    }
}

impl std::fmt::Display for Timings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|(s, d)| format!("{s} {d:.1?}")).collect();
        f.write_str(&parts.join(", "))
    }
}

/// Runs phase 1: every intent, [`CONCURRENCY`] at a time, whatever their payment; returns
/// those still asking for a retry.
async fn first_phase<'a>(soak: &Soak, figures: &Figures, intents: &'a [Intent]) -> Vec<&'a Intent> {
    soak.trace.set_phase(PHASE_1.name);
    stream::iter(intents)
        .map(|intent| async move {
            client::run(soak, figures, intent, &PHASE_1)
                .await
                .then_some(intent)
        })
        .buffer_unordered(CONCURRENCY)
        .filter_map(|i| async move { i })
        .collect()
        .await
}

/// Runs a later phase: the queued intents retry, one payment's after the other in their
/// order (every payment at once); once one of them still asks for a retry (the
/// payment's operation is still unsettled, or its own key still held), the rest of that
/// payment's wait for the next phase. Returns the intents still queued.
async fn retry_phase<'a>(
    soak: &Soak,
    figures: &Figures,
    queued: Vec<&'a Intent>,
    phase: &Phase,
) -> Vec<&'a Intent> {
    soak.trace.set_phase(phase.name);
    let mut by_payment: BTreeMap<&PaymentId, Vec<&'a Intent>> = BTreeMap::new();
    for i in queued {
        by_payment.entry(&i.plan.payment).or_default().push(i);
    }
    let payments = by_payment.len().max(1);
    stream::iter(by_payment.into_values())
        .map(|mut group| async move {
            group.sort_by_key(|i| i.plan.n);
            let mut rest = group.into_iter();
            while let Some(intent) = rest.next() {
                if client::run(soak, figures, intent, phase).await {
                    return std::iter::once(intent).chain(rest).collect();
                }
            }
            Vec::new()
        })
        .buffer_unordered(payments)
        .concat()
        .await
}

/// How many `queued` intents ended their phase on each answer.
fn queued_by_answer(queued: &[&Intent]) -> BTreeMap<String, usize> {
    let mut by = BTreeMap::new();
    for i in queued {
        let last = i.answers.lock().unwrap().last().map(|(_, a)| a.label());
        *by.entry(last.unwrap_or_default()).or_default() += 1;
    }
    by
}

/// Runs the reconciler until nothing is due, the clock moving past the not-found grace
/// between runs; how many runs it took.
async fn settle_all(soak: &Soak) -> usize {
    soak.advance(StaleAfter::DEFAULT.millis() + 1);
    let _ = soak.reconcile().await;
    let mut rounds = 0;
    loop {
        soak.advance(NOT_FOUND_GRACE_MS);
        let r = soak
            .reconcile()
            .await
            .expect("the reconciler runs without faults");
        rounds += 1;
        if r.due == 0 || rounds > 20 {
            return rounds;
        }
    }
}

#[test]
fn money_is_never_moved_twice_lost_or_left_unknown_under_faults_and_kills() {
    // 8 MiB stacks as a Lambda's main thread has (a debug build's money-path futures come
    // within a few hundred KB of a test thread's 2 MiB; a worker's would too).
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(4)
                .thread_stack_size(8 << 20)
                .enable_all()
                .build()
                .unwrap()
                .block_on(soak())
        })
        .unwrap()
        .join()
        .unwrap();
}

async fn soak() {
    let mut timings = Timings::default();
    let (all_started, mut started) = (Instant::now(), Instant::now());
    let seed: u64 = std::env::var("PAYGATE_SOAK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_261_123);
    let n_ops: usize = std::env::var("PAYGATE_SOAK_OPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(500);
    let soak = harness::setup().await;
    let mut rng = Rng(seed | 1);

    // 40 sales past the bank's end-of-day cut (16 of them mostly reversed), 20
    // pre-authorizations and 6 sales of today.
    let mut payments = Vec::new();
    for i in 0..66 {
        let id = PaymentId::parse(&format!("pay_soak{i}")).unwrap();
        let (status, amount, past_cut) = match i {
            0..=39 => (PaymentStatus::Captured, SALE, true),
            40..=59 => (PaymentStatus::Authorized, PREAUTH, false),
            _ => (PaymentStatus::Captured, SALE, false),
        };
        soak.create(&id, status, amount, past_cut).await;
        payments.push(Start {
            id,
            status,
            past_cut,
            reverses: (24..40).contains(&i),
        });
    }
    let intents: Vec<Intent> = plan::intents(&mut rng, seed, &payments, n_ops)
        .into_iter()
        .map(Intent::new)
        .collect();
    timings.since("set-up", &mut started);

    // Faults on: DynamoDB writes 4 %, bank money requests 2 % per kind (12 %).
    soak.dynamo_faults.random(seed, 40);
    soak.bank.fault_plan().random(seed, FaultOdds::uniform(20));
    let figures = Figures::default();
    let mut queued = first_phase(&soak, &figures, &intents).await;
    let mut queue_sizes = vec![queued_by_answer(&queued)];
    timings.since(PHASE_1.name, &mut started);

    // Retry rounds: the clock passes the lease and the stale threshold (no request is
    // running); the queued intents retry with their keys (meeting stale reservations their
    // killed requests left, or a payment those already changed); then the reconciler runs.
    let mut failed_reconciler_runs = 0;
    for (round, name) in ROUNDS.into_iter().enumerate() {
        if round == ROUNDS_WITH_FAULTS {
            soak.faults_off();
        }
        soak.advance(LEASE_MS.max(StaleAfter::DEFAULT.millis()) + 1);
        let round = Phase {
            name,
            tries: TRIES,
            kills: true,
        };
        queued = retry_phase(&soak, &figures, queued, &round).await;
        queue_sizes.push(queued_by_answer(&queued));
        if soak.reconcile().await.is_none() {
            failed_reconciler_runs += 1;
        }
        timings.since(name, &mut started);
    }
    soak.faults_off();
    let dynamo_injected = soak.dynamo_faults.injected();
    let bank_counts = soak.bank.fault_plan().counts();

    // Past the not-found grace: the reconciler settles everything; what is still queued
    // retries once more, and whatever that moved is settled too.
    let mut reconciler_rounds = settle_all(&soak).await;
    let left = retry_phase(&soak, &figures, queued, &AFTER_GRACE).await;
    reconciler_rounds += settle_all(&soak).await;
    timings.since(AFTER_GRACE.name, &mut started);

    // Every keyed intent once more, as after a lost answer.
    soak.trace.set_phase(LAST_RETRY);
    let keyed: Vec<&Intent> = intents.iter().filter(|i| i.plan.key.is_some()).collect();
    let soak_ref = &soak;
    let last: Vec<(usize, Answer)> = stream::iter(keyed)
        .map(|i| async move { (i.plan.n, client::last_retry(soak_ref, i).await) })
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    reconciler_rounds += settle_all(&soak).await;
    timings.since(LAST_RETRY, &mut started);

    let mut report = checker::check(&soak, &payments, &intents).await;
    for i in &left {
        report.violations.push(format!(
            "{}: still asks for a retry after the grace; {}",
            i.plan.describe(),
            checker::story(&soak.trace, i)
        ));
    }
    let calls = soak.trace.bank_calls();
    let (last_violations, last_refused) =
        checker::last_retry_violations(&soak.trace, &intents, &last, &calls, LAST_RETRY);
    report.violations.extend(last_violations);
    timings.since("checker", &mut started);

    let mut last_answers = BTreeMap::<String, usize>::new();
    for (_, a) in &last {
        *last_answers.entry(a.label()).or_default() += 1;
    }
    println!("soak (seed {seed}, {n_ops} intents, {} keyed):", last.len());
    println!(
        "  requests sent {}, client retries {} ({} after a query), answered requests re-sent {}",
        figures.requests.load(Ordering::Relaxed),
        figures.retries.load(Ordering::Relaxed),
        figures.queries_before_retry.load(Ordering::Relaxed),
        figures.resent_answered.load(Ordering::Relaxed)
    );
    println!(
        "  kills: {:?} (planned {})",
        figures
            .kills
            .lock()
            .unwrap()
            .iter()
            .map(|(k, n)| (k.name(), *n))
            .collect::<Vec<_>>(),
        intents.iter().filter(|i| i.plan.kill.is_some()).count()
    );
    println!("  intents queued for a retry, by last answer:");
    for (stage, q) in std::iter::once(PHASE_1.name)
        .chain(ROUNDS)
        .zip(&queue_sizes)
    {
        println!("    after {stage}: {q:?}");
    }
    println!("    left after the grace: {}", left.len());
    println!("  answers: {:?}", figures.answers.lock().unwrap());
    println!("  last retries: {last_answers:?}; declined or refused at the bank: {last_refused}");
    println!("  DynamoDB faults injected: {dynamo_injected:?}");
    println!("  bank faults injected: {bank_counts:?}");
    println!(
        "  bank money requests {}; reconciler runs after the grace {reconciler_rounds}, failed runs under faults {failed_reconciler_runs}",
        calls.len()
    );
    println!(
        "  approved operations {}, events {}; intents that sent more than one transaction {}",
        report.approved, report.events, report.intents_with_several_bank_transactions
    );
    println!("  reverse intents: {}", report.reversals);
    println!("  double executions: {}", report.double_executions);
    println!("  violations: {}", report.violations.len());
    for m in &report.violations {
        println!("    {m}");
    }
    println!("  took {:.1?} ({timings})", all_started.elapsed());
    assert!(
        report.violations.is_empty(),
        "{} violations ({} double executions), seed {seed}",
        report.violations.len(),
        report.double_executions
    );
    assert!(
        report.approved > n_ops / 5,
        "the soak did real work: {}",
        report.approved
    );
    let faults: usize = dynamo_injected.values().sum();
    assert!(
        faults > 10 && bank_counts.total() > 10,
        "faults were injected"
    );
    let kills: usize = figures.kills.lock().unwrap().values().sum();
    assert!(kills > 10, "handlers were killed: {kills}");
}
