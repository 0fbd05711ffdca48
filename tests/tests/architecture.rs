//! `docs/ARCHITECTURE.md` stays true: every file it names exists, and the crates depend on
//! each other only as its table allows (read from `cargo metadata`): the domain imports none
//! of ours, adapters import only the domain (and the bank kit), nothing imports upward.
//! The README and every `docs/*.md` stay navigable: each relative link, anchor and code path
//! they name exists.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
    process::Command,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn every_path_the_architecture_map_names_exists() {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let mut named = 0;
    let mut missing = Vec::new();
    for piece in doc.split('`').skip(1).step_by(2) {
        let looks_like_path = ["shared/", "functions/", "infra/", "tests/", "docs/"]
            .iter()
            .any(|p| piece.starts_with(p))
            || piece == "template.yaml";
        if !looks_like_path || piece.contains(['<', '*', ' ']) {
            continue;
        }
        named += 1;
        if !root().join(piece).exists() {
            missing.push(piece.to_owned());
        }
    }
    assert!(named > 40, "the map names files ({named})");
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md names missing paths: {missing:?}"
    );
}

/// Workspace package → the workspace packages it depends on (normal dependencies).
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages = meta["packages"].as_array().unwrap();
    let ours: BTreeSet<String> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect();
    packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"].is_null())
                .map(|d| d["name"].as_str().unwrap().to_owned())
                .filter(|n| ours.contains(n))
                .collect();
            (p["name"].as_str().unwrap().to_owned(), deps)
        })
        .collect()
}

#[test]
fn crates_depend_only_downward() {
    let g = graph();
    let allowed = |name: &str| -> Option<&'static [&'static str]> {
        Some(match name {
            "paygate-domain" | "paygate-tls" => &[],
            "paygate-payments" | "paygate-bank-simulator" => &["paygate-domain"],
            "paygate-webhooks" | "paygate-aws" | "paygate-bankkit" => {
                &["paygate-domain", "paygate-tls"]
            }
            "paygate-bank-nestpay"
            | "paygate-bank-garanti"
            | "paygate-bank-posnet"
            | "paygate-bank-payflex"
            | "paygate-bank-interpos"
            | "paygate-bank-payfor"
            | "paygate-bank-parampos"
            | "paygate-bank-toslapos"
            | "paygate-bank-vakifkatilim"
            | "paygate-bank-kuveytpos"
            | "paygate-bank-akbankpos"
            | "paygate-bank-posnetv1" => &["paygate-domain", "paygate-bankkit"],
            "paygate-http" => &["paygate-domain", "paygate-payments", "paygate-webhooks"],
            _ => return None,
        })
    };
    let mut wrong = Vec::new();
    for (name, deps) in &g {
        if let Some(ok) = allowed(name) {
            for d in deps {
                if !ok.contains(&d.as_str()) {
                    wrong.push(format!("{name} -> {d}"));
                }
            }
        }
        // Only the edges of the system (functions, infra, tests) may use the wiring.
        let edge = name.starts_with("fn-")
            || matches!(
                name.as_str(),
                "paygate-devserver" | "paygate-cli" | "paygate-tests"
            );
        if deps.contains("paygate-compose") && !edge {
            wrong.push(format!("{name} -> paygate-compose"));
        }
        // Nothing in shared/ depends on a function or on infra.
        if name.starts_with("paygate-") && !edge {
            for d in deps {
                if d.starts_with("fn-")
                    || matches!(
                        d.as_str(),
                        "paygate-devserver" | "paygate-cli" | "paygate-tests"
                    )
                {
                    wrong.push(format!("{name} -> {d}"));
                }
            }
        }
    }
    assert!(
        g.contains_key("paygate-domain") && g.len() > 20,
        "the workspace is read: {:?}",
        g.keys()
    );
    assert!(
        wrong.is_empty(),
        "dependencies against docs/ARCHITECTURE.md: {wrong:?}"
    );
}

/// Besides one package per Lambda and the bank crates, at most eleven crates: domain,
/// payments, http, aws, tls, compose, webhooks, bankkit, devserver, cli, tests.
#[test]
fn the_workspace_has_few_crates() {
    let g = graph();
    let functions = g.keys().filter(|n| n.starts_with("fn-")).count();
    let others: Vec<&String> = g
        .keys()
        .filter(|n| !n.starts_with("fn-") && !n.starts_with("paygate-bank-"))
        .collect();
    assert_eq!(functions, 15, "one package per Lambda");
    assert!(
        others.len() <= 11,
        "crates besides functions and banks: {others:?}"
    );
}

/// GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces
/// to `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// A Markdown file's lines outside fenced code blocks.
fn prose(doc: &str) -> Vec<&str> {
    let mut fenced = false;
    doc.lines()
        .filter(|l| {
            if l.starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

fn anchors(doc: &str) -> BTreeSet<String> {
    prose(doc)
        .into_iter()
        .filter_map(|l| {
            l.trim_start_matches('#')
                .strip_prefix(' ')
                .filter(|_| l.starts_with('#'))
        })
        .map(anchor)
        .collect()
}

/// Generated, git-ignored places the docs name.
const GENERATED: [&str; 2] = ["fuzz/corpus", "fuzz/artifacts"];

#[test]
fn every_link_anchor_and_path_in_the_docs_exists() {
    let mut docs = vec![root().join("README.md")];
    let mut listed: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    listed.sort();
    docs.extend(listed);
    let link = regex_lite::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let code = regex_lite::Regex::new(r"`([^`]+)`").unwrap();
    let path_like = regex_lite::Regex::new(
        r"^((shared|functions|infra|tests|docs|fuzz|scripts|\.ci)/|(template\.yaml|samconfig\.toml|Makefile|deny\.toml|clippy\.toml|Cargo\.toml)$)",
    )
    .unwrap();
    let (mut links, mut paths) = (0, 0);
    let mut missing = Vec::new();
    for doc_path in &docs {
        let name = doc_path
            .strip_prefix(root())
            .unwrap_or(doc_path)
            .display()
            .to_string();
        let doc = std::fs::read_to_string(doc_path).unwrap();
        let dir = doc_path.parent().unwrap();
        for line in prose(&doc) {
            for target in link.captures_iter(line).map(|c| c[1].to_owned()) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                links += 1;
                let (file, fragment) = target.split_once('#').unwrap_or((&target, ""));
                let file = if file.is_empty() {
                    doc_path.clone()
                } else {
                    dir.join(file)
                };
                if !file.exists() {
                    missing.push(format!("{name}: link {target}: no such file"));
                    continue;
                }
                if !fragment.is_empty()
                    && file.extension().is_some_and(|e| e == "md")
                    && !anchors(&std::fs::read_to_string(&file).unwrap()).contains(fragment)
                {
                    missing.push(format!("{name}: link {target}: no such heading"));
                }
            }
            for piece in code.captures_iter(line).map(|c| c[1].to_owned()) {
                let piece = piece.split(':').next().unwrap_or_default();
                if !path_like.is_match(piece)
                    || piece.contains(['<', '>', '*', '{', '}', '…', ' '])
                    || GENERATED.iter().any(|g| piece.starts_with(g))
                {
                    continue;
                }
                paths += 1;
                if !root().join(piece).exists() {
                    missing.push(format!("{name}: path {piece}: no such file"));
                }
            }
        }
    }
    assert!(
        docs.len() >= 8 && links > 50 && paths > 100,
        "{} docs, {links} links, {paths} paths",
        docs.len()
    );
    assert!(
        missing.is_empty(),
        "the docs name what is not there:\n{}",
        missing.join("\n")
    );
}

/// Every function runs on Tokio's `current_thread` runtime: Lambda hands a container one
/// event at a time, so a multi-thread runtime's workers (one per core) only add start-up
/// time and memory (issue 20). `make bench` shows the threads of each ready process.
#[test]
fn every_function_runs_on_one_thread() {
    let mut wrong = Vec::new();
    for dir in std::fs::read_dir(root().join("functions")).unwrap() {
        let main = dir.unwrap().path().join("src/main.rs");
        let text = std::fs::read_to_string(&main).unwrap();
        if !text.contains("#[tokio::main(flavor = \"current_thread\")]") {
            wrong.push(main);
        }
    }
    assert!(wrong.is_empty(), "not on current_thread: {wrong:?}");
}
