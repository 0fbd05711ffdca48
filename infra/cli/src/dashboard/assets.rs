//! The page's files, compiled into the binary (`include_str!`): plain HTML, CSS and
//! JavaScript under `web/`, no build step, nothing fetched at run time, no external font or
//! script. The page's HTML carries the per-run token in a `<meta>` element
//! ([`TOKEN_PLACEHOLDER`] is replaced when it is served).

/// Replaced by the run's token in `index.html`.
pub const TOKEN_PLACEHOLDER: &str = "{{PAYGATE_DASHBOARD_TOKEN}}";

/// One file of the page.
#[derive(Debug, Clone, Copy)]
pub struct Asset {
    pub body: &'static str,
    pub content_type: &'static str,
    /// The HTML page (takes the token).
    pub is_page: bool,
}

const JS: &str = "text/javascript; charset=utf-8";

/// Every file, by path.
pub const FILES: [(&str, Asset); 10] = [
    (
        "/",
        Asset {
            body: include_str!("web/index.html"),
            content_type: "text/html; charset=utf-8",
            is_page: true,
        },
    ),
    (
        "/app.css",
        Asset {
            body: include_str!("web/app.css"),
            content_type: "text/css; charset=utf-8",
            is_page: false,
        },
    ),
    (
        "/api.js",
        Asset {
            body: include_str!("web/api.js"),
            content_type: JS,
            is_page: false,
        },
    ),
    (
        "/endpoints.js",
        Asset {
            body: include_str!("web/endpoints.js"),
            content_type: JS,
            is_page: false,
        },
    ),
    (
        "/deliveries.js",
        Asset {
            body: include_str!("web/deliveries.js"),
            content_type: JS,
            is_page: false,
        },
    ),
    (
        "/keys.js",
        Asset {
            body: include_str!("web/keys.js"),
            content_type: JS,
            is_page: false,
        },
    ),
    (
        "/audit.js",
        Asset {
            body: include_str!("web/audit.js"),
            content_type: JS,
            is_page: false,
        },
    ),
    (
        "/reconciliation.js",
        Asset {
            body: include_str!("web/reconciliation.js"),
            content_type: JS,
            is_page: false,
        },
    ),
    (
        "/payment.js",
        Asset {
            body: include_str!("web/payment.js"),
            content_type: JS,
            is_page: false,
        },
    ),
    (
        "/app.js",
        Asset {
            body: include_str!("web/app.js"),
            content_type: JS,
            is_page: false,
        },
    ),
];

/// The file served at `path` (`/index.html` is `/`).
pub fn get(path: &str) -> Option<Asset> {
    let path = if path == "/index.html" { "/" } else { path };
    FILES.iter().find(|(p, _)| *p == path).map(|(_, a)| *a)
}
