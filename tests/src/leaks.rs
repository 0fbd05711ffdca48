//! What must never reach a log (issue 10, item 5): the seed's secret values, and the
//! search of captured log text for secrets.

use serde_json::Value;

/// Every secret value of the seed: API keys, bank credentials' passwords and secrets,
/// webhook signing secrets.
pub fn seed_secrets() -> Vec<String> {
    let text = std::fs::read_to_string(paygate_devserver::default_seed_path()).unwrap();
    let seed: Value = serde_json::from_str(&text).unwrap();
    let mut out = Vec::new();
    for m in seed["merchants"].as_array().unwrap() {
        for k in m["apiKeys"].as_array().into_iter().flatten() {
            out.push(k["key"].as_str().unwrap().to_owned());
        }
        for a in m["accounts"].as_array().into_iter().flatten() {
            if let Some(c) = a["credentials"].as_object() {
                for (name, v) in c {
                    let lower = name.to_ascii_lowercase();
                    if lower.contains("password") || lower.contains("secret") {
                        out.push(v.as_str().unwrap().to_owned());
                    }
                }
            }
        }
    }
    for e in seed["webhookEndpoints"].as_array().into_iter().flatten() {
        if let Some(s) = e["secret"].as_str() {
            out.push(s.to_owned());
        }
    }
    assert!(
        out.len() > 10,
        "the seed's secrets were found: {}",
        out.len()
    );
    out
}

/// Each of `secrets` found in `text`, with (the start of) the line holding it.
pub fn leaks(text: &str, secrets: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for s in secrets {
        if let Some(at) = text.find(s.as_str()) {
            let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
            found.push(format!("{s}: {}", &text[start..end.min(start + 600)]));
        }
    }
    found
}
