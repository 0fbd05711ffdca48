//! `docs/openapi.yaml` is checked against the code that serves the API.
//!
//! 1. The document itself: OpenAPI 3.1, every `$ref` resolves, only schema keywords this
//!    validator understands (so nothing in it goes unchecked), the error codes of the
//!    `ErrorCode` enum, the per-code error schemas, the description's table and docs/api.md
//!    agree, and every example validates against its schema.
//! 2. Its routes are exactly the dev server's routes and the SAM template's HttpApi events.
//! 3. Real requests through the local stack (dev server over moto, the real function
//!    handlers) cover every route's success answer and the main errors; each answer must be
//!    declared for its route and status, and its body must validate against the declared
//!    schema (`additionalProperties: false` and `required` everywhere, so drift fails).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test: failing is the point
//!
//! `validator.rs` is the JSON-schema validator; `document.rs` holds the checks of parts 1
//! and 2; `scenario.rs` the transcript of part 3 and `live.rs` its runner.

mod document;
mod live;
mod scenario;
mod validator;

use std::{
    collections::{BTreeMap, BTreeSet},
    path::PathBuf,
    sync::LazyLock,
};

use serde_json::Value;

// ------------------------------------------------------------------------------ the document

fn workspace_file(rel: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// `docs/openapi.yaml` as JSON.
fn doc() -> &'static Value {
    static DOC: LazyLock<Value> = LazyLock::new(|| {
        serde_norway::from_str(&workspace_file("docs/openapi.yaml"))
            .unwrap_or_else(|e| panic!("docs/openapi.yaml is not valid YAML: {e}"))
    });
    &DOC
}

/// Follows a local `$ref` (`#/components/...`).
fn resolve<'a>(root: &'a Value, reference: &str) -> &'a Value {
    let pointer = reference
        .strip_prefix('#')
        .unwrap_or_else(|| panic!("only local $refs are used, not {reference}"));
    root.pointer(pointer)
        .unwrap_or_else(|| panic!("$ref {reference} does not resolve"))
}

/// `v`, or what its `$ref` points at (repeatedly).
fn deref<'a>(root: &'a Value, mut v: &'a Value) -> &'a Value {
    while let Some(r) = v.get("$ref").and_then(Value::as_str) {
        v = resolve(root, r);
    }
    v
}

const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

/// Every documented operation: `"POST /v1/payments/{id}/capture"` → operation object.
fn operations(d: &Value) -> BTreeMap<String, &Value> {
    let mut out = BTreeMap::new();
    for (path, item) in d["paths"].as_object().expect("paths is an object") {
        for m in METHODS {
            if let Some(op) = item.get(m) {
                out.insert(format!("{} {path}", m.to_uppercase()), op);
            }
        }
    }
    out
}

/// The schema declared for `route` answering `status`, or why there is none.
fn response_schema<'a>(d: &'a Value, route: &str, status: u16) -> Result<&'a Value, String> {
    let ops = operations(d);
    let op = ops
        .get(route)
        .ok_or_else(|| format!("{route} is not in the document"))?;
    let resp = op["responses"]
        .get(status.to_string())
        .ok_or_else(|| format!("{route} answered {status}, which the document does not declare"))?;
    deref(d, resp)
        .pointer("/content/application~1json/schema")
        .ok_or_else(|| format!("{route} {status} declares no application/json schema"))
}

/// The `ErrorCode` enum.
fn error_codes(d: &Value) -> BTreeSet<String> {
    d.pointer("/components/schemas/ErrorCode/enum")
        .and_then(Value::as_array)
        .expect("components.schemas.ErrorCode.enum")
        .iter()
        .map(|v| v.as_str().expect("codes are strings").to_owned())
        .collect()
}
