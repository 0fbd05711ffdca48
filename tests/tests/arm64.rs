//! What ships is arm64 (template.yaml: `Architectures: [arm64]`), so one function is run as
//! it is deployed: get-payment's release `bootstrap` for aarch64-unknown-linux-gnu, built and
//! packaged by `scripts/arm64.sh` as `make build-lambda` does (target/lambda/get-payment/),
//! started under Debian's qemu-user-static (`qemu-aarch64-static -L /usr/aarch64-linux-gnu`)
//! with Lambda's environment and the template's, and sent a real API Gateway event through
//! the Runtime API stub, twice (the first and a warm event), over moto with the seeded
//! payment; its answers are checked. The SDK reads the bundle's own partitions.json, as
//! template.yaml has it read `/var/task/partitions.json`.
//!
//! Needs the cross toolchain and qemu: `bash scripts/arm64.sh toolchain` (make test runs it).
//! The build is a no-op when the bootstrap is up to date; cold, it is a few minutes of the
//! release profile (see the Makefile's `test`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::Duration,
};

use paygate_aws::moto::MotoServer;
use paygate_tests::bench::{
    cases::{self, Ctx},
    events,
    functions::{self, LocalRun},
    runtime_stub::{Outcome, RuntimeStub},
};
use serde_json::Value;

const BIN: &str = "get-payment";
/// Start-up and one event under emulation, on a shared 2-core machine.
const PATIENCE: Duration = Duration::from_secs(90);
/// `e_machine` of an aarch64 ELF file.
const EM_AARCH64: u16 = 183;

fn script(args: &[&str]) -> Result<(), String> {
    let out = Command::new("bash")
        .arg(functions::workspace_root().join("scripts/arm64.sh"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("bash scripts/arm64.sh: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "scripts/arm64.sh {}: {}\n{}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The ELF machine of `path` (bytes 18..20, little endian).
fn elf_machine(path: &Path) -> Option<u16> {
    let bytes = std::fs::read(path).ok()?;
    (bytes.get(..4)? == b"\x7fELF").then_some(())?;
    Some(u16::from_le_bytes([*bytes.get(18)?, *bytes.get(19)?]))
}

fn log_path() -> PathBuf {
    std::env::temp_dir().join(format!("paygate-arm64-{BIN}-{}.log", std::process::id()))
}

fn log_tail() -> String {
    let text = std::fs::read_to_string(log_path()).unwrap_or_default();
    let start = text.len().saturating_sub(3000);
    text.get(start..).unwrap_or(&text).to_owned()
}

#[tokio::test]
async fn the_arm64_bootstrap_answers_real_events_under_qemu() {
    if let Err(e) = script(&["check"]) {
        panic!("the arm64 test needs the cross toolchain and qemu (make test installs them): {e}");
    }
    // Release, as shipped (a no-op when up to date).
    let started = std::time::Instant::now();
    let build = tokio::task::spawn_blocking(|| script(&["build", BIN]));

    let moto = MotoServer::shared().expect("moto server starts (is moto_server installed?)");
    let run = LocalRun::start(moto, "arm")
        .await
        .expect("dev server starts");
    let stack = run.stack();
    let ctx = Ctx::new(&run.server)
        .await
        .expect("pipeline endpoint registered");
    let function = functions::template_functions()
        .into_iter()
        .find(|f| f.bin == BIN)
        .expect("get-payment is a template function");
    build
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("the arm64 build: {e}"));
    eprintln!("arm64 {BIN}: built in {:?}", started.elapsed());

    let lambda = functions::workspace_root().join("target/lambda");
    let bootstrap = lambda.join(BIN).join("bootstrap");
    assert_eq!(
        elf_machine(&bootstrap),
        Some(EM_AARCH64),
        "{} is an aarch64 ELF",
        bootstrap.display()
    );
    assert!(
        lambda.join(format!("{BIN}.zip")).is_file(),
        "the zip beside the CodeUri folder"
    );

    let stub = RuntimeStub::start().await.unwrap();
    let mut env = stub.lambda_env(BIN);
    env.extend(stack.env(&function).unwrap());
    // The template's /var/task/partitions.json: the bundle's own copy, which the SDK reads
    // building its first client (a bundle without it fails at init).
    let partitions = lambda.join(BIN).join(paygate_aws::partitions::BUNDLE_FILE);
    assert!(
        partitions.is_file(),
        "{} is in the bundle",
        partitions.display()
    );
    env.retain(|(k, _)| k != paygate_aws::partitions::VAR);
    env.push((
        paygate_aws::partitions::VAR.to_owned(),
        partitions.display().to_string(),
    ));
    let log = std::fs::File::create(log_path()).unwrap();
    let mut child = Command::new("qemu-aarch64-static")
        .arg("-L")
        .arg("/usr/aarch64-linux-gnu")
        .arg(&bootstrap)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .expect("qemu-aarch64-static starts");

    let mut failures = Vec::new();
    for round in 1..=2 {
        let inv = ctx.invocation(BIN).await.unwrap();
        let id = stub.push(&inv.event);
        let sent = std::time::Instant::now();
        let answer = match stub.outcome(&id, PATIENCE).await {
            Some(Outcome::Response(body)) => serde_json::from_slice::<Value>(&body).ok(),
            Some(Outcome::Error { error_type, body }) => {
                failures.push(format!(
                    "event {round}: error {error_type}: {}",
                    String::from_utf8_lossy(&body)
                ));
                break;
            }
            None => {
                failures.push(format!(
                    "event {round}: no answer within {PATIENCE:?} (exited: {:?}, init error: {:?})",
                    child.try_wait().ok().flatten(),
                    stub.init_error()
                ));
                break;
            }
        };
        eprintln!(
            "arm64 {BIN}: event {round} answered in {:?}",
            sent.elapsed()
        );
        let Some(answer) = answer else {
            failures.push(format!("event {round}: the response is not JSON"));
            break;
        };
        if let Err(e) = (inv.check)(&answer) {
            failures.push(format!("event {round}: {e}"));
        }
        // The seeded payment as stored (infra/local/seed.json).
        let (_, body) = events::http_answer(&answer);
        for (pointer, want) in [
            ("/id", Value::from(cases::SEEDED_PAYMENT)),
            ("/amount", Value::from(24_990)),
            ("/currency", Value::from("TRY")),
            ("/status", Value::from("captured")),
        ] {
            if body.pointer(pointer) != Some(&want) {
                failures.push(format!("event {round}: {pointer} is not {want}: {body}"));
            }
        }
        // Back for the next event after answering.
        if stub
            .wait_next(round + 1, Duration::from_secs(20))
            .await
            .is_none()
        {
            failures.push(format!("event {round}: did not ask for the next event"));
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        failures.is_empty(),
        "{}\n--- its log (tail) ---\n{}",
        failures.join("\n"),
        log_tail()
    );
    let _ = std::fs::remove_file(log_path());
}
