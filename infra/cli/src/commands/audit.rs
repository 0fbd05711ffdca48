//! `paygate audit list`: the merchant's admin audit trail, newest first: who (the IAM
//! principal), what (action and ids), when, and how it ended.

use std::io::Write;

use clap::{Args, Subcommand};
use serde_json::Value;

use crate::{
    config::Ctx,
    output::{self, NONE},
    CliError,
};

#[derive(Debug, Clone, Subcommand)]
pub enum AuditCommand {
    /// One page of the audit trail: every admin write, newest first.
    List(ListArgs),
}

#[derive(Debug, Clone, Args)]
pub struct ListArgs {
    /// Page size, 1 to 100 (the API's default: 20).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=100))]
    pub limit: Option<u16>,
    /// The `more: --cursor …` of the previous page.
    #[arg(long)]
    pub cursor: Option<String>,
}

impl ListArgs {
    pub fn query(&self) -> Vec<(&'static str, String)> {
        let mut q = Vec::new();
        if let Some(l) = self.limit {
            q.push(("limit", l.to_string()));
        }
        if let Some(c) = &self.cursor {
            q.push(("cursor", c.clone()));
        }
        q
    }
}

/// `ids` of a record's `targets`, `key=value` joined.
fn targets(v: &Value) -> String {
    let joined = v
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    if joined.is_empty() {
        NONE.to_owned()
    } else {
        joined
    }
}

/// A page of `audit list`: one row per record, then the next page's cursor.
pub fn page(answer: &Value) -> String {
    let text = |r: &Value, k: &str| r[k].as_str().unwrap_or(NONE).to_owned();
    let rows: Vec<Vec<String>> = answer["data"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|r| {
            let outcome = match (r["status"].as_u64(), r["errorCode"].as_str()) {
                (Some(s), Some(code)) => format!("{} {s} {code}", text(r, "outcome")),
                (Some(s), None) => format!("{} {s}", text(r, "outcome")),
                _ => text(r, "outcome"),
            };
            vec![
                text(r, "at"),
                text(r, "action"),
                outcome,
                text(r, "mode"),
                targets(&r["targets"]),
                text(r, "principal"),
                text(r, "requestId"),
            ]
        })
        .collect();
    let mut out = if rows.is_empty() {
        "no admin writes recorded\n".to_owned()
    } else {
        output::table(
            &[
                "AT",
                "ACTION",
                "OUTCOME",
                "MODE",
                "TARGETS",
                "PRINCIPAL",
                "REQUEST ID",
            ],
            &rows,
        )
    };
    if let Some(c) = answer["nextCursor"].as_str() {
        out.push_str(&format!("\nmore: --cursor {c}\n"));
    }
    out
}

/// `audit list`: one page.
pub async fn list(ctx: &Ctx, args: &ListArgs, out: &mut dyn Write) -> Result<Value, CliError> {
    let admin = ctx.admin()?;
    let url = admin.url(&["audit"], &args.query())?;
    let answer = admin.call(reqwest::Method::GET, url, None).await?;
    if ctx.json {
        out.write_all(output::json(&answer).as_bytes())?;
    } else {
        out.write_all(page(&answer).as_bytes())?;
    }
    Ok(answer)
}

pub async fn run(ctx: &Ctx, cmd: &AuditCommand, out: &mut dyn Write) -> Result<(), CliError> {
    match cmd {
        AuditCommand::List(a) => list(ctx, a, out).await.map(drop),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_page_shows_who_did_what_and_the_next_cursor() {
        let text = page(&json!({
            "data": [{
                "id": "aud_1", "merchantId": "mch_a", "at": "2026-11-21T09:30:00.000Z",
                "principal": "arn:aws:iam::1:user/ops", "action": "api_key.roll",
                "targets": {"keyId": "key_1", "newKeyId": "key_2"}, "summary": {},
                "mode": "live", "requestId": "r-1", "outcome": "rejected", "status": 409,
                "errorCode": "api_key_inactive"
            }],
            "nextCursor": "abc"
        }));
        assert!(text.starts_with("AT "), "{text}");
        for part in [
            "api_key.roll",
            "rejected 409 api_key_inactive",
            "keyId=key_1 newKeyId=key_2",
            "arn:aws:iam::1:user/ops",
            "live",
            "r-1",
            "more: --cursor abc",
        ] {
            assert!(text.contains(part), "{part} in {text}");
        }
        assert_eq!(
            page(&json!({"data": [], "nextCursor": null})),
            "no admin writes recorded\n"
        );
    }
}
