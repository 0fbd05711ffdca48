//! The functions' log subscriber. It reads Lambda's logging controls as the runtime's
//! default subscriber does (`lambda_runtime::tracing::init_default_subscriber`) and drops
//! one thing that subscriber lets through: the runtime crates' own TRACE events. At TRACE,
//! `lambda_runtime` logs every invocation whole ("raw JSON event received from Lambda"):
//! the authorizer's event holds the merchant's `Authorization: Bearer sk_…`, a points
//! inquiry's body the card number and its CVV. Their DEBUG and above still pass, and every
//! other crate's TRACE too (the AWS SDK redacts credentials and sensitive bodies itself).
//!
//! - Level: `AWS_LAMBDA_LOG_LEVEL` (the function's `ApplicationLogLevel`) when set, whatever
//!   `RUST_LOG` says; else `RUST_LOG`'s directives (e.g. `info,paygate_payments=debug`); else
//!   INFO. Lambda's `FATAL` is ERROR; an unknown level is INFO. (This is what the runtime's
//!   subscriber documents; its code, lambda_runtime_api_client 1.1.1, lets any valid
//!   `RUST_LOG` directive win instead, so the template's `RUST_LOG: info` would hide a
//!   level turned up in Lambda's controls.)
//! - Format: JSON when `AWS_LAMBDA_LOG_FORMAT` is `JSON` (the template's `LogFormat`), else
//!   text; no time (CloudWatch stamps every line), no target, never ANSI colours (CloudWatch
//!   shows escape codes as text).

use tracing::{Level, Metadata, Subscriber};
use tracing_subscriber::{
    filter::{filter_fn, LevelFilter, Targets},
    fmt::MakeWriter,
    layer::SubscriberExt,
};

/// Environment variable: Lambda's log level for the function (`TRACE` … `FATAL`).
pub const LAMBDA_LOG_LEVEL_ENV: &str = "AWS_LAMBDA_LOG_LEVEL";
/// Environment variable: Lambda's log format for the function (`Text` or `JSON`).
pub const LAMBDA_LOG_FORMAT_ENV: &str = "AWS_LAMBDA_LOG_FORMAT";
/// Environment variable: `tracing` directives, used when Lambda sets no level.
pub const RUST_LOG_ENV: &str = "RUST_LOG";

/// The crates whose TRACE events print whole invocations (and their submodules).
const RUNTIME_CRATES: [&str; 3] = ["lambda_runtime", "lambda_http", "lambda_runtime_api_client"];

/// Whether an event (or span) of `target` at `level` may reach the log: anything but TRACE
/// from the Lambda runtime crates.
pub fn passes(target: &str, level: &Level) -> bool {
    *level != Level::TRACE || !RUNTIME_CRATES.iter().any(|c| in_crate(target, c))
}

/// `target` is `krate` itself or one of its modules (`krate::…`), not a crate whose name
/// merely starts alike.
fn in_crate(target: &str, krate: &str) -> bool {
    target
        .strip_prefix(krate)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
}

/// What the environment asks of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogSettings {
    /// The level of everything no directive names.
    pub level: LevelFilter,
    /// `RUST_LOG`'s directives, when Lambda sets no level.
    pub directives: Option<String>,
    /// One JSON object a line.
    pub json: bool,
}

impl LogSettings {
    /// This process's environment.
    pub fn from_env() -> Self {
        Self::from_vars(|k| std::env::var(k).ok())
    }

    /// From a lookup of variables (`None`, or blank: unset).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Self {
        let var = |k: &str| var(k).filter(|v| !v.trim().is_empty());
        let json =
            var(LAMBDA_LOG_FORMAT_ENV).is_some_and(|f| f.trim().eq_ignore_ascii_case("json"));
        if let Some(lambda) = var(LAMBDA_LOG_LEVEL_ENV) {
            return Self {
                level: level_of(&lambda),
                directives: None,
                json,
            };
        }
        let directives = var(RUST_LOG_ENV);
        Self {
            // As the runtime: a bare level in `RUST_LOG` is also the default.
            level: directives.as_deref().map_or(LevelFilter::INFO, level_of),
            directives,
            json,
        }
    }

    /// [`LogSettings::level`] for every target, then `RUST_LOG`'s directives in order: a
    /// bare level is the level of every target, `target=level` the level of that target and
    /// its modules (the most specific target wins). A directive that does not parse is
    /// skipped, not fatal, as `EnvFilter`'s lossy parsing did (its span and field directives,
    /// `[span{field=value}]`, are not supported: skipped). `Targets` rather than `EnvFilter`:
    /// the same directives for what the functions log, without linking a regex engine.
    fn filter(&self) -> Targets {
        let mut default = self.level;
        let mut named = Targets::new();
        for directive in self.directives.as_deref().unwrap_or_default().split(',') {
            let directive = directive.trim();
            if directive.contains('=') {
                if let Ok(one) = directive.parse::<Targets>() {
                    named.extend(one);
                }
            } else if !directive.is_empty() {
                default = level_of(directive);
            }
        }
        named.with_default(default)
    }
}

/// A level name as Lambda or `RUST_LOG` spells it; `FATAL` is ERROR, anything else unknown
/// is INFO.
fn level_of(name: &str) -> LevelFilter {
    let name = name.trim();
    if name.eq_ignore_ascii_case("fatal") {
        return LevelFilter::ERROR;
    }
    name.parse().unwrap_or(LevelFilter::INFO)
}

/// The subscriber for `settings`, writing to `writer`.
pub fn subscriber<W>(settings: &LogSettings, writer: W) -> Box<dyn Subscriber + Send + Sync>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let fmt = tracing_subscriber::fmt()
        .with_max_level(LevelFilter::TRACE)
        .with_ansi(false)
        .with_target(false)
        .without_time()
        .with_writer(writer);
    let runtime_trace = filter_fn(|m: &Metadata<'_>| passes(m.target(), m.level()));
    let filter = settings.filter();
    if settings.json {
        Box::new(fmt.json().finish().with(filter).with(runtime_trace))
    } else {
        Box::new(fmt.finish().with(filter).with(runtime_trace))
    }
}

/// What every function's `main` calls first: the subscriber of this process's
/// environment, on stdout, process-wide.
pub fn init_logging() -> Result<(), tracing::subscriber::SetGlobalDefaultError> {
    tracing::subscriber::set_global_default(subscriber(&LogSettings::from_env(), std::io::stdout))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use paygate_domain::testkit::LogBuffer;

    use super::*;

    #[test]
    fn only_the_runtime_crates_trace_is_dropped() {
        for target in [
            "lambda_runtime",
            "lambda_runtime::layers::api_response",
            "lambda_http",
            "lambda_http::request",
            "lambda_runtime_api_client",
            "lambda_runtime_api_client::body",
        ] {
            assert!(!passes(target, &Level::TRACE), "{target}");
            for level in [Level::DEBUG, Level::INFO, Level::WARN, Level::ERROR] {
                assert!(passes(target, &level), "{target} {level}");
            }
        }
        for target in [
            "lambda_runtime_extra",
            "lambda_httpx::a",
            "lambda_runtime_api_clients",
            "my_lambda_runtime",
            "aws_smithy_runtime::client::orchestrator",
            "paygate_payments::operate",
            "hyper_util",
            "",
        ] {
            assert!(passes(target, &Level::TRACE), "{target}");
        }
    }

    fn settings(vars: &[(&str, &str)]) -> LogSettings {
        LogSettings::from_vars(|k| {
            vars.iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn lambdas_level_wins_over_rust_log_which_wins_over_info() {
        let s = settings(&[("AWS_LAMBDA_LOG_LEVEL", "TRACE"), ("RUST_LOG", "info")]);
        assert_eq!(
            (s.level, s.directives, s.json),
            (LevelFilter::TRACE, None, false)
        );
        let s = settings(&[("RUST_LOG", "warn,paygate_payments=debug")]);
        assert_eq!(s.level, LevelFilter::INFO);
        assert_eq!(s.directives.as_deref(), Some("warn,paygate_payments=debug"));
        assert_eq!(settings(&[("RUST_LOG", "debug")]).level, LevelFilter::DEBUG);
        assert_eq!(settings(&[]).level, LevelFilter::INFO);
        assert_eq!(
            settings(&[("AWS_LAMBDA_LOG_LEVEL", " "), ("RUST_LOG", "error")]).level,
            LevelFilter::ERROR
        );
        for (name, want) in [
            ("DEBUG", LevelFilter::DEBUG),
            ("warn", LevelFilter::WARN),
            ("FATAL", LevelFilter::ERROR),
            ("LOUD", LevelFilter::INFO),
        ] {
            assert_eq!(
                settings(&[("AWS_LAMBDA_LOG_LEVEL", name)]).level,
                want,
                "{name}"
            );
        }
        assert!(settings(&[("AWS_LAMBDA_LOG_FORMAT", "JSON")]).json);
        assert!(settings(&[("AWS_LAMBDA_LOG_FORMAT", "json")]).json);
        assert!(!settings(&[("AWS_LAMBDA_LOG_FORMAT", "Text")]).json);
    }

    /// What `settings`' subscriber writes for one event of each kind.
    fn logged(settings: &LogSettings) -> String {
        let out = LogBuffer::default();
        let sink = out.clone();
        let sub = subscriber(settings, move || sink.clone());
        tracing::subscriber::with_default(sub, || {
            tracing::trace!(target: "lambda_runtime::layers::api_response",
                body = "sk_test_dropped", "raw JSON event received from Lambda");
            tracing::trace!(target: "lambda_http", "lambda_http trace dropped");
            tracing::debug!(target: "lambda_runtime", "runtime debug kept");
            tracing::trace!(target: "lambda_runtime_extra", "lookalike trace kept");
            tracing::trace!(target: "paygate_payments::operate", "paygate trace kept");
            tracing::info!(target: "paygate_payments::operate", "paygate info kept");
        });
        out.text()
    }

    #[test]
    fn at_trace_the_runtime_trace_is_dropped_in_text_and_json_without_colours() {
        for json in [false, true] {
            let text = logged(&LogSettings {
                level: LevelFilter::TRACE,
                directives: None,
                json,
            });
            assert!(!text.contains("sk_test_dropped"), "{text}");
            assert!(!text.contains("dropped"), "{text}");
            for kept in [
                "runtime debug kept",
                "lookalike trace kept",
                "paygate trace kept",
                "paygate info kept",
            ] {
                assert!(text.contains(kept), "{kept}: {text}");
            }
            assert!(!text.contains('\u{1b}'), "ANSI escape: {text:?}");
            if json {
                for line in text.lines() {
                    let v: serde_json::Value = serde_json::from_str(line).unwrap();
                    assert!(v["level"].is_string(), "{line}");
                }
                assert!(text.contains(r#""level":"TRACE""#), "{text}");
            } else {
                assert!(text.lines().any(|l| l.starts_with("TRACE")), "{text}");
            }
        }
    }

    #[test]
    fn the_level_still_applies() {
        let text = logged(&LogSettings {
            level: LevelFilter::INFO,
            directives: None,
            json: false,
        });
        assert_eq!(text.trim(), "INFO paygate info kept", "{text}");
        let text = logged(&settings(&[("RUST_LOG", "lambda_runtime=debug,warn")]));
        assert_eq!(text.trim(), "DEBUG runtime debug kept", "{text}");
    }

    /// `RUST_LOG`'s directives as `EnvFilter` read them for what the functions log: the most
    /// specific target wins, a bare level is everyone's, a broken directive is skipped.
    #[test]
    fn rust_log_directives_name_targets_and_modules() {
        let text = logged(&settings(&[("RUST_LOG", "paygate_payments=trace")]));
        assert!(text.contains("paygate trace kept"), "{text}");
        assert!(text.contains("paygate info kept"), "{text}");
        assert!(!text.contains("runtime debug kept"), "{text}");
        let text = logged(&settings(&[(
            "RUST_LOG",
            "trace,paygate_payments::operate=info,lambda_runtime=nonsense,[span{a=1}]",
        )]));
        assert!(!text.contains("paygate trace kept"), "{text}");
        assert!(text.contains("paygate info kept"), "{text}");
        assert!(text.contains("runtime debug kept"), "{text}");
        assert!(text.contains("lookalike trace kept"), "{text}");
        assert!(!text.contains("dropped"), "{text}");
        let text = logged(&settings(&[("RUST_LOG", "error,paygate_payments=warn")]));
        assert_eq!(text.trim(), "", "{text}");
    }
}
