//! `paygate keys create|list|roll|revoke`: the merchant's API keys. A key is printed once,
//! when issued or rolled; the API never returns it again.

use std::io::Write;

use clap::{Args, Subcommand};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::{
    commands::endpoints::{parse_grace, Mode},
    config::Ctx,
    model::decode,
    output::{self, NONE},
    CliError,
};

#[derive(Debug, Clone, Subcommand)]
pub enum KeysCommand {
    /// Issue an API key for a mode; prints the key, once.
    Create(CreateKeyArgs),
    /// The merchant's keys (never the keys themselves).
    List,
    /// A new key now; the old one keeps working for a while (default 24h, at most 7d).
    Roll(RollArgs),
    /// Revoke a key at once.
    Revoke(KeyIdArg),
}

#[derive(Debug, Clone, Args)]
pub struct CreateKeyArgs {
    #[arg(long, value_enum)]
    pub mode: Mode,
    /// A name to tell keys apart (at most 100 characters).
    #[arg(long)]
    pub name: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct KeyIdArg {
    /// The key's id (`key_…`), never the key itself.
    #[arg(value_name = "KEY_ID")]
    pub id: String,
}

#[derive(Debug, Clone, Args)]
pub struct RollArgs {
    /// The key's id (`key_…`).
    #[arg(value_name = "KEY_ID")]
    pub id: String,
    /// How long the old key keeps working: whole hours from 1h to 7d (`2h`, `24h`, `7d`);
    /// the API's 24h when absent.
    #[arg(long = "expires-in", value_parser = parse_hours)]
    pub expires_in_hours: Option<i64>,
}

/// `2h`, `24h`, `7d`, … as whole hours from 1 to 168.
pub fn parse_hours(s: &str) -> Result<i64, String> {
    let secs = parse_grace(s)?;
    if secs % 3_600 != 0 || !(1..=168).contains(&(secs / 3_600)) {
        return Err(format!("{s:?} must be whole hours from 1h to 7d (168h)"));
    }
    Ok(secs / 3_600)
}

/// An API key as the admin API answers it (`secret` only when issued or rolled).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiKey {
    pub id: String,
    pub prefix: String,
    pub last4: String,
    pub mode: String,
    #[serde(default)]
    pub name: String,
    pub created_at: String,
    #[serde(default)]
    pub expires_at: Option<String>,
    #[serde(default)]
    pub last_used_at: Option<String>,
    pub status: String,
    #[serde(default)]
    pub secret: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ApiKeyList {
    pub data: Vec<ApiKey>,
}

/// A new key: its fields and the key itself, with the warning.
pub fn issued(k: &ApiKey) -> String {
    let mut out = output::fields(&[
        ("id", k.id.clone()),
        ("mode", k.mode.clone()),
        (
            "name",
            if k.name.is_empty() {
                NONE.into()
            } else {
                k.name.clone()
            },
        ),
        ("created", k.created_at.clone()),
    ]);
    out.push_str(&format!(
        "\nAPI key: {}\nStore it now: it will not be shown again.\n",
        k.secret.as_deref().unwrap_or(NONE)
    ));
    out
}

/// The keys as a table (never a secret).
pub fn keys_table(keys: &[ApiKey]) -> String {
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| NONE.to_owned());
    let rows: Vec<Vec<String>> = keys
        .iter()
        .map(|k| {
            vec![
                k.id.clone(),
                format!("{}…{}", k.prefix, k.last4),
                k.mode.clone(),
                k.status.clone(),
                k.created_at.clone(),
                opt(&k.last_used_at),
                opt(&k.expires_at),
                k.name.clone(),
            ]
        })
        .collect();
    output::table(
        &[
            "ID",
            "KEY",
            "MODE",
            "STATUS",
            "CREATED",
            "LAST USED",
            "EXPIRES",
            "NAME",
        ],
        &rows,
    )
}

fn print(ctx: &Ctx, answer: &Value, text: String, out: &mut dyn Write) -> Result<(), CliError> {
    if ctx.json {
        out.write_all(output::json(answer).as_bytes())?;
    } else {
        out.write_all(text.as_bytes())?;
    }
    Ok(())
}

pub async fn create(ctx: &Ctx, a: &CreateKeyArgs, out: &mut dyn Write) -> Result<ApiKey, CliError> {
    let mut body = json!({ "mode": a.mode.as_str() });
    if let Some(n) = &a.name {
        body["name"] = json!(n);
    }
    let answer = ctx.admin()?.create_api_key(&body).await?;
    let key: ApiKey = decode("API key create", &answer)?;
    print(ctx, &answer, issued(&key), out)?;
    Ok(key)
}

pub async fn list(ctx: &Ctx, out: &mut dyn Write) -> Result<Vec<ApiKey>, CliError> {
    let answer = ctx.admin()?.list_api_keys().await?;
    let list: ApiKeyList = decode("API key list", &answer)?;
    print(ctx, &answer, keys_table(&list.data), out)?;
    Ok(list.data)
}

pub async fn roll(ctx: &Ctx, a: &RollArgs, out: &mut dyn Write) -> Result<ApiKey, CliError> {
    let answer = ctx.admin()?.roll_api_key(&a.id, a.expires_in_hours).await?;
    let key: ApiKey = decode("API key roll", &answer)?;
    let text = format!(
        "rolled {} (it keeps working until its expiry)\n{}",
        a.id,
        issued(&key)
    );
    print(ctx, &answer, text, out)?;
    Ok(key)
}

pub async fn revoke(ctx: &Ctx, id: &str, out: &mut dyn Write) -> Result<ApiKey, CliError> {
    let answer = ctx.admin()?.revoke_api_key(id).await?;
    let key: ApiKey = decode("API key revoke", &answer)?;
    print(ctx, &answer, format!("revoked {}\n", key.id), out)?;
    Ok(key)
}

pub async fn run(ctx: &Ctx, cmd: &KeysCommand, out: &mut dyn Write) -> Result<(), CliError> {
    match cmd {
        KeysCommand::Create(a) => create(ctx, a, out).await.map(drop),
        KeysCommand::List => list(ctx, out).await.map(drop),
        KeysCommand::Roll(a) => roll(ctx, a, out).await.map(drop),
        KeysCommand::Revoke(a) => revoke(ctx, &a.id, out).await.map(drop),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(secret: Option<&str>) -> ApiKey {
        serde_json::from_value(json!({
            "id": "key_1", "prefix": "sk_test_", "last4": "beef", "mode": "test",
            "name": "", "createdAt": "2026-11-21T09:00:00.000Z", "expiresAt": null,
            "lastUsedAt": null, "status": "active", "secret": secret
        }))
        .unwrap()
    }

    #[test]
    fn hours_are_whole_and_bounded() {
        assert_eq!(parse_hours("2h"), Ok(2));
        assert_eq!(parse_hours("7d"), Ok(168));
        assert_eq!(parse_hours("3600"), Ok(1));
        for bad in ["0", "30m", "8d", "1.5h", "h"] {
            assert!(parse_hours(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_key_is_printed_once_with_the_warning_and_never_in_the_table() {
        let secret = "sk_test_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        let text = issued(&key(Some(secret)));
        assert!(text.contains(secret));
        assert!(text.contains("will not be shown again"));
        let table = keys_table(&[key(None)]);
        assert!(table.contains("sk_test_…beef"));
        assert!(table.contains("active"));
        assert!(!table.contains("0123456789abcdef"));
    }
}
