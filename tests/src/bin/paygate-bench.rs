//! `make bench`: every template.yaml function's release binary (and the C floor) against the
//! Runtime API stub, one table out. See docs/performance.md.
//!
//! Environment: `BENCH_RUNS` (init runs per function, interleaved; default 15),
//! `BENCH_EVENT_RUNS` (processes per function for the event figures; default 3),
//! `BENCH_BIN_DIR` (default target/release), `BENCH_FLOOR` (the compiled floor.c),
//! `BENCH_ONLY` (comma-separated binaries), `BENCH_CALLGRIND=0` to skip valgrind.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// Durations and ratios of measurements (no money here): floats are the right type.
#![allow(clippy::float_arithmetic, clippy::cast_precision_loss)]

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use paygate_aws::moto::MotoServer;
use paygate_tests::bench::{
    aws_counter::{self, AwsCounter},
    cases::{Ctx, Invocation},
    functions::{self, LocalRun},
    runtime_stub::RuntimeStub,
};
use serde_json::json;

const FLOOR: &str = "floor (C)";

struct Target {
    name: String,
    path: PathBuf,
    /// Environment besides Lambda's own (none for the floor).
    env: Vec<(String, String)>,
}

#[derive(Default)]
struct Row {
    init_ms: Vec<f64>,
    first_ms: Vec<f64>,
    warm_ms: Vec<f64>,
    rss_kb: Vec<u64>,
    /// Threads of the process when ready (its first `next`).
    threads: Vec<u64>,
    /// The AWS operations of each process's first and warm event (the warm one without a
    /// throttle lease's refill, counted apart: [`aws_counter::lease_refills`]).
    first_calls: Vec<Vec<String>>,
    warm_calls: Vec<Vec<String>>,
    /// Warm events that refilled their throttle lease (a new clock minute).
    refills: usize,
    /// When this function's last event process ended.
    events_done: Option<Instant>,
    instr: [Option<u64>; 3],
    /// Of those, the AWS SDK's ([`sdk_instructions`]).
    sdk: [Option<u64>; 3],
    failures: Vec<String>,
}

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn quantile(v: &[f64], q: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let i = ((s.len() - 1) as f64 * q).round() as usize;
    s.get(i).copied()
}

/// A number field of `/proc/<pid>/status` (`VmHWM` in kB, `Threads`).
fn proc_status(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.split(':').next() == Some(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

/// Sets `var` in `env` (replacing its value when present).
fn set_var(env: &mut Vec<(String, String)>, var: &str, value: &str) {
    match env.iter_mut().find(|(k, _)| k == var) {
        Some((_, v)) => value.clone_into(v),
        None => env.push((var.to_owned(), value.to_owned())),
    }
}

/// `t`'s environment for `inv`'s events: Lambda's (from `stub`), the target's, then the
/// invocation's own (the deploy hook's `AWS_ENDPOINT_URL`: the stub of Lambda and CodeDeploy).
fn process_env(stub: &RuntimeStub, t: &Target, inv: Option<&Invocation>) -> Vec<(String, String)> {
    let mut env = stub.lambda_env(&t.name);
    env.extend(t.env.iter().cloned());
    for (var, value) in inv.map(|i| i.env.as_slice()).unwrap_or_default() {
        set_var(&mut env, var, value);
    }
    env
}

fn env_value<'a>(env: &'a [(String, String)], var: &str) -> Option<&'a str> {
    env.iter()
        .rev()
        .find_map(|(k, v)| (k == var).then_some(v.as_str()))
}

fn log_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "paygate-bench-{}.log",
        name.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
    ))
}

/// exec → first `GET …/next` against an idle stub; the process's threads then.
async fn init_once(t: &Target) -> Result<(Duration, Option<u64>), String> {
    let stub = RuntimeStub::start().await.map_err(|e| e.to_string())?;
    let mut env = stub.lambda_env(&t.name);
    env.extend(t.env.iter().cloned());
    let start = Instant::now();
    let mut child =
        functions::spawn(&t.path, &env, &log_path(&t.name)).map_err(|e| e.to_string())?;
    let ready = stub.wait_next(1, Duration::from_secs(30)).await;
    let threads = proc_status(child.id(), "Threads");
    let _ = child.kill();
    let _ = child.wait();
    ready
        .map(|r| (r.duration_since(start), threads))
        .ok_or_else(|| {
            format!(
                "{}: not ready within 30 s (see {:?})",
                t.name,
                log_path(&t.name)
            )
        })
}

/// A first and a warm event in one process: their durations (next answered → outcome), the
/// AWS operations of each (through an [`AwsCounter`] in front of the process's AWS endpoint:
/// moto, or the deploy hook's stub) and the process's peak RSS.
async fn events_once(t: &Target, ctx: &Ctx<'_>, row: &mut Row) -> Result<(), String> {
    let stub = RuntimeStub::start().await.map_err(|e| e.to_string())?;
    let (a, b) = if t.name == FLOOR {
        (None, None)
    } else {
        (
            Some(ctx.invocation(&t.name).await?),
            Some(ctx.invocation(&t.name).await?),
        )
    };
    let mut env = process_env(&stub, t, a.as_ref());
    let upstream = env_value(&env, "AWS_ENDPOINT_URL").unwrap_or_default();
    let counter = AwsCounter::start(upstream)
        .await
        .map_err(|e| e.to_string())?;
    set_var(&mut env, "AWS_ENDPOINT_URL", &counter.endpoint());
    let ev = |i: &Option<Invocation>| i.as_ref().map_or(json!({}), |i| i.event.clone());
    let id1 = stub.push(&ev(&a));
    let id2 = stub.push(&ev(&b));
    let spawned = Instant::now();
    let mut child =
        functions::spawn(&t.path, &env, &log_path(&t.name)).map_err(|e| e.to_string())?;
    let done = stub.wait_next(3, Duration::from_secs(60)).await;
    let rss = proc_status(child.id(), "VmHWM");
    let _ = child.kill();
    let _ = child.wait();
    done.ok_or_else(|| format!("{}: two events not answered within 60 s", t.name))?;
    for (id, inv) in [(&id1, &a), (&id2, &b)] {
        let answer = stub
            .outcome(id, Duration::ZERO)
            .await
            .and_then(|o| o.json());
        if let (Some(inv), Some(answer)) = (inv, &answer) {
            if let Err(e) = (inv.check)(answer) {
                row.failures.push(e);
            }
        } else if answer.is_none() {
            row.failures.push(format!("{id}: no JSON answer"));
        }
    }
    let span = |n: usize, id: &str| {
        let next = stub.next_at(n)?;
        Some(ms(stub.outcome_at(id)?.duration_since(next)))
    };
    row.first_ms.extend(span(1, &id1));
    row.warm_ms.extend(span(2, &id2));
    let calls =
        |n: usize, id: &str| Some(counter.requests_between(stub.next_at(n)?, stub.outcome_at(id)?));
    if t.name != FLOOR {
        let first = calls(1, &id1);
        if let Some(warm) = calls(2, &id2) {
            // A lease refill (the warm event began in a later clock minute than the first's
            // lease) is expected and counted apart; any other difference is a failure.
            let (warm, refills) = match env_value(&t.env, "THROTTLE_TABLE") {
                Some(table) => {
                    aws_counter::lease_refills(first.as_deref().unwrap_or_default(), &warm, table)
                }
                None => (warm, 0),
            };
            row.refills += refills;
            let warm = aws_counter::ops(&warm);
            // The cost model's count (tests/tests/aws_calls.rs counts the same cases).
            if let Some(want) = aws_counter::expected(&t.name) {
                let got = aws_counter::summary(&warm);
                if got != want {
                    row.failures.push(format!(
                        "warm event's AWS calls: {got}; the cost model (aws_counter::EXPECTED) says {want}"
                    ));
                }
            }
            row.warm_calls.push(warm);
        }
        row.first_calls.extend(first.map(|f| aws_counter::ops(&f)));
        if let Some(ready) = stub.next_at(1) {
            let at_init = counter.calls_between(spawned, ready);
            if !at_init.is_empty() {
                row.failures.push(format!(
                    "AWS calls at init: {}",
                    aws_counter::summary(&at_init)
                ));
            }
        }
    }
    row.rss_kb.extend(rss);
    Ok(())
}

/// The AWS SDK's part of a callgrind profile: the inclusive cost of the orchestrator's
/// operation future (`invoke_with_stop_point`'s inner future: every call's interceptors,
/// serialization, SigV4 signing, dispatch, retries and parsing), read with
/// `callgrind_annotate --inclusive=yes`. Not in it: building the call's input, and the HTTP
/// connection's own task (socket reads and writes, HTTP framing), which Tokio polls apart.
/// `None` without symbols (a stripped binary) or without `callgrind_annotate`.
fn sdk_instructions(profile: &Path) -> Option<u64> {
    const OPERATION: &str =
        "aws_smithy_runtime::client::orchestrator::invoke_with_stop_point::{{closure}}::{{closure}}::{{closure}}";
    let out = Command::new("callgrind_annotate")
        .args(["--inclusive=yes", "--threshold=100"])
        .arg(profile)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let cost = text.lines().find_map(|line| {
        let (cost, rest) = line.trim_start().split_once(' ')?;
        let name = rest.split_once(':')?.1;
        let name = name.split(" [").next()?;
        (name == OPERATION).then(|| cost.replace(',', "").parse::<u64>().ok())?
    });
    cost.or_else(|| text.contains("aws_smithy").then_some(0))
}

/// Instructions (callgrind) of a process that answers `events` events and is stopped at
/// its next `GET …/next`, and of those the SDK's ([`sdk_instructions`]).
async fn instructions(
    t: &Target,
    ctx: &Ctx<'_>,
    events: usize,
) -> Result<(u64, Option<u64>), String> {
    let stub = RuntimeStub::start().await.map_err(|e| e.to_string())?;
    let mut invocations = Vec::new();
    for _ in 0..events {
        if t.name == FLOOR {
            stub.push(&json!({}));
        } else {
            let inv = ctx.invocation(&t.name).await?;
            stub.push(&inv.event);
            invocations.push(inv);
        }
    }
    let env = process_env(&stub, t, invocations.first());
    let out = std::env::temp_dir().join(format!(
        "paygate-bench-callgrind-{}.out",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&out);
    let log =
        std::fs::File::create(log_path(&format!("{}-cg", t.name))).map_err(|e| e.to_string())?;
    let mut child = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(&t.path)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(log.try_clone().map_err(|e| e.to_string())?)
        .stderr(log)
        .spawn()
        .map_err(|e| e.to_string())?;
    let ready = stub.wait_next(events + 1, Duration::from_secs(300)).await;
    // SIGTERM: valgrind finishes the tool (writes the profile) on a fatal signal.
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status();
    let _ = child.wait();
    ready.ok_or_else(|| format!("{}: not ready under callgrind", t.name))?;
    let text = std::fs::read_to_string(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let sdk = sdk_instructions(&out);
    text.lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .map(|total| (total, sdk))
        .ok_or_else(|| format!("{}: no totals in the callgrind profile", t.name))
}

fn file_size(p: &Path) -> Option<u64> {
    std::fs::metadata(p).ok().map(|m| m.len())
}

/// Size of `binary` stripped, and of a zip holding it as `bootstrap`.
fn sizes(binary: &Path) -> (Option<u64>, Option<u64>) {
    let dir = std::env::temp_dir().join(format!("paygate-bench-zip-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).ok();
    let boot = dir.join("bootstrap");
    if std::fs::copy(binary, &boot).is_err() {
        return (None, None);
    }
    let _ = Command::new("strip").arg(&boot).status();
    let zip = dir.join("f.zip");
    let zipped = Command::new("zip")
        .current_dir(&dir)
        .args(["-q", "-9", "-X", "f.zip", "bootstrap"])
        .status()
        .is_ok_and(|s| s.success());
    (file_size(&boot), zipped.then(|| file_size(&zip)).flatten())
}

/// `make build-lambda`'s arm64 bundle of a function.
enum Arm64 {
    /// Built from the sources now in the work tree: its zip's size and the first line of
    /// its `.source` (the commit it was built from).
    Fresh(u64, String),
    /// Built from other sources (or with no record of them).
    Stale,
    Absent,
}

/// `target/lambda/<bin>.zip` as `scripts/arm64.sh fresh` judges it (the zip Lambda gets,
/// already stripped by the release profile).
fn arm64_zip(root: &Path, bin: &str) -> Arm64 {
    let lambda = root.join("target/lambda");
    let Some(size) = file_size(&lambda.join(format!("{bin}.zip"))) else {
        return Arm64::Absent;
    };
    let fresh = Command::new("bash")
        .arg(root.join("scripts/arm64.sh"))
        .args(["fresh", bin])
        .stdin(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !fresh {
        return Arm64::Stale;
    }
    let source = std::fs::read_to_string(lambda.join(format!("{bin}.source"))).unwrap_or_default();
    let built = source
        .lines()
        .next()
        .unwrap_or_default()
        .trim_start_matches("# ")
        .to_owned();
    Arm64::Fresh(size, built)
}

fn mb(b: Option<u64>) -> String {
    b.map_or("–".into(), |b| format!("{:.2}", b as f64 / 1_000_000.0))
}

fn mi(i: Option<u64>) -> String {
    i.map_or("–".into(), |i| format!("{:.2} M", i as f64 / 1_000_000.0))
}

fn ki(i: Option<i128>) -> String {
    i.map_or("–".into(), |i| format!("{} K", i / 1000))
}

fn counts(calls: &[Vec<String>]) -> Vec<u64> {
    calls.iter().map(|c| c.len() as u64).collect()
}

/// `3`, or `2–4` when the runs differ; `–` without any.
fn spread(v: &[u64]) -> String {
    match (v.iter().min(), v.iter().max()) {
        (Some(a), Some(b)) if a == b => a.to_string(),
        (Some(a), Some(b)) => format!("{a}–{b}"),
        _ => "–".into(),
    }
}

fn f1(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| format!("{v:.2}"))
}

/// The load averages (1, 5, 15 minutes) of `/proc/loadavg`.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::main]
async fn main() {
    let load_at_start = load();
    let root = functions::workspace_root();
    let bin_dir = std::env::var("BENCH_BIN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| functions::bin_dir("release"));
    let runs = env_num("BENCH_RUNS", 15);
    let event_runs = env_num("BENCH_EVENT_RUNS", 3);
    let only: Option<Vec<String>> = std::env::var("BENCH_ONLY")
        .ok()
        .map(|v| v.split(',').map(str::to_owned).collect());
    let callgrind = std::env::var("BENCH_CALLGRIND").as_deref() != Ok("0")
        && Command::new("valgrind")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());

    let moto = MotoServer::start().expect("moto starts (make bench sets PAYGATE_MOTO_SERVER)");
    let run = LocalRun::start(&moto, "bench")
        .await
        .expect("local stack starts");
    let stack = run.stack();
    // The money operations on a real bank protocol, the refund keyed: the cost model's cases.
    let ctx = Ctx::new(&run.server)
        .await
        .expect("pipeline endpoint")
        .real_bank();

    let mut targets = Vec::new();
    if let Ok(floor) = std::env::var("BENCH_FLOOR") {
        targets.push(Target {
            name: FLOOR.into(),
            path: floor.into(),
            env: vec![],
        });
    }
    for f in functions::template_functions() {
        if only.as_ref().is_some_and(|o| !o.contains(&f.bin)) {
            continue;
        }
        let env = stack.env(&f).expect("template environment resolves");
        targets.push(Target {
            name: f.bin.clone(),
            path: bin_dir.join(&f.bin),
            env,
        });
    }
    let mut rows: Vec<Row> = targets.iter().map(|_| Row::default()).collect();

    eprintln!(
        "init: {runs} interleaved runs of {} binaries",
        targets.len()
    );
    for _ in 0..runs {
        for (t, row) in targets.iter().zip(rows.iter_mut()) {
            match init_once(t).await {
                Ok((d, threads)) => {
                    row.init_ms.push(ms(d));
                    row.threads.extend(threads);
                }
                Err(e) => row.failures.push(e),
            }
        }
    }
    eprintln!("events: {event_runs} processes each (first + warm event, over moto)");
    for _ in 0..event_runs {
        for (t, row) in targets.iter().zip(rows.iter_mut()) {
            // A clock second apart from the previous process's events of the same function:
            // points inquiry allows 2 a second per key (its template default), and a process
            // sends two (with BENCH_ONLY nothing else runs in between).
            if let Some(wait) = row
                .events_done
                .and_then(|done| Duration::from_secs(1).checked_sub(done.elapsed()))
            {
                tokio::time::sleep(wait).await;
            }
            if let Err(e) = events_once(t, &ctx, row).await {
                row.failures.push(e);
            }
            row.events_done = Some(Instant::now());
        }
    }
    if callgrind {
        eprintln!("callgrind: to ready, after one event, after two");
        for (t, row) in targets.iter().zip(rows.iter_mut()) {
            for n in 0..3 {
                match instructions(t, &ctx, n).await {
                    Ok((i, sdk)) => {
                        row.instr[n] = Some(i);
                        row.sdk[n] = sdk;
                    }
                    Err(e) => row.failures.push(e),
                }
            }
        }
    }

    let floor_median = targets
        .iter()
        .zip(rows.iter())
        .find(|(t, _)| t.name == FLOOR)
        .and_then(|(_, r)| quantile(&r.init_ms, 0.5));
    println!();
    println!("| function | init median ms | init p90 ms | × floor | threads | instr. to ready | first event ms | warm event ms | first event instr. | warm event instr. | of which SDK calls | AWS calls first / warm | peak RSS MB | stripped MB | zip MB (x86_64) | zip MB (arm64) |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let (mut arm_built, mut arm_stale, mut arm_absent) = (Vec::new(), Vec::new(), Vec::new());
    for (t, r) in targets.iter().zip(rows.iter()) {
        let med = quantile(&r.init_ms, 0.5);
        let ratio = match (med, floor_median) {
            (Some(m), Some(f)) if f > 0.0 => format!("{:.1}", m / f),
            _ => "–".into(),
        };
        let delta = |a: Option<u64>, b: Option<u64>| Some(i128::from(b?) - i128::from(a?));
        let (stripped, zip) = sizes(&t.path);
        let arm_zip = match (t.name != FLOOR).then(|| arm64_zip(&root, &t.name)) {
            Some(Arm64::Fresh(size, built)) => {
                if !arm_built.contains(&built) {
                    arm_built.push(built);
                }
                Some(size)
            }
            Some(Arm64::Stale) => {
                arm_stale.push(t.name.clone());
                None
            }
            Some(Arm64::Absent) => {
                arm_absent.push(t.name.clone());
                None
            }
            None => None,
        };
        let rss = r.rss_kb.iter().max().map(|k| *k * 1000);
        let warm = delta(r.instr[1], r.instr[2]);
        let sdk = match (delta(r.sdk[1], r.sdk[2]), warm) {
            (Some(s), Some(w)) if w > 0 => format!("{} K ({} %)", s / 1000, s * 100 / w),
            _ => "–".into(),
        };
        let refills = if r.refills > 0 {
            format!(" (+{} lease refill)", r.refills)
        } else {
            String::new()
        };
        let calls = format!(
            "{} / {}{refills}",
            spread(&counts(&r.first_calls)),
            spread(&counts(&r.warm_calls))
        );
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            t.name,
            f1(med),
            f1(quantile(&r.init_ms, 0.9)),
            ratio,
            spread(&r.threads),
            mi(r.instr[0]),
            f1(quantile(&r.first_ms, 0.5)),
            f1(quantile(&r.warm_ms, 0.5)),
            ki(delta(r.instr[0], r.instr[1])),
            ki(warm),
            sdk,
            calls,
            mb(rss),
            mb(stripped),
            mb(zip),
            mb(arm_zip),
        );
    }
    println!();
    println!("AWS operations of the warm event (at the counting proxy in front of moto):");
    for (t, r) in targets.iter().zip(rows.iter()) {
        if let Some(calls) = r.warm_calls.last() {
            let refills = if r.refills > 0 {
                format!(
                    "; in {} of {} processes also a throttle lease refill (UpdateItem: the warm event began in a later clock minute than the first event's lease)",
                    r.refills,
                    r.warm_calls.len()
                )
            } else {
                String::new()
            };
            println!("- {}: {}{refills}", t.name, aws_counter::summary(calls));
        }
    }
    let failures: Vec<String> = targets
        .iter()
        .zip(rows.iter())
        .flat_map(|(t, r)| r.failures.iter().map(move |f| format!("{}: {f}", t.name)))
        .collect();
    println!();
    let mut arm64 = Vec::new();
    if !arm_built.is_empty() {
        arm64.push(format!(
            "target/lambda/<bin>.zip of make build-lambda, {}",
            arm_built.join("; ")
        ));
    }
    if !arm_stale.is_empty() {
        arm64.push(format!(
            "not reported for {} (built from other sources than the work tree's: run make build-lambda)",
            arm_stale.join(", ")
        ));
    }
    if !arm_absent.is_empty() {
        arm64.push(format!(
            "not built for {} (make build-lambda)",
            arm_absent.join(", ")
        ));
    }
    println!(
        "runs: {runs} init (interleaved), {event_runs} event processes; events over moto (a Python stand-in: event times include its answers); callgrind: {}; arm64: {}; load average (1, 5, 15 min) at the start {load_at_start}, at the end {}",
        if callgrind { "yes" } else { "no (valgrind absent or BENCH_CALLGRIND=0)" },
        arm64.join("; "),
        load(),
    );
    if !failures.is_empty() {
        println!("\nfailures:");
        for f in &failures {
            println!("- {f}");
        }
        std::process::exit(1);
    }
}
