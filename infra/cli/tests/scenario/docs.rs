//! The docs' runnable examples run as written, and answer what the docs show.
//!
//! A shell block of `README.md` or `docs/*.md` preceded by `<!-- runnable: <group> -->` is
//! run: the blocks of one group in document order, in one `bash` (`set -eu`, so an undefined
//! variable fails), from the repository root, against one fresh local stack shared by every
//! group, with `PAYGATE_PORT` set to the stack's port (as a reader exports it after
//! `PAYGATE_PORT=… make dev`) and the built `paygate` on the `PATH`. The stack runs like
//! `make dev` with `PAYGATE_WEBHOOK_ALLOW_ADDRS=127.0.0.1`, and its reconciler runs every
//! second (`make dev`: every 10 s), so a walk-through that races it fails here.
//!
//! What a block is expected to print: its whole-line `#` comments, then the plain, `json`
//! or `text` block right after it, if any. Compared after normalizing both sides: lines
//! trimmed and joined; generated ids, signing secrets, timestamps and the fields `id`,
//! `transactionId`, `paymentId`, `authCode`, `rrn`, `orderId` and the `…At` times replaced
//! by placeholders; `…` in the expected output stands for any text.

use std::{
    path::{Path, PathBuf},
    process::Command,
    time::Duration,
};

use paygate_cli::listen::{ensure_cert, CertPaths};

use crate::support::start_stack_reconciling;

const MARKER: &str = "<!-- runnable: ";

/// The groups the docs must keep runnable (a renamed or dropped marker fails the test).
const GROUPS: [&str; 6] = ["tour", "idempotency", "admin", "triggers", "cli", "verify"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A runnable block: where it is, its group, its script and the output it shows.
#[derive(Clone)]
struct Block {
    at: String,
    group: String,
    script: String,
    expected: String,
}

fn blocks_of(file: &str, doc: &str) -> Vec<Block> {
    let lines: Vec<&str> = doc.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(group) = lines[i]
            .strip_prefix(MARKER)
            .and_then(|r| r.strip_suffix(" -->"))
        else {
            i += 1;
            continue;
        };
        let at = format!("{file}:{}", i + 1);
        assert_eq!(
            lines.get(i + 1).copied(),
            Some("```sh"),
            "{at}: a runnable marker goes right before a ```sh block"
        );
        let mut j = i + 2;
        let mut script = Vec::new();
        while !lines[j].starts_with("```") {
            script.push(lines[j]);
            j += 1;
        }
        let mut expected: Vec<&str> = script.iter().filter_map(|l| l.strip_prefix('#')).collect();
        if matches!(lines.get(j + 1), Some(&("```" | "```json" | "```text"))) {
            j += 2;
            while !lines[j].starts_with("```") {
                expected.push(lines[j]);
                j += 1;
            }
        }
        blocks.push(Block {
            at,
            group: group.to_owned(),
            script: script.join("\n"),
            expected: expected.join("\n"),
        });
        i = j + 1;
    }
    blocks
}

/// Replaces, after each `prefix`, a run of bytes `keep` accepts that is at least `min`
/// long with `~`.
fn mask_runs(text: &str, prefix: &str, min: usize, keep: fn(u8) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        let after = at + prefix.len();
        let run = rest.as_bytes()[after..]
            .iter()
            .take_while(|b| keep(**b))
            .count();
        out.push_str(&rest[..after]);
        if run >= min {
            out.push('~');
        } else {
            out.push_str(&rest[after..after + run]);
        }
        rest = &rest[after + run..];
    }
    out.push_str(rest);
    out
}

/// Whether `b` starts an ISO 8601 UTC time (`2026-11-21T10:09:55Z`, fraction optional);
/// its length.
fn timestamp_len(b: &[u8]) -> Option<usize> {
    const SHAPE: &[u8] = b"dddd-dd-ddTdd:dd:dd";
    if b.len() < SHAPE.len()
        || !SHAPE.iter().zip(b).all(|(s, c)| {
            if *s == b'd' {
                c.is_ascii_digit()
            } else {
                s == c
            }
        })
    {
        return None;
    }
    let mut n = SHAPE.len();
    if b.get(n) == Some(&b'.') {
        n += 1 + b[n + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
    }
    (b.get(n) == Some(&b'Z')).then_some(n + 1)
}

fn normalize(text: &str) -> String {
    let mut t: String = text.lines().map(str::trim).collect();
    for key in [
        "id",
        "transactionId",
        "paymentId",
        "authCode",
        "rrn",
        "orderId",
        "createdAt",
        "updatedAt",
        "startedAt",
    ] {
        t = mask_runs(&t, &format!("\"{key}\":\""), 0, |b| b != b'"');
    }
    for prefix in ["pay_", "txn_", "evt_", "dlv_", "whe_", "key_"] {
        t = mask_runs(&t, prefix, 26, |b| {
            b.is_ascii_digit() || b.is_ascii_lowercase()
        });
    }
    t = mask_runs(&t, "whsec_", 64, |b| b.is_ascii_hexdigit());
    let mut out = String::with_capacity(t.len());
    let mut i = 0;
    while i < t.len() {
        if let Some(n) = timestamp_len(&t.as_bytes()[i..]) {
            out.push_str("~T");
            i += n;
        } else {
            let c = t[i..].chars().next().unwrap_or_default();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// `actual` matches `expected`, where `…` stands for any text.
fn matches(expected: &str, actual: &str) -> bool {
    let pieces: Vec<&str> = expected.split('…').collect();
    let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
    if pieces.len() == 1 {
        return expected == actual;
    }
    let Some(rest) = actual.strip_prefix(first) else {
        return false;
    };
    let Some(mut middle) = rest.strip_suffix(last) else {
        return false;
    };
    for piece in &pieces[1..pieces.len() - 1] {
        match middle.find(piece) {
            Some(at) => middle = &middle[at + piece.len()..],
            None => return false,
        }
    }
    true
}

/// Runs one group's blocks in one bash; each block's output.
fn run_group(blocks: &[&Block], port: u16) -> Vec<String> {
    let mut script = String::from("set -eu\n");
    for (n, block) in blocks.iter().enumerate() {
        script.push_str(&format!("printf '\\n@@block {n}@@\\n'\n{}\n", block.script));
    }
    let bin = Path::new(env!("CARGO_BIN_EXE_paygate")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["-c", &script])
        .current_dir(root())
        .env("PATH", path)
        .env("PAYGATE_PORT", port.to_string())
        .env_remove("PAYGATE_API_URL")
        .env_remove("PAYGATE_MERCHANT")
        .env_remove("PAYGATE_API_KEY")
        .env_remove("PAYGATE_LOCAL")
        .env_remove("PAYGATE_SEED")
        .env_remove("PAYGATE_WEBHOOK_SECRET")
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "the blocks from {} failed ({}):\n{}\n{stdout}",
        blocks[0].at,
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let mut outputs = vec![String::new(); blocks.len()];
    for part in stdout.split("\n@@block ").skip(1) {
        let (n, text) = part.split_once("@@\n").unwrap_or((part, ""));
        outputs[n.parse::<usize>().unwrap()] = text.to_owned();
    }
    outputs
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_runnable_example_in_the_docs_runs_as_shown() {
    let mut files = vec!["README.md".to_owned()];
    let mut listed: Vec<String> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    listed.sort();
    files.extend(listed);
    let blocks: Vec<Block> = files
        .iter()
        .flat_map(|f| blocks_of(f, &std::fs::read_to_string(root().join(f)).unwrap()))
        .collect();
    let mut groups: Vec<&str> = Vec::new();
    for b in &blocks {
        if !groups.contains(&b.group.as_str()) {
            groups.push(&b.group);
        }
    }
    for g in GROUPS {
        assert!(groups.contains(&g), "no runnable block of group {g}");
    }

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("paygate-cli-docs-{}", std::process::id()));
    let paths = CertPaths::in_dir(&dir);
    ensure_cert(&paths).unwrap();
    let stack = start_stack_reconciling(
        std::fs::read(&paths.cert).unwrap(),
        Some(Duration::from_secs(1)),
    )
    .await;
    let port: u16 = stack.url.rsplit(':').next().unwrap().parse().unwrap();

    let mut failures = Vec::new();
    for group in groups {
        let of_group: Vec<&Block> = blocks.iter().filter(|b| b.group == group).collect();
        let owned: Vec<Block> = of_group.iter().map(|b| (*b).clone()).collect();
        let outputs =
            tokio::task::spawn_blocking(move || run_group(&owned.iter().collect::<Vec<_>>(), port))
                .await
                .unwrap();
        for (block, actual) in of_group.iter().zip(outputs) {
            if block.expected.is_empty() {
                continue;
            }
            let (want, got) = (normalize(&block.expected), normalize(&actual));
            if !matches(&want, &got) {
                failures.push(format!(
                    "{} ({group}):\n  shown:   {want}\n  printed: {got}",
                    block.at
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "runnable examples print something else than the docs show:\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_comparison_masks_what_varies_and_reads_ellipses() {
    let shown = "{\"id\":\"pay_yhm65wk14kmpq7nq8hpvvwwt54\",…,\"status\":\"captured\",…}\nHTTP 200";
    let printed = "{\"id\":\"pay_aaaaaaaaaaaaaaaaaaaaaaaaaa\",\"amount\":1,\"status\":\"captured\",\"createdAt\":\"2026-11-21T10:09:55.123Z\"}\nHTTP 200\n";
    assert!(matches(&normalize(shown), &normalize(printed)));
    let other_status = printed.replace("captured", "refunded");
    assert!(!matches(&normalize(shown), &normalize(&other_status)));
    assert!(!matches(&normalize(shown), &normalize("HTTP 200")));
    assert_eq!(
        normalize("1  2026-11-27T07:44:11.480Z  whsec_49ac176d2ded7d2e566171bd609b8e8317f1109e32e91af879c3550f2ea007bf"),
        "1  ~T  whsec_~"
    );
    assert_eq!(
        normalize("dlv_jv6twy4yfnq4adb57ec1me1ea1ssxwhmqry9zwvn7vpj0gdv4mm1 pay_anatoliaAuth1"),
        "dlv_~ pay_anatoliaAuth1"
    );
}
