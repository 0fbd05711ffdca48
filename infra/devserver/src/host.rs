//! The dev server answers only requests addressed to it: the `Host` header must be
//! `127.0.0.1`, `localhost` or `[::1]` with the bound port. Its seed keys and admin
//! credentials are public (`infra/local/seed.json`), so a web page of another site that
//! rebinds its own DNS name to 127.0.0.1 (DNS rebinding) could otherwise drive the local
//! API from the developer's browser. Other names are refused with 403 `forbidden_host`
//! before any function runs.
//!
//! `PAYGATE_DEV_ALLOWED_HOSTS` adds names (comma-separated, e.g. `devbox.lan`; still with
//! the bound port), or `*` to turn the check off (a container reached by its service name).

use std::sync::Arc;

use axum::{
    extract::{Request, State},
    http::StatusCode,
    middleware::Next,
    response::Response as AxumResponse,
    Router,
};
use paygate_http::ApiError;

use crate::gateway::to_axum;

/// The variable naming further accepted host names.
pub const ALLOWED_HOSTS_ENV: &str = "PAYGATE_DEV_ALLOWED_HOSTS";

/// Which `Host` headers are served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedHosts {
    port: u16,
    /// Names besides the loopback ones (lower case); `None`: any host.
    extra: Option<Vec<String>>,
}

impl AllowedHosts {
    /// The loopback names with `port`, and `extra` (a `PAYGATE_DEV_ALLOWED_HOSTS` value).
    pub fn new(port: u16, extra: Option<&str>) -> Self {
        let names: Vec<String> = extra
            .unwrap_or_default()
            .split(',')
            .map(|n| n.trim().to_ascii_lowercase())
            .filter(|n| !n.is_empty())
            .collect();
        let extra = (!names.iter().any(|n| n == "*")).then_some(names);
        Self { port, extra }
    }

    /// From this process's environment.
    pub fn from_env(port: u16) -> Self {
        Self::new(port, std::env::var(ALLOWED_HOSTS_ENV).ok().as_deref())
    }

    /// Whether a request with this `Host` header is served.
    pub fn allows(&self, host: Option<&str>) -> bool {
        let Some(extra) = &self.extra else {
            return true;
        };
        let Some((name, port)) = host.and_then(|h| h.rsplit_once(':')) else {
            return false;
        };
        if port.parse::<u16>().ok() != Some(self.port) {
            return false;
        }
        let name = name.to_ascii_lowercase();
        matches!(name.as_str(), "127.0.0.1" | "localhost" | "[::1]") || extra.contains(&name)
    }
}

/// `router` behind the Host check.
pub fn guard(router: Router, hosts: AllowedHosts) -> Router {
    router.layer(axum::middleware::from_fn_with_state(Arc::new(hosts), check))
}

async fn check(State(hosts): State<Arc<AllowedHosts>>, req: Request, next: Next) -> AxumResponse {
    let host = req
        .headers()
        .get(axum::http::header::HOST)
        .and_then(|v| v.to_str().ok());
    if hosts.allows(host) {
        return next.run(req).await;
    }
    to_axum(
        ApiError::new(
            StatusCode::FORBIDDEN,
            "forbidden_host",
            "The Host header is not this dev server's address (127.0.0.1, localhost or [::1] with its port; see PAYGATE_DEV_ALLOWED_HOSTS).",
        )
        .into_response(),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn only_loopback_names_with_the_port_unless_configured() {
        let strict = AllowedHosts::new(3000, None);
        for ok in [
            "127.0.0.1:3000",
            "localhost:3000",
            "LocalHost:3000",
            "[::1]:3000",
        ] {
            assert!(strict.allows(Some(ok)), "{ok}");
        }
        for bad in [
            "attacker.example:3000",
            "127.0.0.1.attacker.example:3000",
            "127.0.0.1:3001",
            "127.0.0.1",
            "localhost",
            "[::1]",
            "devbox.lan:3000",
            "",
        ] {
            assert!(!strict.allows(Some(bad)), "{bad}");
        }
        assert!(!strict.allows(None));

        let named = AllowedHosts::new(3000, Some(" DevBox.lan , ,other"));
        assert!(named.allows(Some("devbox.lan:3000")));
        assert!(named.allows(Some("other:3000")));
        assert!(named.allows(Some("localhost:3000")));
        assert!(!named.allows(Some("devbox.lan:3001")));
        assert!(!named.allows(Some("attacker.example:3000")));

        let any = AllowedHosts::new(3000, Some("devbox.lan,*"));
        assert!(any.allows(Some("attacker.example:80")));
        assert!(any.allows(None));
        assert_eq!(AllowedHosts::new(3000, Some("")), strict);
    }

    #[tokio::test]
    async fn a_rebound_name_is_refused_before_the_route_runs() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let ran = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = ran.clone();
        let app = Router::new().fallback(move || {
            let counter = counter.clone();
            async move {
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                "served"
            }
        });
        let app = guard(app, AllowedHosts::new(port, None));
        tokio::spawn(async move { axum::serve(listener, app).await });
        let http = reqwest::Client::new();
        let get = |host: String| {
            http.get(format!("http://127.0.0.1:{port}/v1/payments/pay_1"))
                .header("host", host)
                .send()
        };
        let refused = get(format!("attacker.example:{port}")).await.unwrap();
        assert_eq!(refused.status(), 403);
        let body: serde_json::Value = refused.json().await.unwrap();
        assert_eq!(body["error"]["code"], "forbidden_host");
        assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), 0);
        for host in [format!("127.0.0.1:{port}"), format!("localhost:{port}")] {
            let ok = get(host).await.unwrap();
            assert_eq!(ok.status(), 200);
        }
        assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), 2);
    }
}
