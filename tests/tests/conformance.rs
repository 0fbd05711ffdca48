//! Conformance of the running API to `docs/openapi.yaml`, checked by schemathesis (PyPI,
//! pinned in `scripts/venv.sh`, venv `.venv/st/`): every check, every phase (examples,
//! coverage, fuzzing, stateful), the merchant API (Bearer) and the admin API (SigV4 through
//! the hooks of `tests/conformance/hooks.py`), against a fresh local stack. Configuration:
//! `tests/conformance/schemathesis.toml` (bounded example count, the documented
//! state-dependent statuses). docs/api.md, "Conformance".
//!
//! Knobs: `PAYGATE_ST_MAX_EXAMPLES` (examples per operation), `PAYGATE_ST_SEED` (default 1;
//! the generated inputs follow the seed, but the server's ids and the stateful phase's paths
//! through them differ run to run, so another seed explores other inputs, not a new world).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test: failing is the point

use std::{path::PathBuf, process::Command, time::Instant};

use paygate_domain::Mode;
use paygate_tests::{admin::admin_credentials, api_key, Stack, ANATOLIA};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_conforms_to_its_openapi_document_under_schemathesis() {
    let root = root();
    let st = root.join(".venv/st/bin/schemathesis");
    if !st.exists() {
        eprintln!(
            "SKIPPED: {} is missing; `bash scripts/venv.sh schemathesis` installs it \
             (`make test` does)",
            st.display()
        );
        return;
    }
    let stack = Stack::start_labeled("conformance").await;
    let admin = admin_credentials();
    let conf = root.join("tests/conformance");
    let mut cmd = Command::new(&st);
    cmd.current_dir(&root)
        .arg("--config-file")
        .arg(conf.join("schemathesis.toml"))
        .arg("run")
        .arg(root.join("docs/openapi.yaml"))
        .args(["--url", &stack.url])
        .args(["--checks", "all"])
        .args(["--phases", "examples,coverage,fuzzing,stateful"])
        .args([
            "--seed",
            &std::env::var("PAYGATE_ST_SEED").unwrap_or_else(|_| "1".into()),
        ])
        .arg("--no-color")
        .env("SCHEMATHESIS_HOOKS", "hooks")
        .env("PYTHONPATH", &conf)
        .env("PAYGATE_ST_API_KEY", api_key(ANATOLIA, Mode::Test))
        .env("PAYGATE_ST_ADMIN_KEY", &admin.access_key_id)
        .env("PAYGATE_ST_ADMIN_SECRET", &admin.secret_access_key)
        .env("PAYGATE_ST_ADMIN_REGION", &admin.region);
    if let Ok(n) = std::env::var("PAYGATE_ST_MAX_EXAMPLES") {
        cmd.args(["--max-examples", &n]);
    }
    let started = Instant::now();
    let out = tokio::task::spawn_blocking(move || cmd.output())
        .await
        .unwrap()
        .expect("schemathesis starts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The summary: the whole report is long; its tail carries the counts and failures.
    println!("{stdout}\n{stderr}");
    println!(
        "schemathesis finished in {:.1} s with {}",
        started.elapsed().as_secs_f64(),
        out.status
    );
    assert!(
        out.status.success(),
        "schemathesis found failures (report above): {}",
        out.status
    );
    drop(stack);
}
