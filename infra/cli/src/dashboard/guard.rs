//! What the dashboard's local server lets in, decided in plain functions over the request's
//! parts (no I/O), so the rules are unit-tested one by one.
//!
//! * **Session**: every request but the launch link carries the session cookie the launch
//!   link set ([`session`](super::session)); refused with 401 before anything else is read.
//! * **Host**: exactly `127.0.0.1:<port>` or `localhost:<port>`. A page of another site
//!   that rebinds its own DNS name to 127.0.0.1 sends its own name here, so it is refused
//!   before anything is served (DNS rebinding).
//! * **Origin**: absent (a same-origin `GET`, a navigation) or exactly the local origin; a
//!   request made by any other site's page is refused (CSRF).
//! * **Token**: every call of the API and the config carries `X-Paygate-Dashboard` with the
//!   per-run token the page was served with. A custom header cannot be sent cross-origin
//!   without a CORS preflight, which this server never grants, and the token cannot be
//!   read by other sites' pages; either alone would stop a forged request.
//! * **Path**: only `/admin/v1/merchants/<id>/…` is forwarded, each segment plain
//!   (letters, digits, `_ - . ~`; no `.`/`..`, no percent-escapes), with `GET`, `POST`,
//!   `PATCH` or `DELETE`: never an open proxy, never the merchant API.

/// The header carrying the per-run token.
pub const TOKEN_HEADER: &str = "x-paygate-dashboard";

/// Why a request was refused (shown to the caller; nothing secret in it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No valid session cookie: the launch link was not opened in this browser.
    Session,
    /// A wrong or spent launch link.
    Launch,
    Host,
    Origin,
    Token,
    Path,
    Method,
}

impl Refusal {
    /// HTTP status and the envelope's code and message.
    pub fn answer(self) -> (u16, &'static str, &'static str) {
        match self {
            Self::Session => (
                401,
                "dashboard_unauthenticated",
                "Open the link `paygate dashboard` printed (it works once, in one browser); restart it for a new link.",
            ),
            Self::Launch => (
                403,
                "dashboard_launch_refused",
                "This launch link is wrong or was used already: restart `paygate dashboard` for a new one.",
            ),
            Self::Host => (
                403,
                "dashboard_forbidden_host",
                "The Host header is not this dashboard's address (127.0.0.1 or localhost with its port).",
            ),
            Self::Origin => (
                403,
                "dashboard_forbidden_origin",
                "Requests from other origins are refused.",
            ),
            Self::Token => (
                403,
                "dashboard_forbidden_token",
                "Missing or wrong dashboard token: reload the page (the token changes every time `paygate dashboard` starts).",
            ),
            Self::Path => (
                404,
                "dashboard_not_forwarded",
                "Only /admin/v1/merchants/<merchantId>/… is forwarded to the API.",
            ),
            Self::Method => (
                405,
                "dashboard_method_not_allowed",
                "Only GET, POST, PATCH and DELETE are forwarded.",
            ),
        }
    }
}

/// The rules of one running dashboard: its port and token.
#[derive(Clone)]
pub struct Guard {
    port: u16,
    token: String,
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard")
            .field("port", &self.port)
            .field("token", &"[redacted]")
            .finish()
    }
}

impl Guard {
    pub fn new(port: u16, token: String) -> Self {
        Self { port, token }
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// The Host header names this server.
    pub fn host_ok(&self, host: Option<&str>) -> bool {
        let Some(host) = host else { return false };
        let Some((name, port)) = host.rsplit_once(':') else {
            return false;
        };
        matches!(name, "127.0.0.1" | "localhost") && port.parse::<u16>().ok() == Some(self.port)
    }

    /// The Origin header is absent or this server's own origin.
    pub fn origin_ok(&self, origin: Option<&str>) -> bool {
        match origin {
            None => true,
            Some(o) => {
                o == format!("http://127.0.0.1:{}", self.port)
                    || o == format!("http://localhost:{}", self.port)
            }
        }
    }

    /// The token header equals the run's token (compared in constant time).
    pub fn token_ok(&self, header: Option<&str>) -> bool {
        let Some(given) = header else { return false };
        let (a, b) = (given.as_bytes(), self.token.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }

    /// Host, Origin and token together (the checks of every API call).
    pub fn check_call(
        &self,
        host: Option<&str>,
        origin: Option<&str>,
        token: Option<&str>,
    ) -> Result<(), Refusal> {
        if !self.host_ok(host) {
            return Err(Refusal::Host);
        }
        if !self.origin_ok(origin) {
            return Err(Refusal::Origin);
        }
        if !self.token_ok(token) {
            return Err(Refusal::Token);
        }
        Ok(())
    }
}

/// The methods forwarded.
pub fn method_ok(method: &str) -> Result<(), Refusal> {
    match method {
        "GET" | "POST" | "PATCH" | "DELETE" => Ok(()),
        _ => Err(Refusal::Method),
    }
}

/// The segments of a forwardable path (`/admin/v1/merchants/<id>/<at least one more>`), or
/// the refusal.
pub fn admin_segments(path: &str) -> Result<Vec<&str>, Refusal> {
    let rest = path
        .strip_prefix("/admin/v1/merchants/")
        .ok_or(Refusal::Path)?;
    let segments: Vec<&str> = rest.split('/').collect();
    let plain = |s: &&str| {
        !s.is_empty()
            && *s != "."
            && *s != ".."
            && s.len() <= 200
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'~'))
    };
    if segments.len() < 2 || segments.len() > 6 || !segments.iter().all(plain) {
        return Err(Refusal::Path);
    }
    let mut out = vec!["admin", "v1", "merchants"];
    out.extend(segments);
    Ok(out)
}

/// The query pairs forwarded: names of letters only, at most 10 pairs; anything else is
/// dropped.
pub fn query_pairs(query: Option<&str>) -> Vec<(String, String)> {
    let Some(q) = query else { return Vec::new() };
    url::form_urlencoded::parse(q.as_bytes())
        .filter(|(k, _)| {
            !k.is_empty() && k.len() <= 32 && k.bytes().all(|b| b.is_ascii_alphabetic())
        })
        .take(10)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> Guard {
        Guard::new(3001, "a".repeat(64))
    }

    #[test]
    fn only_the_local_host_with_the_port_is_served() {
        let g = guard();
        assert!(g.host_ok(Some("127.0.0.1:3001")));
        assert!(g.host_ok(Some("localhost:3001")));
        for bad in [
            "127.0.0.1:3002",
            "127.0.0.1",
            "evil.example:3001",
            "127.0.0.1.evil.example:3001",
            "[::1]:3001",
            "",
        ] {
            assert!(!g.host_ok(Some(bad)), "{bad}");
        }
        assert!(!g.host_ok(None));
    }

    #[test]
    fn only_the_local_origin_or_none_is_accepted() {
        let g = guard();
        assert!(g.origin_ok(None));
        assert!(g.origin_ok(Some("http://127.0.0.1:3001")));
        assert!(g.origin_ok(Some("http://localhost:3001")));
        for bad in [
            "https://evil.example",
            "http://127.0.0.1:3000",
            "null",
            "http://127.0.0.1:3001.evil.example",
            "https://127.0.0.1:3001",
        ] {
            assert!(!g.origin_ok(Some(bad)), "{bad}");
        }
    }

    #[test]
    fn the_token_must_match_exactly() {
        let g = guard();
        assert!(g.token_ok(Some(&"a".repeat(64))));
        assert!(!g.token_ok(Some(&"a".repeat(63))));
        assert!(!g.token_ok(Some(&format!("{}b", "a".repeat(63)))));
        assert!(!g.token_ok(Some("")));
        assert!(!g.token_ok(None));
        assert_eq!(
            g.check_call(Some("127.0.0.1:3001"), None, None),
            Err(Refusal::Token)
        );
        assert_eq!(
            g.check_call(
                Some("127.0.0.1:3001"),
                Some("https://evil.example"),
                Some(&"a".repeat(64))
            ),
            Err(Refusal::Origin)
        );
        assert_eq!(
            g.check_call(Some("evil:3001"), None, Some(&"a".repeat(64))),
            Err(Refusal::Host)
        );
        assert!(format!("{g:?}").contains("redacted"));
        assert!(!format!("{g:?}").contains("aaaa"));
    }

    #[test]
    fn only_admin_merchant_paths_are_forwarded() {
        assert_eq!(
            admin_segments("/admin/v1/merchants/mch_a/webhook-endpoints").unwrap(),
            ["admin", "v1", "merchants", "mch_a", "webhook-endpoints"]
        );
        assert!(admin_segments("/admin/v1/merchants/m/deliveries/dlv_1/resend").is_ok());
        for bad in [
            "/v1/payments/pay_1",
            "/admin/v1/merchants/m",
            "/admin/v1/merchants/",
            "/admin/v2/merchants/m/webhook-endpoints",
            "/admin/v1/merchants/m/../../../v1/payments",
            "/admin/v1/merchants/m/%2e%2e/x",
            "/admin/v1/merchants/m//x",
            "/admin/v1/merchants/m/x/",
            "/admin/v1/merchants/m/a/b/c/d/e/f",
            "//evil.example/admin/v1/merchants/m/x",
            "/admin/v1/merchants/m/x?y",
        ] {
            assert_eq!(admin_segments(bad), Err(Refusal::Path), "{bad}");
        }
    }

    #[test]
    fn methods_and_query_pairs_are_limited() {
        for m in ["GET", "POST", "PATCH", "DELETE"] {
            assert!(method_ok(m).is_ok());
        }
        for m in ["PUT", "OPTIONS", "CONNECT", "TRACE", "get"] {
            assert_eq!(method_ok(m), Err(Refusal::Method));
        }
        assert_eq!(
            query_pairs(Some("status=failed&limit=20&cursor=a%2Bb%3D&x-y=1&=2")),
            [
                ("status".to_owned(), "failed".to_owned()),
                ("limit".to_owned(), "20".to_owned()),
                ("cursor".to_owned(), "a+b=".to_owned()),
            ]
        );
        assert!(query_pairs(None).is_empty());
    }
}
