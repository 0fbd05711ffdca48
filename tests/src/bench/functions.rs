//! The deployed functions as processes: their list and environment read from
//! `template.yaml` (each `AWS::Serverless::Function`'s `CodeUri` folder is its binary), the
//! environment resolved against a local stack, and the binary started as Lambda starts it
//! (only the Runtime API, Lambda's own variables, static credentials and the template's
//! variables; `AWS_ENDPOINT_URL` points the SDK at moto).

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
};

use paygate_devserver::DevServer;
use serde_norway::Value as Yaml;

/// The workspace root (where `template.yaml` lives).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A template value of an environment variable: a literal or a reference to a resource,
/// parameter or `!Sub` string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateValue {
    Literal(String),
    Ref(String),
    Sub(String),
}

/// One function of the template.
#[derive(Debug, Clone)]
pub struct TemplateFunction {
    /// The resource's logical id, e.g. `GetPaymentFunction`.
    pub logical_id: String,
    /// The binary: the `CodeUri` folder under `target/lambda/`, e.g. `get-payment`.
    pub bin: String,
    /// Its environment variables (the Globals' first, then its own).
    pub env: BTreeMap<String, TemplateValue>,
}

/// `v` in the template's default deploy: an `!If` is its `else` branch (every mode
/// parameter's default decides its conditions false), `None` when that is
/// `!Ref AWS::NoValue` (the variable is not set).
fn default_mode(v: &Yaml) -> Option<&Yaml> {
    match v {
        Yaml::Tagged(t) if t.tag.to_string().trim_start_matches('!') == "If" => {
            let otherwise = t.value.as_sequence()?.get(2)?;
            match otherwise {
                Yaml::Tagged(r) if r.value.as_str() == Some("AWS::NoValue") => None,
                other => default_mode(other),
            }
        }
        other => Some(other),
    }
}

fn template_value(v: &Yaml) -> TemplateValue {
    match v {
        Yaml::String(s) => TemplateValue::Literal(s.clone()),
        Yaml::Number(n) => TemplateValue::Literal(n.to_string()),
        Yaml::Bool(b) => TemplateValue::Literal(b.to_string()),
        Yaml::Tagged(t) => {
            let inner = t.value.as_str().unwrap_or_default().to_owned();
            match t.tag.to_string().trim_start_matches('!') {
                "Ref" => TemplateValue::Ref(inner),
                "Sub" => TemplateValue::Sub(inner),
                other => panic!("unsupported tag !{other} in a function environment"),
            }
        }
        other => panic!("unsupported environment value {other:?}"),
    }
}

fn env_of(node: Option<&Yaml>) -> BTreeMap<String, TemplateValue> {
    node.and_then(|n| n.get("Environment"))
        .and_then(|e| e.get("Variables"))
        .and_then(Yaml::as_mapping)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| {
                    let v = default_mode(v)?;
                    Some((k.as_str().unwrap_or_default().to_owned(), template_value(v)))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Every function of `template.yaml`, in template order.
pub fn template_functions() -> Vec<TemplateFunction> {
    let path = workspace_root().join("template.yaml");
    let text = std::fs::read_to_string(&path).expect("template.yaml is readable");
    let doc: Yaml = serde_norway::from_str(&text).expect("template.yaml parses");
    let globals = env_of(doc.get("Globals").and_then(|g| g.get("Function")));
    let resources = doc
        .get("Resources")
        .and_then(Yaml::as_mapping)
        .expect("template has Resources");
    resources
        .iter()
        .filter(|(_, r)| r.get("Type").and_then(Yaml::as_str) == Some("AWS::Serverless::Function"))
        .map(|(id, r)| {
            let props = r.get("Properties");
            let code_uri = props
                .and_then(|p| p.get("CodeUri"))
                .and_then(Yaml::as_str)
                .expect("every function has a CodeUri");
            let bin = code_uri
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .to_owned();
            let mut env = globals.clone();
            env.extend(env_of(props));
            TemplateFunction {
                logical_id: id.as_str().unwrap_or_default().to_owned(),
                bin,
                env,
            }
        })
        .collect()
}

/// The dev server over `moto`, seeded from `infra/local/seed.json`, with the real clock and
/// ids and every setting at its default: the stack the function binaries (the binaries test,
/// the bench) are run against. `prefix` names its tables, queues and secrets.
pub async fn start_server(
    moto: &paygate_aws::moto::MotoServer,
    prefix: &str,
) -> Result<DevServer, String> {
    let seed = paygate_devserver::Seed::from_file(&paygate_devserver::default_seed_path())
        .map_err(|e| format!("seed.json: {e}"))?;
    let options = paygate_devserver::Options {
        addr: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        seed,
        prefix: prefix.to_owned(),
        clock: std::sync::Arc::new(paygate_compose::system::SystemClock),
        ids: std::sync::Arc::new(paygate_compose::system::RandomIds),
        webhook: paygate_devserver::WebhookOptions::default(),
        bank_timeout: paygate_devserver::DEFAULT_BANK_TIMEOUT,
        reconcile_every: None,
        throttle: None,
        stale_after: None,
    };
    paygate_devserver::start_on(moto, options)
        .await
        .map_err(|e| format!("the local stack does not start: {e}"))
}

/// A local stack the function binaries run against: [`start_server`] under a fresh prefix,
/// and what the template's references resolve to there ([`LocalRun::stack`]).
pub struct LocalRun {
    pub server: DevServer,
    endpoint: String,
    prefix: String,
}

impl LocalRun {
    /// Starts the stack over `moto`; `tag` begins its unique prefix.
    pub async fn start(moto: &paygate_aws::moto::MotoServer, tag: &str) -> Result<Self, String> {
        let prefix = paygate_aws::moto::unique_prefix(tag);
        let server = start_server(moto, &prefix).await?;
        Ok(Self {
            server,
            endpoint: moto.endpoint.clone(),
            prefix,
        })
    }

    /// The template's references in this stack.
    pub fn stack(&self) -> LocalStack<'_> {
        LocalStack {
            server: &self.server,
            endpoint: self.endpoint.clone(),
            prefix: self.prefix.clone(),
        }
    }
}

/// The deploy hook's `PAYGATE_SMOKE_TARGETS` locally: version ARNs of the functions it
/// smoke-tests (the binaries test's [`super::hook_stub::HookStub`] answers for them).
pub const LOCAL_SMOKE_TARGETS: &str = "arn:aws:lambda:eu-central-1:000000000000:function:paygate-local-GetPayment:1,arn:aws:lambda:eu-central-1:000000000000:function:paygate-local-CapturePayment:1";

/// The trimmed SDK partition table every bundle holds (`paygate_aws::partitions`).
pub fn partitions_file() -> PathBuf {
    workspace_root()
        .join("shared/aws")
        .join(paygate_aws::partitions::BUNDLE_FILE)
}

/// What the template's references stand for in one local stack.
pub struct LocalStack<'a> {
    pub server: &'a DevServer,
    /// The moto endpoint (`AWS_ENDPOINT_URL`).
    pub endpoint: String,
    /// The stack's table prefix (the bank secrets live under `paygate/local/<prefix>banks/`).
    pub prefix: String,
}

impl LocalStack<'_> {
    /// The value of `var` (`value` in the template) in this stack. A variable this does not
    /// know is an error, so a new one in the template is noticed here.
    pub fn resolve(&self, var: &str, value: &TemplateValue) -> Result<String, String> {
        let tables = &self.server.tables;
        let queues = &self.server.queues;
        if var == paygate_aws::partitions::VAR {
            // The bundle's copy (`/var/task/…`) is the source file here.
            return Ok(partitions_file().display().to_string());
        }
        match value {
            TemplateValue::Literal(s) => Ok(s.clone()),
            TemplateValue::Ref(_) => {
                if let Some((_, name)) = tables.env_pairs().into_iter().find(|(v, _)| *v == var) {
                    return Ok(name);
                }
                match var {
                    "EVENTS_QUEUE_URL" => Ok(queues.events.clone()),
                    "DELIVERIES_QUEUE_URL" => Ok(queues.deliveries.clone()),
                    "STAGE" => Ok("local".to_owned()),
                    // The template's throttling parameters, at their defaults.
                    "PAYGATE_THROTTLE_BURST" => Ok("50".to_owned()),
                    "PAYGATE_THROTTLE_PER_MINUTE" => Ok("1200".to_owned()),
                    "PAYGATE_POINTS_THROTTLE_BURST" => Ok("2".to_owned()),
                    "PAYGATE_POINTS_THROTTLE_PER_MINUTE" => Ok("20".to_owned()),
                    "PAYGATE_POINTS_MERCHANT_THROTTLE_BURST" => Ok("20".to_owned()),
                    "PAYGATE_POINTS_MERCHANT_THROTTLE_PER_MINUTE" => Ok("600".to_owned()),
                    "PAYGATE_POINTS_CARD_THROTTLE_PER_MINUTE" => Ok("5".to_owned()),
                    "PAYGATE_POINTS_CARD_THROTTLE_PER_HOUR" => Ok("20".to_owned()),
                    // The stack's card key secret (the template's CardKeySecret).
                    "PAYGATE_CARD_KEY_SECRET" => {
                        Ok(paygate_devserver::card_key_secret(&self.prefix))
                    }
                    "PAYGATE_RETENTION_DAYS" => Ok("90".to_owned()),
                    "PAYGATE_STALE_IN_FLIGHT_MS" => Ok("60000".to_owned()),
                    "PAYGATE_PENDING_NOT_FOUND_GRACE_MS" => Ok("900000".to_owned()),
                    "PAYGATE_WEBHOOK_RETRY_SCHEDULE" => Ok("30s,2m,10m,30m,2h,6h,12h,24h".into()),
                    // The template parameter's default.
                    "PAYGATE_WEBHOOK_DISABLE_MIN_ATTEMPTS" => Ok("20".into()),
                    // The authorizer's MalformedKeyAnswer parameter, at its default.
                    "PAYGATE_MALFORMED_KEY_ANSWER" => Ok("envelope".into()),
                    _ => Err(format!("{var}: no local value for {value:?}")),
                }
            }
            TemplateValue::Sub(_) => match var {
                "BANK_SECRET_PREFIX" => Ok(format!("paygate/local/{}banks/", self.prefix)),
                // The deploy hook's targets: the versions a deploy published.
                "PAYGATE_SMOKE_TARGETS" => Ok(LOCAL_SMOKE_TARGETS.to_owned()),
                "WEBHOOK_SECRET_PREFIX" => Ok(paygate_devserver::admin::SECRET_PREFIX.to_owned()),
                _ => Err(format!("{var}: no local value for {value:?}")),
            },
        }
    }

    /// The whole environment of `f`'s process (besides Lambda's own variables): the
    /// template's variables resolved, static credentials, the region and moto's endpoint.
    pub fn env(&self, f: &TemplateFunction) -> Result<Vec<(String, String)>, String> {
        let mut env = vec![
            ("AWS_ENDPOINT_URL".to_owned(), self.endpoint.clone()),
            (
                "AWS_REGION".to_owned(),
                paygate_aws::moto::REGION.to_owned(),
            ),
            (
                "AWS_DEFAULT_REGION".to_owned(),
                paygate_aws::moto::REGION.to_owned(),
            ),
            ("AWS_ACCESS_KEY_ID".to_owned(), "test".to_owned()),
            ("AWS_SECRET_ACCESS_KEY".to_owned(), "test".to_owned()),
            ("AWS_SESSION_TOKEN".to_owned(), "test".to_owned()),
        ];
        for (var, value) in &f.env {
            env.push((var.clone(), self.resolve(var, value)?));
        }
        Ok(env)
    }
}

/// Where cargo puts binaries of `profile` (`debug` or `release`): beside the running
/// executable's `deps/` folder when run by cargo, else `target/<profile>`.
pub fn bin_dir(profile: &str) -> PathBuf {
    if let Ok(dir) = std::env::var("CARGO_TARGET_DIR") {
        return PathBuf::from(dir).join(profile);
    }
    workspace_root().join("target").join(profile)
}

/// Builds the binaries `bins` with cargo (a no-op when they are up to date).
pub fn build(bins: &[String], release: bool) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(workspace_root())
        .arg("build")
        .arg("--quiet");
    if release {
        cmd.arg("--release");
    }
    for b in bins {
        if release {
            // By package: features unify over the packages selected, so a release build
            // with `--bin` (the whole workspace) would link the CLI's and the tests' AWS-LC
            // and HTTP/2 into every function (shared/tls). Debug builds for tests share
            // the workspace's features and artifacts.
            cmd.arg("-p").arg(format!("fn-{b}"));
        } else {
            cmd.arg("--bin").arg(b);
        }
    }
    let status = cmd.status().map_err(|e| format!("cargo build: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo build of {bins:?} failed: {status}"))
    }
}

/// Starts `binary` with exactly `env` (nothing inherited, as on Lambda), its output (logs)
/// appended to `log`.
pub fn spawn(binary: &Path, env: &[(String, String)], log: &Path) -> std::io::Result<Child> {
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)?;
    Command::new(binary)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out)
        .spawn()
}
