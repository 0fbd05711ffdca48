//! The merchant verification snippets (Python, Node) of docs/webhooks.md really verify the gateway's
//! signatures: each is run against a header the gateway's own signer produced, and against
//! a tampered body, a wrong secret and a stale timestamp.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

fn snippet(marker: &str) -> String {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/webhooks.md"))
            .unwrap();
    let after = readme
        .split(marker)
        .nth(1)
        .unwrap_or_else(|| panic!("docs/webhooks.md lacks {marker}"));
    let start = after.find("```").unwrap();
    let body = &after[start..];
    let first_newline = body.find('\n').unwrap();
    let end = body[first_newline..].find("```").unwrap();
    body[first_newline + 1..first_newline + end].to_owned()
}

const SECRET: &str = "whsec_readme_check";
const BODY: &str = r#"{"id":"evt_1","type":"payment.captured","data":{"amount":100}}"#;
const T: i64 = 1_795_251_600;

fn header() -> String {
    paygate_webhooks::signature::header(T, &["whsec_old_one", SECRET], BODY.as_bytes())
}

fn run(program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program} must be installed: {e}"));
    assert!(
        out.status.success(),
        "{program} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn python_snippet_verifies_gateway_signatures() {
    let code = format!(
        "{}\nh = {h:?}\nb = {b:?}.encode()\nprint(verify(h, b, {s:?}, now={t}), verify(h, b + b' ', {s:?}, now={t}), verify(h, b, 'whsec_wrong', now={t}), verify(h, b, {s:?}, now={t} + 301))\n",
        snippet("<!-- verify-python -->"),
        h = header(),
        b = BODY,
        s = SECRET,
        t = T,
    );
    assert_eq!(
        run("python3", &["-c", &code]).trim(),
        "True False False False"
    );
}

#[test]
fn node_snippet_verifies_gateway_signatures() {
    let code = format!(
        "{}\nconst h = {h:?}; const b = Buffer.from({b:?});\nconsole.log([verify(h, b, {s:?}, 300, {t}), verify(h, Buffer.concat([b, Buffer.from(' ')]), {s:?}, 300, {t}), verify(h, b, 'whsec_wrong', 300, {t}), verify(h, b, {s:?}, 300, {t} + 301)].join(' '));\n",
        snippet("<!-- verify-node -->"),
        h = header(),
        b = BODY,
        s = SECRET,
        t = T,
    );
    assert_eq!(run("node", &["-e", &code]).trim(), "true false false false");
}
