//! The real binaries, run as Lambda runs them: every function of `template.yaml` (its
//! `CodeUri` folder names the binary) is built, started with only the Runtime API address,
//! Lambda's own variables, static credentials and the environment its template entry sets
//! (resolved against a moto-backed local stack), and sent a real event of its kind through
//! the Lambda Runtime API stub; its answer is checked. This is the only test that runs each
//! function's `main.rs`: the client builders, `Deps::from_env`, the runtime loop and the
//! event (de)serialisation as deployed.
//!
//! Every binary runs at TRACE, as `AWS_LAMBDA_LOG_LEVEL=TRACE` (an operator turning Lambda's
//! `ApplicationLogLevel` up) makes it, half of them in Lambda's JSON log format: its log must
//! hold TRACE lines and none of the secrets the events and the stack carry (the API key of
//! the authorizer's `Authorization` header, the points inquiry's card number and CVV, the
//! signing secret the deliverer signs with, the seed's keys and bank credentials, the AWS
//! credentials) — issue 10, item 5.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::{path::PathBuf, time::Duration};

use paygate_aws::moto::MotoServer;
use paygate_tests::bench::{
    cases::{self, Ctx},
    functions::{self, LocalRun, LocalStack, TemplateFunction},
    runtime_stub::{Outcome, RuntimeStub},
};

/// Start-up and one event, debug build, on a shared 2-core machine.
const PATIENCE: Duration = Duration::from_secs(60);

fn log_path(bin: &str) -> PathBuf {
    std::env::temp_dir().join(format!("paygate-binaries-{bin}-{}.log", std::process::id()))
}

fn log_tail(bin: &str) -> String {
    let text = std::fs::read_to_string(log_path(bin)).unwrap_or_default();
    let start = text.len().saturating_sub(3000);
    text.get(start..).unwrap_or(&text).to_owned()
}

/// The static AWS credentials' secret parts, distinct enough to be searched for in logs.
const AWS_SECRET_ACCESS_KEY: &str = "binariesSecretAccessKey0TraceLogs0000001";
const AWS_SESSION_TOKEN: &str = "binariesSessionToken0TraceLogs000000000001";

/// Everything no log may hold: the secrets of this stack and of the cases' events.
fn secrets(ctx: &Ctx<'_>) -> Vec<String> {
    let mut out = paygate_tests::leaks::seed_secrets();
    out.extend(
        [
            cases::KEY,
            cases::POINTS_CARD,
            &ctx.endpoint_secret,
            AWS_SECRET_ACCESS_KEY,
            AWS_SESSION_TOKEN,
        ]
        .map(str::to_owned),
    );
    out.sort();
    out.dedup();
    out
}

/// The points per-card limit's HMAC key (the points function reads it from Secrets Manager):
/// no log may hold it. (The card's HMAC under it may show, at TRACE, in the SDK's DynamoDB
/// bodies: it is the throttle table's key, keyed and no card data.)
async fn card_key(server: &paygate_devserver::DevServer, prefix: &str) -> String {
    server
        .secrets
        .get_secret_value()
        .secret_id(paygate_devserver::card_key_secret(prefix))
        .send()
        .await
        .expect("the stack's card key")
        .secret_string()
        .unwrap()
        .to_owned()
}

/// `bin`'s whole log at TRACE: TRACE lines there, and no secret, no CVV.
fn check_log(bin: &str, secrets: &[String]) -> Result<(), String> {
    let text = std::fs::read_to_string(log_path(bin)).map_err(|e| format!("its log: {e}"))?;
    if !(text.lines().any(|l| l.trim_start().starts_with("TRACE"))
        || text.contains(r#""level":"TRACE""#))
    {
        return Err(format!(
            "its log holds no TRACE line ({} bytes): TRACE was not on",
            text.len()
        ));
    }
    let mut leaks = paygate_tests::leaks::leaks(&text, secrets);
    // The CVV's field name as a word (random ids such as AWS request ids may hold the
    // letters; the three digits alone occur anywhere).
    let cvv = regex_lite::Regex::new(r"(?i)\bcvv\b").unwrap();
    if let Some(m) = cvv.find(&text) {
        let start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
        let end = (m.end() + 200).min(text.len());
        leaks.push(format!(
            "cvv: {}",
            text.get(start..end).unwrap_or(m.as_str())
        ));
    }
    if leaks.is_empty() {
        Ok(())
    } else {
        Err(format!("secrets in its TRACE log:\n{}", leaks.join("\n")))
    }
}

/// Starts `f`'s binary against a stub (at TRACE, `json`: in Lambda's JSON format), sends its
/// case's event; `Err` with what went wrong.
async fn run_one(
    f: &TemplateFunction,
    stack: &LocalStack<'_>,
    ctx: &Ctx<'_>,
    dir: &std::path::Path,
    json: bool,
) -> Result<(), String> {
    let stub = RuntimeStub::start().await.map_err(|e| e.to_string())?;
    let mut env = stub.lambda_env(&f.bin);
    env.extend(stack.env(f)?);
    // As Lambda's logging controls set them (the template's `RUST_LOG` stays: Lambda's level
    // wins over it).
    env.push(("AWS_LAMBDA_LOG_LEVEL".to_owned(), "TRACE".to_owned()));
    let format = if json { "JSON" } else { "Text" };
    env.push(("AWS_LAMBDA_LOG_FORMAT".to_owned(), format.to_owned()));
    for (var, value) in &mut env {
        match var.as_str() {
            "AWS_SECRET_ACCESS_KEY" => *value = AWS_SECRET_ACCESS_KEY.to_owned(),
            "AWS_SESSION_TOKEN" => *value = AWS_SESSION_TOKEN.to_owned(),
            _ => {}
        }
    }
    let inv = ctx.invocation(&f.bin).await?;
    env.extend(inv.env.iter().cloned());
    let id = stub.push(&inv.event);
    let mut child = functions::spawn(&dir.join(&f.bin), &env, &log_path(&f.bin))
        .map_err(|e| format!("starting {}: {e}", f.bin))?;
    let outcome = stub.outcome(&id, PATIENCE).await;
    // The function must come back for the next event after answering.
    let ready_again = stub.wait_next(2, Duration::from_secs(10)).await.is_some();
    let exited = child.try_wait().ok().flatten();
    let _ = child.kill();
    let _ = child.wait();
    let answer = match outcome {
        Some(Outcome::Response(_)) => outcome.as_ref().and_then(Outcome::json),
        Some(Outcome::Error { error_type, body }) => {
            return Err(format!(
                "answered an error {error_type}: {}",
                String::from_utf8_lossy(&body)
            ))
        }
        None => {
            return Err(format!(
                "no answer within {PATIENCE:?} (exited: {exited:?}, init error: {:?})",
                stub.init_error()
            ))
        }
    };
    let answer = answer.ok_or("the response is not JSON")?;
    (inv.check)(&answer).map_err(|e| format!("{e} (expected {})", inv.expects))?;
    if !ready_again {
        return Err("did not ask for the next event after answering".to_owned());
    }
    Ok(())
}

#[tokio::test]
async fn every_function_binary_answers_a_real_event_through_the_runtime_api() {
    let fns = functions::template_functions();
    assert_eq!(fns.len(), 15, "template.yaml's functions: {fns:?}");
    let bins: Vec<String> = fns.iter().map(|f| f.bin.clone()).collect();
    // The binaries as `cargo build` makes them (already built: a no-op).
    let build = tokio::task::spawn_blocking({
        let bins = bins.clone();
        move || functions::build(&bins, false)
    });

    let moto = MotoServer::shared().expect("moto server starts (is moto_server installed?)");
    let run = LocalRun::start(moto, "bin")
        .await
        .expect("dev server starts");
    let stack = run.stack();
    let ctx = Ctx::new(&run.server)
        .await
        .expect("pipeline endpoint registered");
    build.await.unwrap().expect("the function binaries build");
    let dir = functions::bin_dir("debug");

    let results = futures::future::join_all(fns.iter().enumerate().map(|(i, f)| {
        let (stack, ctx, dir) = (&stack, &ctx, &dir);
        async move { (f.bin.clone(), run_one(f, stack, ctx, dir, i % 2 == 0).await) }
    }))
    .await;
    let failures: Vec<String> = results
        .iter()
        .filter_map(|(bin, r)| {
            r.as_ref()
                .err()
                .map(|e| format!("{bin}: {e}\n--- its log (tail) ---\n{}", log_tail(bin)))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Each whole log, once every function has answered.
    let mut secrets = secrets(&ctx);
    secrets.push(card_key(&run.server, &stack.prefix).await);
    let leaks: Vec<String> = bins
        .iter()
        .filter_map(|bin| {
            check_log(bin, &secrets)
                .err()
                .map(|e| format!("{bin}: {e}"))
        })
        .collect();
    assert!(leaks.is_empty(), "{}", leaks.join("\n\n"));
    for bin in &bins {
        let _ = std::fs::remove_file(log_path(bin));
    }
}

/// A bundle without its partition table (template.yaml names `/var/task/partitions.json`):
/// the function stops at init with a message naming the variable and the path, before the
/// SDK would panic building its first client, and asks for no event.
#[tokio::test]
async fn a_missing_partition_table_stops_init_with_a_clear_error() {
    let f = functions::template_functions()
        .into_iter()
        .find(|f| f.bin == "get-payment")
        .expect("get-payment is a template function");
    let build = tokio::task::spawn_blocking({
        let bins = vec![f.bin.clone()];
        move || functions::build(&bins, false)
    });
    let moto = MotoServer::shared().expect("moto server starts (is moto_server installed?)");
    let run = LocalRun::start(moto, "nopart")
        .await
        .expect("dev server starts");
    let stack = run.stack();
    build.await.unwrap().expect("get-payment builds");
    let stub = RuntimeStub::start().await.unwrap();
    let mut env = stub.lambda_env(&f.bin);
    env.extend(stack.env(&f).unwrap());
    let missing = "/var/task/partitions.json";
    env.retain(|(k, _)| k != paygate_aws::partitions::VAR);
    env.push((paygate_aws::partitions::VAR.to_owned(), missing.to_owned()));
    let log = std::env::temp_dir().join(format!(
        "paygate-binaries-nopart-{}.log",
        std::process::id()
    ));
    let mut child = functions::spawn(&functions::bin_dir("debug").join(&f.bin), &env, &log)
        .expect("get-payment starts");
    let deadline = std::time::Instant::now() + PATIENCE;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still running after {PATIENCE:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    assert!(!status.success(), "{status}: {text}");
    assert!(
        text.contains(paygate_aws::partitions::VAR) && text.contains(missing),
        "the error names the variable and the path: {text}"
    );
    assert!(
        !text.contains("panicked"),
        "an error, not the SDK's panic: {text}"
    );
    assert!(
        stub.wait_next(1, Duration::from_millis(10)).await.is_none(),
        "no event asked for"
    );
}
