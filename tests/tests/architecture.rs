//! `docs/ARCHITECTURE.md` stays true: every file it names exists, and the crates depend on
//! each other only as its table allows (read from `cargo metadata`): the domain imports none
//! of ours, adapters import only the domain (and the bank kit), nothing imports upward.
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
            "paygate-domain" => &[],
            "paygate-payments"
            | "paygate-webhooks"
            | "paygate-aws"
            | "paygate-bankkit"
            | "paygate-bank-simulator" => &["paygate-domain"],
            "paygate-bank-nestpay"
            | "paygate-bank-garanti"
            | "paygate-bank-posnet"
            | "paygate-bank-payflex"
            | "paygate-bank-interpos"
            | "paygate-bank-payfor"
            | "paygate-bank-akbankpos" => &["paygate-domain", "paygate-bankkit"],
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

/// Besides one package per Lambda and the bank crates, at most ten crates: domain,
/// payments, http, aws, compose, webhooks, bankkit, devserver, cli, tests.
#[test]
fn the_workspace_has_few_crates() {
    let g = graph();
    let functions = g.keys().filter(|n| n.starts_with("fn-")).count();
    let others: Vec<&String> = g
        .keys()
        .filter(|n| !n.starts_with("fn-") && !n.starts_with("paygate-bank-"))
        .collect();
    assert_eq!(functions, 14, "one package per Lambda");
    assert!(
        others.len() <= 10,
        "crates besides functions and banks: {others:?}"
    );
}
