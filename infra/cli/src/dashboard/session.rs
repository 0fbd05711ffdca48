//! Who may use a running dashboard: the one browser that opened the launch link.
//!
//! `paygate dashboard` prints `http://127.0.0.1:<port>/launch/<secret>`, the secret 32
//! random bytes. The first `GET` of that path spends the secret and answers a redirect to
//! `/` (the secret leaves the address bar and the history) that sets the session cookie:
//! another 32 random bytes, `HttpOnly; SameSite=Strict; Path=/`, named after the port (two
//! dashboards on one host keep their own). Every other request, the page, its files, its
//! config and the API forwarder alike, needs that cookie; without it the answer is 401 and
//! nothing is served or forwarded. So another local user who reaches the port (any process
//! can connect to 127.0.0.1) gets nothing without the printed link, and the link works once.

use std::sync::Mutex;

/// Path prefix of the launch link.
pub const LAUNCH_PREFIX: &str = "/launch/";

/// What a launch request got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// The secret was right and unspent: set this `Set-Cookie` value, redirect to `/`.
    Granted(String),
    /// The request already carries the session cookie: just redirect to `/`.
    AlreadyIn,
    /// Wrong secret, or the link was used already.
    Refused,
}

/// The launch secret (until spent) and the session it opens.
pub struct Session {
    cookie_name: String,
    launch: Mutex<Option<String>>,
    session: String,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("cookie_name", &self.cookie_name)
            .field("launch", &"[redacted]")
            .field("session", &"[redacted]")
            .finish()
    }
}

/// Equal in constant time (for equal lengths).
fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl Session {
    /// A session of the dashboard on `port`, waiting for `launch` (the printed secret);
    /// `session` is the cookie value it will set (never the launch secret).
    pub fn new(port: u16, launch: String, session: String) -> Self {
        Self {
            cookie_name: format!("paygate_dashboard_{port}"),
            launch: Mutex::new(Some(launch)),
            session,
        }
    }

    /// A session whose launch is spent already and whose cookie is `session` (tests).
    pub fn established(port: u16, session: String) -> Self {
        let s = Self::new(port, String::new(), session);
        *s.launch.lock().unwrap_or_else(|e| e.into_inner()) = None;
        s
    }

    /// The cookie's name.
    pub fn cookie_name(&self) -> &str {
        &self.cookie_name
    }

    /// The launch path with its secret (`/launch/<secret>`), while unspent.
    pub fn launch_path(&self) -> Option<String> {
        self.launch
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|l| format!("{LAUNCH_PREFIX}{l}"))
    }

    /// The `Cookie` header carries this session's cookie. Only once the launch is spent:
    /// the cookie is not given out before, so its value alone opens nothing early.
    pub fn cookie_ok(&self, cookie_header: Option<&str>) -> bool {
        if self
            .launch
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
        {
            return false;
        }
        let Some(header) = cookie_header else {
            return false;
        };
        header.split(';').any(|pair| {
            pair.trim()
                .split_once('=')
                .is_some_and(|(k, v)| k == self.cookie_name && same(v, &self.session))
        })
    }

    /// A `GET /launch/<given>`: the first with the right secret spends it and gets the
    /// cookie; the secret never works again.
    pub fn redeem(&self, given: &str, cookie_header: Option<&str>) -> Launch {
        if self.cookie_ok(cookie_header) {
            return Launch::AlreadyIn;
        }
        let mut launch = self.launch.lock().unwrap_or_else(|e| e.into_inner());
        match launch.as_deref() {
            Some(secret) if !secret.is_empty() && same(given, secret) => {
                *launch = None;
                Launch::Granted(format!(
                    "{}={}; HttpOnly; SameSite=Strict; Path=/",
                    self.cookie_name, self.session
                ))
            }
            _ => Launch::Refused,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_launch_secret_works_once_and_opens_only_its_cookie() {
        let s = Session::new(3001, "l".repeat(64), "s".repeat(64));
        let cookie = format!("paygate_dashboard_3001={}", "s".repeat(64));
        // before the launch even the right cookie opens nothing
        assert!(!s.cookie_ok(Some(&cookie)));
        assert_eq!(s.launch_path(), Some(format!("/launch/{}", "l".repeat(64))));
        assert_eq!(s.redeem(&"l".repeat(63), None), Launch::Refused);
        assert_eq!(s.redeem("", None), Launch::Refused);
        assert_eq!(
            s.redeem(&"l".repeat(64), None),
            Launch::Granted(format!(
                "paygate_dashboard_3001={}; HttpOnly; SameSite=Strict; Path=/",
                "s".repeat(64)
            ))
        );
        // spent: not again, not for anyone
        assert_eq!(s.redeem(&"l".repeat(64), None), Launch::Refused);
        assert_eq!(s.launch_path(), None);
        assert_eq!(s.redeem(&"l".repeat(64), Some(&cookie)), Launch::AlreadyIn);
        assert!(s.cookie_ok(Some(&cookie)));
        assert!(s.cookie_ok(Some(&format!("a=b; {cookie}; c=d"))));
        for bad in [
            format!("paygate_dashboard_3002={}", "s".repeat(64)),
            format!("paygate_dashboard_3001={}", "s".repeat(63)),
            format!("paygate_dashboard_3001={}", "l".repeat(64)),
            "paygate_dashboard_3001=".to_owned(),
            String::new(),
        ] {
            assert!(!s.cookie_ok(Some(&bad)), "{bad}");
        }
        assert!(!s.cookie_ok(None));
        let shown = format!("{s:?}");
        assert!(
            !shown.contains("ssss") && !shown.contains("llll"),
            "{shown}"
        );
    }

    #[test]
    fn an_established_session_has_no_launch_left() {
        let s = Session::established(3001, "s".repeat(64));
        assert_eq!(s.launch_path(), None);
        assert_eq!(s.redeem("", None), Launch::Refused);
        assert!(s.cookie_ok(Some(&format!("paygate_dashboard_3001={}", "s".repeat(64)))));
    }
}
