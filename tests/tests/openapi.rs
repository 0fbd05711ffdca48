//! `docs/openapi.yaml` is checked against the code that serves the API.
//!
//! 1. The document itself: OpenAPI 3.1, every `$ref` resolves, only schema keywords this
//!    validator understands (so nothing in it goes unchecked), the error codes of the
//!    `ErrorCode` enum, the per-code error schemas, the description's table and the README
//!    agree, and every example validates against its schema.
//! 2. Its routes are exactly the dev server's routes and the SAM template's HttpApi events.
//! 3. Real requests through the local stack (dev server over moto, the real function
//!    handlers) cover every route's success answer and the main errors; each answer must be
//!    declared for its route and status, and its body must validate against the declared
//!    schema (`additionalProperties: false` and `required` everywhere, so drift fails).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test: failing is the point

use std::{
    collections::{BTreeMap, BTreeSet},
    path::PathBuf,
    sync::LazyLock,
};

use paygate_tests::{admin, card_number, keys, Stack, WebhookOptions};
use serde_json::{json, Value};

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

// ------------------------------------------------------------------------------ the validator

/// The JSON Schema keywords the document may use; all of them are checked below.
const KEYWORDS: [&str; 17] = [
    "$ref",
    "type",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "const",
    "items",
    "oneOf",
    "anyOf",
    "allOf",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "maxProperties",
];
/// Keywords that only annotate.
const ANNOTATIONS: [&str; 6] = [
    "description",
    "title",
    "examples",
    "format",
    "deprecated",
    "default",
];

/// A validator for the subset of JSON Schema 2020-12 in [`KEYWORDS`], with `$ref`s into
/// the document.
struct Validator<'a> {
    root: &'a Value,
}

fn type_matches(t: &str, v: &Value) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64(),
        other => panic!("unknown JSON Schema type {other}"),
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 160 {
        format!("{}…", s.chars().take(160).collect::<String>())
    } else {
        s
    }
}

impl Validator<'_> {
    fn errors(&self, schema: &Value, v: &Value) -> Vec<String> {
        let mut errs = Vec::new();
        self.validate(schema, v, "$", &mut errs);
        errs
    }

    fn validate(&self, schema: &Value, v: &Value, at: &str, errs: &mut Vec<String>) {
        let s = match schema {
            Value::Object(s) => s,
            Value::Bool(true) => return,
            Value::Bool(false) => return errs.push(format!("{at}: no value is allowed here")),
            other => return errs.push(format!("{at}: schema is not an object: {other}")),
        };
        for k in s.keys() {
            if !KEYWORDS.contains(&k.as_str()) && !ANNOTATIONS.contains(&k.as_str()) {
                errs.push(format!(
                    "{at}: schema keyword `{k}` is not supported by this test"
                ));
            }
        }
        if let Some(r) = s.get("$ref") {
            let target = resolve(self.root, r.as_str().expect("$ref is a string"));
            self.validate(target, v, at, errs);
        }
        if let Some(t) = s.get("type") {
            let types: Vec<&str> = match t {
                Value::String(one) => vec![one.as_str()],
                Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
                other => panic!("type must be a string or an array: {other}"),
            };
            if !types.iter().any(|t| type_matches(t, v)) {
                return errs.push(format!(
                    "{at}: expected {}, got {}",
                    types.join("|"),
                    short(v)
                ));
            }
        }
        if let Some(allowed) = s.get("enum").and_then(Value::as_array) {
            if !allowed.contains(v) {
                errs.push(format!(
                    "{at}: {} is not one of {}",
                    short(v),
                    Value::from(allowed.clone())
                ));
            }
        }
        if let Some(c) = s.get("const") {
            if c != v {
                errs.push(format!("{at}: expected {c}, got {}", short(v)));
            }
        }
        match v {
            Value::Object(o) => self.object(s, o, at, errs),
            Value::Array(items) => {
                if let Some(item_schema) = s.get("items") {
                    for (i, item) in items.iter().enumerate() {
                        self.validate(item_schema, item, &format!("{at}[{i}]"), errs);
                    }
                }
            }
            Value::String(text) => {
                let len = text.chars().count();
                if let Some(min) = s.get("minLength").and_then(Value::as_u64) {
                    if (len as u64) < min {
                        errs.push(format!("{at}: {} is shorter than {min}", short(v)));
                    }
                }
                if let Some(max) = s.get("maxLength").and_then(Value::as_u64) {
                    if len as u64 > max {
                        errs.push(format!("{at}: {} is longer than {max}", short(v)));
                    }
                }
                if let Some(p) = s.get("pattern").and_then(Value::as_str) {
                    let re = regex_lite::Regex::new(p)
                        .unwrap_or_else(|e| panic!("pattern {p} does not compile: {e}"));
                    if !re.is_match(text) {
                        errs.push(format!("{at}: {} does not match {p}", short(v)));
                    }
                }
            }
            Value::Number(n) => {
                let x = n.as_f64().expect("a JSON number");
                if let Some(min) = s.get("minimum").and_then(Value::as_f64) {
                    if x < min {
                        errs.push(format!("{at}: {n} is below the minimum {min}"));
                    }
                }
                if let Some(max) = s.get("maximum").and_then(Value::as_f64) {
                    if x > max {
                        errs.push(format!("{at}: {n} is above the maximum {max}"));
                    }
                }
            }
            _ => {}
        }
        if let Some(all) = s.get("allOf").and_then(Value::as_array) {
            for sub in all {
                self.validate(sub, v, at, errs);
            }
        }
        if let Some(any) = s.get("anyOf").and_then(Value::as_array) {
            let branches: Vec<Vec<String>> = any.iter().map(|b| self.sub(b, v, at)).collect();
            if !branches.iter().any(Vec::is_empty) {
                errs.push(format!(
                    "{at}: matches none of anyOf: {}",
                    closest(&branches)
                ));
            }
        }
        if let Some(one) = s.get("oneOf").and_then(Value::as_array) {
            let branches: Vec<Vec<String>> = one.iter().map(|b| self.sub(b, v, at)).collect();
            match branches.iter().filter(|e| e.is_empty()).count() {
                1 => {}
                0 => errs.push(format!(
                    "{at}: matches none of oneOf: {}",
                    closest(&branches)
                )),
                n => errs.push(format!(
                    "{at}: matches {n} branches of oneOf, not exactly one"
                )),
            }
        }
    }

    fn sub(&self, schema: &Value, v: &Value, at: &str) -> Vec<String> {
        let mut errs = Vec::new();
        self.validate(schema, v, at, &mut errs);
        errs
    }

    fn object(
        &self,
        s: &serde_json::Map<String, Value>,
        o: &serde_json::Map<String, Value>,
        at: &str,
        errs: &mut Vec<String>,
    ) {
        let props = s.get("properties").and_then(Value::as_object);
        for r in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let r = r.as_str().expect("required names are strings");
            if !o.contains_key(r) {
                errs.push(format!("{at}: required property `{r}` is missing"));
            }
        }
        for (k, val) in o {
            let child = format!("{at}.{k}");
            match (props.and_then(|p| p.get(k)), s.get("additionalProperties")) {
                (Some(ps), _) => self.validate(ps, val, &child, errs),
                (None, Some(Value::Bool(false))) => {
                    errs.push(format!("{at}: property `{k}` is not in the schema"));
                }
                (None, Some(extra @ Value::Object(_))) => self.validate(extra, val, &child, errs),
                (None, _) => {}
            }
        }
        if let Some(max) = s.get("maxProperties").and_then(Value::as_u64) {
            if o.len() as u64 > max {
                errs.push(format!("{at}: more than {max} properties"));
            }
        }
    }
}

/// The errors of the branch that came closest, for a readable failure.
fn closest(branches: &[Vec<String>]) -> String {
    branches
        .iter()
        .min_by_key(|e| e.len())
        .map(|e| e.join("; "))
        .unwrap_or_default()
}

// ------------------------------------------------------------------------------ document tests

/// Calls `f` on every JSON object in `v`, with its JSON-pointer-ish location.
fn walk<'a>(v: &'a Value, at: &str, f: &mut dyn FnMut(&str, &'a serde_json::Map<String, Value>)) {
    match v {
        Value::Object(o) => {
            f(at, o);
            for (k, child) in o {
                walk(child, &format!("{at}/{k}"), f);
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                walk(child, &format!("{at}/{i}"), f);
            }
        }
        _ => {}
    }
}

/// The error codes a response schema can produce (`error.code` consts and enums).
fn codes_of(d: &Value, schema: &Value, out: &mut BTreeSet<String>) {
    let schema = deref(d, schema);
    for key in ["oneOf", "anyOf"] {
        for branch in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            codes_of(d, branch, out);
        }
    }
    if let Some(code) = schema.pointer("/properties/error/properties/code") {
        let code = deref(d, code);
        if let Some(c) = code.get("const").and_then(Value::as_str) {
            out.insert(c.to_owned());
        }
        for c in code
            .get("enum")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            out.insert(c.as_str().expect("codes are strings").to_owned());
        }
    }
}

#[test]
fn the_document_is_openapi_3_1_and_consistent() {
    let d = doc();
    let mut problems = Vec::new();
    let version = d["openapi"].as_str().unwrap_or("");
    assert!(
        version.starts_with("3.1."),
        "openapi is {version:?}, not 3.1.x"
    );
    assert!(d["info"]["title"].is_string() && d["info"]["version"].is_string());
    assert_eq!(
        d.pointer("/components/securitySchemes/bearerAuth/scheme"),
        Some(&json!("bearer"))
    );
    assert_eq!(d["security"], json!([{ "bearerAuth": [] }]));

    // Every $ref resolves.
    walk(d, "", &mut |at, o| {
        if let Some(r) = o.get("$ref").and_then(Value::as_str) {
            let ok = r.strip_prefix('#').is_some_and(|p| d.pointer(p).is_some());
            if !ok {
                problems.push(format!("{at}: $ref {r} does not resolve"));
            }
        }
    });

    // Only keywords this validator checks: validate every component schema against null and
    // keep only the keyword complaints.
    let v = Validator { root: d };
    for (name, schema) in d["components"]["schemas"].as_object().expect("schemas") {
        walk(schema, name, &mut |at, o| {
            let is_schema_map = at.ends_with("/properties");
            if !is_schema_map {
                for e in v.errors(&Value::Object(o.clone()), &Value::Null) {
                    if e.contains("is not supported") {
                        problems.push(format!("components.schemas.{at}: {e}"));
                    }
                }
            }
        });
    }

    // Error codes: the enum, one schema per code, the table in the description, the README.
    let codes = error_codes(d);
    let mut schema_codes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, schema) in d["components"]["schemas"].as_object().expect("schemas") {
        if let Some(c) = schema
            .pointer("/properties/error/properties/code/const")
            .and_then(Value::as_str)
        {
            schema_codes
                .entry(c.to_owned())
                .or_default()
                .push(name.clone());
        }
    }
    let description = d["info"]["description"].as_str().unwrap_or("");
    let readme = workspace_file("README.md");
    for code in &codes {
        match schema_codes.get(code).map(Vec::len) {
            Some(1) => {}
            n => problems.push(format!(
                "error code {code}: {n:?} error schemas, want exactly 1"
            )),
        }
        if !description.contains(&format!("| `{code}` |")) {
            problems.push(format!(
                "error code {code} is not in the info.description table"
            ));
        }
        if !readme.contains(&format!("`{code}`")) {
            problems.push(format!("error code {code} is not in README.md"));
        }
    }
    for code in schema_codes.keys() {
        if !codes.contains(code) {
            problems.push(format!(
                "error schema for {code}, which is not in ErrorCode"
            ));
        }
    }

    // Each operation: an id, a 2xx answer with an example, 401 and 500, error responses whose
    // codes are all in the enum, and examples that validate.
    for (route, op) in operations(d) {
        if !op["operationId"].is_string() {
            problems.push(format!("{route}: no operationId"));
        }
        let responses = op["responses"].as_object().expect("responses");
        let success: Vec<&String> = responses.keys().filter(|s| s.starts_with('2')).collect();
        if success.len() != 1 {
            problems.push(format!(
                "{route}: {} success responses, want 1",
                success.len()
            ));
        }
        for status in success {
            let media = deref(d, &responses[status]).pointer("/content/application~1json");
            if media.and_then(|m| m.get("examples")).is_none() {
                problems.push(format!("{route} {status}: no examples"));
            }
        }
        // Admin routes use IAM (SigV4) authorization: refused is 403, never 401.
        let iam = op["security"] == json!([{ "sigv4": [] }]);
        if route.contains(" /admin/") != iam {
            problems.push(format!(
                "{route}: admin routes, and only they, use security sigv4"
            ));
        }
        let (must, never) = if iam { ("403", "401") } else { ("401", "403") };
        for must in [must, "500"] {
            if !responses.contains_key(must) {
                problems.push(format!("{route}: no {must} response"));
            }
        }
        if responses.contains_key(never) {
            problems.push(format!("{route}: declares {never}, which it never answers"));
        }
        for (status, resp) in responses {
            let Some(schema) = deref(d, resp).pointer("/content/application~1json/schema") else {
                problems.push(format!("{route} {status}: no application/json schema"));
                continue;
            };
            if !status.starts_with('2') {
                let mut produced = BTreeSet::new();
                codes_of(d, schema, &mut produced);
                if produced.is_empty() {
                    problems.push(format!("{route} {status}: the schema names no error code"));
                }
                for c in produced.difference(&codes) {
                    problems.push(format!("{route} {status}: code {c} is not in ErrorCode"));
                }
            }
        }
    }

    // Every example (request bodies, responses, components) validates against its schema.
    let mut examples = 0;
    walk(d, "", &mut |at, o| {
        let (Some(schema), Some(ex)) = (o.get("schema"), o.get("examples")) else {
            return;
        };
        for (name, example) in ex.as_object().into_iter().flatten() {
            let value = &deref(d, example)["value"];
            examples += 1;
            for e in v.errors(schema, value) {
                problems.push(format!("example {at}/examples/{name}: {e}"));
            }
        }
    });
    assert!(examples >= 20, "only {examples} examples found");

    // GET /v1/payments/{id} is Payment plus transactions, field for field.
    let payment = &d["components"]["schemas"]["Payment"];
    let detail = &d["components"]["schemas"]["PaymentWithTransactions"];
    let mut want_required = payment["required"].as_array().expect("required").clone();
    want_required.push(json!("transactions"));
    if detail["required"].as_array() != Some(&want_required) {
        problems.push("PaymentWithTransactions.required is not Payment's plus transactions".into());
    }
    let strip = |props: &Value| -> BTreeMap<String, Value> {
        props
            .as_object()
            .expect("properties")
            .iter()
            .filter(|(k, _)| k.as_str() != "transactions")
            .map(|(k, v)| {
                let mut v = v.clone();
                if let Some(o) = v.as_object_mut() {
                    o.remove("description");
                }
                (k.clone(), v)
            })
            .collect()
    };
    if strip(&payment["properties"]) != strip(&detail["properties"]) {
        problems.push("PaymentWithTransactions' fields differ from Payment's".into());
    }

    assert!(
        problems.is_empty(),
        "docs/openapi.yaml:\n  {}",
        problems.join("\n  ")
    );
}

/// `"POST /v1/..."` for each `.route("/v1/...", post(...))` of the dev server's routers
/// (the merchant API's and the admin API's).
fn devserver_routes() -> BTreeSet<String> {
    let re = regex_lite::Regex::new(r#"\.route\(\s*"([^"]+)",\s*(get|post|put|patch|delete)\("#)
        .expect("regex");
    [
        "infra/devserver/src/router.rs",
        "infra/devserver/src/admin.rs",
    ]
    .iter()
    .flat_map(|file| {
        let src = workspace_file(file);
        re.captures_iter(&src)
            .map(|c| format!("{} {}", c[2].to_uppercase(), &c[1]))
            .collect::<Vec<_>>()
    })
    .collect()
}

/// `"POST /v1/..."` for each HttpApi event of `template.yaml`.
fn template_routes() -> BTreeSet<String> {
    let t: serde_norway::Value =
        serde_norway::from_str(&workspace_file("template.yaml")).expect("template.yaml parses");
    let mut out = BTreeSet::new();
    for (_, resource) in t["Resources"].as_mapping().expect("Resources") {
        for (_, event) in resource["Properties"]["Events"]
            .as_mapping()
            .into_iter()
            .flatten()
        {
            if event["Type"].as_str() == Some("HttpApi") {
                let p = &event["Properties"];
                out.insert(format!(
                    "{} {}",
                    p["Method"].as_str().expect("Method").to_uppercase(),
                    p["Path"].as_str().expect("Path")
                ));
            }
        }
    }
    out
}

#[test]
fn the_documented_routes_are_the_served_routes() {
    let documented: BTreeSet<String> = operations(doc()).into_keys().collect();
    let served = devserver_routes();
    assert_eq!(
        served.len(),
        18,
        "router.rs / admin.rs routes not found: {served:?}"
    );
    assert_eq!(
        documented, served,
        "docs/openapi.yaml vs infra/devserver/src/router.rs"
    );
    assert_eq!(
        documented,
        template_routes(),
        "docs/openapi.yaml vs template.yaml"
    );
}

// ------------------------------------------------------------------------------ live answers

/// The requests, in order, as a transcript. One request per line:
///
/// `KEY METHOD PATH STATUS [CODE] [BODY] [=> CHECK…]`
///
/// - KEY: `t` Anatolia's test key, `l` its live key, `b` Bosphorus' test key, `x` a
///   well-formed key that does not exist, `-` none; `A`: no key, the request is signed
///   with SigV4 and the seed's local admin credentials (the admin routes).
/// - STATUS and, for errors, the error CODE the answer must have.
/// - BODY: sent as `application/json`, as written; none when absent.
/// - CHECK: `/json/pointer=<json>` must hold in the answer; `@name` keeps the answer's `id`
///   as `{name}` for later lines, `@name:/json/pointer` the string at that pointer.
///
/// Every answer must also be declared for its route and status in the document and
/// validate against the declared schema. Seeded ids come from `infra/local/seed.json`;
/// `{isbank}`-style card numbers are Luhn-valid numbers with the seed's BINs. Simulator
/// triggers: amount 5100 declined, 9100 technical error, 9900 time-out (applied at the bank).
const SCENARIO: &str = r#"
# The test helper (test keys only)
t POST /v1/test_helpers/payments 201 {"amount": 20000, "currency": "TRY", "status": "captured"} => @sale /status="captured" /refundableAmount=20000
t POST /v1/test_helpers/payments 201 {"amount": 30000, "currency": "TRY", "status": "authorized", "accountId": "acc_anatoliaIsbank"} => @preauth
t POST /v1/test_helpers/payments 201 {"amount": 12000, "currency": "TRY", "status": "pending", "bankState": "approved"} => /status="pending"
l POST /v1/test_helpers/payments 404 not_found {"amount": 20000, "currency": "TRY", "status": "captured"}
- POST /v1/test_helpers/payments 401 unauthorized {"amount": 20000, "currency": "TRY", "status": "captured"}
t POST /v1/test_helpers/payments 400 invalid_request {"amount": 20000, "currency": "TRY", "status": "refunded"} => /error/details/field="status"
t POST /v1/test_helpers/payments 400 invalid_request {"amount": 100, "currency": "TRY", "status": "captured", "bankState": "approved"}
t POST /v1/test_helpers/payments 400 invalid_amount {"amount": 0, "currency": "TRY", "status": "captured"}
t POST /v1/test_helpers/payments 404 not_found {"amount": 100, "currency": "TRY", "status": "captured", "accountId": "acc_bosphorusAkbank"}

# Capture: partial, then refused; body and amount errors; simulator triggers; full capture
t POST /v1/payments/pay_anatoliaAuth1/capture 200 {"amount": 10000} => /payment/status="captured" /payment/capturedAmount=10000 /payment/refundableAmount=10000 /transaction/type="capture"
t POST /v1/payments/pay_anatoliaAuth1/capture 409 invalid_state => /error/details/status="captured"
t POST /v1/payments/{preauth}/capture 400 amount_exceeds_authorized {"amount": 30001} => /error/details/maxAmount=30000
t POST /v1/payments/{preauth}/capture 400 invalid_amount {"amount": -5}
t POST /v1/payments/{preauth}/capture 400 invalid_request {"amount": "100"}
t POST /v1/payments/{preauth}/capture 400 invalid_request {"amount": 1, "x": 1} => /error/details/field="x"
t POST /v1/payments/{preauth}/capture 400 invalid_request [1]
t POST /v1/payments/{preauth}/capture 400 invalid_request {not json
t POST /v1/payments/{preauth}/capture 422 provider_declined {"amount": 5100} => /error/details/transaction/status="declined" /error/details/payment/status="authorized"
t POST /v1/payments/{preauth}/capture 422 provider_error {"amount": 9100} => /error/details/transaction/status="failed" /error/details/payment/pendingOperation=null
t POST /v1/payments/{preauth}/capture 200 {} => /payment/capturedAmount=30000 /payment/status="captured"
b POST /v1/payments/pay_anatoliaAuth2/capture 404 not_found
l POST /v1/payments/pay_anatoliaAuth2/capture 404 not_found
x POST /v1/payments/pay_anatoliaAuth2/capture 401 unauthorized
t POST /v1/payments/not-a-payment-id/capture 404 not_found

# Refund: partial; triggers; limits; an unknown outcome locks the payment until a query
t POST /v1/payments/{sale}/refund 200 {"amount": 4990} => /payment/status="partially_refunded" /payment/refundedAmount=4990 /transaction/type="refund" /transaction/status="approved"
t POST /v1/payments/{sale}/refund 422 provider_declined {"amount": 5100} => /error/details/payment/refundedAmount=4990 /error/details/payment/status="partially_refunded"
t POST /v1/payments/{sale}/refund 422 provider_error {"amount": 9100} => /error/details/transaction/bankCode="91"
t POST /v1/payments/{sale}/refund 400 amount_exceeds_refundable {"amount": 15011} => /error/details/refundableAmount=15010
t POST /v1/payments/{sale}/refund 400 invalid_amount {"amount": 10000000001}
t POST /v1/payments/{sale}/refund 422 provider_error {"amount": 9900} => /error/details/transaction/status="unknown" /error/details/payment/pendingOperation/state="unknown"
t POST /v1/payments/{sale}/refund 409 operation_outcome_unknown {"amount": 100}
t POST /v1/payments/{sale}/cancel 409 operation_outcome_unknown
t POST /v1/payments/{sale}/query 200 => /payment/refundedAmount=14890 /payment/pendingOperation=null /bank/state="partially_refunded"
t POST /v1/payments/{sale}/cancel 409 invalid_state
t POST /v1/payments/{sale}/refund 200 => /payment/status="refunded" /payment/refundableAmount=0 /transaction/amount=5110
t POST /v1/payments/{sale}/refund 409 invalid_state
- POST /v1/payments/pay_anatoliaCapt1/refund 401 unauthorized
t POST /v1/payments/pay_anatoliaAuth2/refund 409 invalid_state

# Get: every transaction, oldest first; tenancy and modes
t GET /v1/payments/{sale} 200 => /status="refunded" /transactions/0/status="approved" /transactions/1/status="declined" /transactions/2/status="failed" /transactions/3/status="approved" /transactions/4/status="approved"
t GET /v1/payments/pay_anatoliaCapt2 200 => /transactions=[]
b GET /v1/payments/pay_anatoliaCapt2 404 not_found
- GET /v1/payments/pay_anatoliaCapt2 401 unauthorized
t GET /v1/payments/pay_anatoliaLive1 404 not_found
l GET /v1/payments/pay_anatoliaLive1 200 => /mode="live"

# Cancel: no body; after the bank's cut; an account without cancel; live mode
t POST /v1/test_helpers/payments 201 {"amount": 20000, "currency": "TRY", "status": "authorized"} => @voidable
t POST /v1/payments/{voidable}/cancel 400 invalid_request {"amount": 1}
t POST /v1/payments/{voidable}/cancel 200 => /payment/status="cancelled" /transaction/amount=20000
t POST /v1/payments/{voidable}/cancel 409 invalid_state {}
t POST /v1/test_helpers/payments 201 {"amount": 20000, "currency": "TRY", "status": "captured", "settled": true} => @late
t POST /v1/payments/{late}/cancel 422 provider_declined => /error/details/suggestedOperation="refund" /error/details/payment/status="captured"
b POST /v1/payments/pay_bosphorusCapt1/cancel 400 operation_not_supported => /error/details/operation="cancel" /error/details/accountId="acc_bosphorusYapikredi"
l POST /v1/payments/pay_anatoliaLive2/cancel 200 => /payment/status="cancelled"

# Query: pending payments are finalized; a query the bank cannot perform changes nothing
t POST /v1/payments/pay_anatoliaPend1/query 200 => /payment/status="authorized" /bank/state="preauth"
t POST /v1/payments/pay_anatoliaPend2/query 200 => /payment/status="declined" /bank/state="declined"
b POST /v1/payments/pay_bosphorusPend1/query 200 => /payment/status="captured" /payment/capturedAmount=12000
b POST /v1/payments/pay_bosphorusPend2/query 200 => /payment/status="failed" /bank/found=false
t POST /v1/test_helpers/payments 201 {"amount": 9100, "currency": "TRY", "status": "captured"} => @unqueryable
t POST /v1/payments/{unqueryable}/query 200 {} => /payment/status="captured" /bank={"found":true,"state":"unknown","amount":0,"code":"91","authCode":"","rrn":""}
t POST /v1/payments/pay_anatoliaCapt2/query 400 invalid_request {"x": 1}
t POST /v1/payments/pay_missing1/query 404 not_found
- POST /v1/payments/pay_anatoliaCapt2/query 401 unauthorized

# Points inquiry: BIN routing; bank decline and error are 200 with ok=false
t POST /v1/payments/points/inquiry 200 {"card": {"number": "{isbank}", "expMonth": "12", "expYear": "2030", "cvv": "123", "holder": "Ayşe Yılmaz"}, "currency": "TRY"} => /ok=true /accountId="acc_anatoliaIsbank" /providerCode="simulator"
t POST /v1/payments/points/inquiry 200 {"card": {"number": "{isbank5100}", "expMonth": "12", "expYear": "2030", "cvv": "123", "holder": "Ayşe Yılmaz"}, "currency": "TRY"} => /ok=false /failure/kind="declined" /balances=[]
t POST /v1/payments/points/inquiry 200 {"card": {"number": "{isbank9100}", "expMonth": "12", "expYear": "2030", "cvv": "123", "holder": "Ayşe Yılmaz"}, "currency": "TRY"} => /ok=false /failure/kind="provider_error"
b POST /v1/payments/points/inquiry 200 {"card": {"number": "{yapikredi}", "expMonth": "7", "expYear": "29", "cvv": "321", "holder": "Mehmet Demir"}, "currency": "TRY", "accountId": "acc_bosphorusYapikredi"} => /ok=true
t POST /v1/payments/points/inquiry 400 operation_not_supported {"card": {"number": "{garanti}", "expMonth": "12", "expYear": "2030", "cvv": "123", "holder": "Ayşe Yılmaz"}, "currency": "TRY"} => /error/details/operation="points_inquiry"
t POST /v1/payments/points/inquiry 400 no_account_for_card {"card": {"number": "{unknownbin}", "expMonth": "12", "expYear": "2030", "cvv": "123", "holder": "Ayşe Yılmaz"}, "currency": "TRY"}
t POST /v1/payments/points/inquiry 404 not_found {"card": {"number": "{isbank}", "expMonth": "12", "expYear": "2030", "cvv": "123", "holder": "Ayşe Yılmaz"}, "currency": "TRY", "accountId": "acc_bosphorusAkbank"}
t POST /v1/payments/points/inquiry 400 invalid_request {"card": {"number": "4543600000000004", "expMonth": "12", "expYear": "2030", "cvv": "123", "holder": "Ayşe Yılmaz"}, "currency": "TRY"} => /error/details/field="card.number"
t POST /v1/payments/points/inquiry 400 invalid_request {"card": {"number": "{isbank}", "expMonth": "12", "expYear": "2030", "cvv": "123", "holder": "Ayşe Yılmaz"}, "currency": "XYZ"} => /error/details/field="currency"
t POST /v1/payments/points/inquiry 400 invalid_request {"currency": "TRY"} => /error/details/field="card"
- POST /v1/payments/points/inquiry 401 unauthorized {"currency": "TRY"}

# Dashboard admin API (SigV4-signed; the stack retries on "1s", so a delivery to a refused
# address fails within seconds). Endpoint URLs at localhost are accepted (a host name) and
# refused at every delivery (it resolves to a loopback address): attempts end `blocked`.
A POST /admin/v1/merchants/mch_anatolia/webhook-endpoints 201 {"url": "https://localhost/paygate/hooks", "events": ["payment.captured", "payment.refunded"], "mode": "test", "description": "Orders"} => @endpoint /enabled=true /mode="test"
A POST /admin/v1/merchants/mch_anatolia/webhook-endpoints 201 {"url": "https://hooks.example.com/spare", "events": ["*"], "mode": "live"} => @spare
A POST /admin/v1/merchants/mch_anatolia/webhook-endpoints 400 invalid_request {"url": "https://10.0.0.5/hook", "events": ["*"], "mode": "test"} => /error/details/field="url"
A POST /admin/v1/merchants/mch_anatolia/webhook-endpoints 400 invalid_request {"url": "https://hooks.example.com/x", "events": ["payment.exploded"], "mode": "test"} => /error/details/field="events"
A POST /admin/v1/merchants/mch_nobody/webhook-endpoints 404 not_found {"url": "https://hooks.example.com/x", "events": ["*"], "mode": "test"}
- POST /admin/v1/merchants/mch_anatolia/webhook-endpoints 403 forbidden {"url": "https://hooks.example.com/x", "events": ["*"], "mode": "test"}
t GET /admin/v1/merchants/mch_anatolia/webhook-endpoints 403 forbidden
A GET /admin/v1/merchants/mch_anatolia/webhook-endpoints 200
A GET /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint} 200 => /url="https://localhost/paygate/hooks"
A GET /admin/v1/merchants/mch_bosphorus/webhook-endpoints/{endpoint} 404 not_found
A PATCH /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint} 200 {"description": "Refunds"} => /description="Refunds"
A PATCH /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint} 400 invalid_request {"url": "https://192.168.1.1/"} => /error/details/field="url"
A POST /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint}/rotate-secret 200 {"graceSeconds": 3600}
A POST /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint}/rotate-secret 400 invalid_request {"graceSeconds": -1} => /error/details/field="graceSeconds"
A POST /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint}/test 202 => @delivery @event:/eventId /eventType="webhook.test" /status="pending"
A GET /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint}/deliveries?limit=5 200
A GET /admin/v1/merchants/mch_anatolia/webhook-endpoints/{endpoint}/deliveries?status=lost 400 invalid_request => /error/details/field="status"
A GET /admin/v1/merchants/mch_anatolia/deliveries/{delivery} 200
A GET /admin/v1/merchants/mch_anatolia/deliveries/dlv_nothing 404 not_found
A GET /admin/v1/merchants/mch_anatolia/events/{event}/deliveries 200
A GET /admin/v1/merchants/mch_bosphorus/events/{event}/deliveries 404 not_found
A PATCH /admin/v1/merchants/mch_anatolia/webhook-endpoints/{spare} 200 {"enabled": false} => /enabled=false
A POST /admin/v1/merchants/mch_anatolia/webhook-endpoints/{spare}/test 409 endpoint_disabled
A DELETE /admin/v1/merchants/mch_anatolia/webhook-endpoints/{spare} 200 => /deleted=true
A DELETE /admin/v1/merchants/mch_anatolia/webhook-endpoints/{spare} 404 not_found
"#;

/// One HTTP answer as received.
struct Answer {
    status: u16,
    content_type: String,
    text: String,
}

/// How a request authenticates.
#[derive(Clone, Copy)]
enum Auth<'a> {
    None,
    Bearer(&'a str),
    /// SigV4 with the seed's local admin credentials.
    Admin,
}

async fn send(
    stack: &Stack,
    method: &str,
    path: &str,
    key: Option<&str>,
    body: Option<(&str, String)>,
) -> Answer {
    send_as(
        stack,
        method,
        path,
        key.map_or(Auth::None, Auth::Bearer),
        body,
    )
    .await
}

async fn send_as(
    stack: &Stack,
    method: &str,
    path: &str,
    auth: Auth<'_>,
    body: Option<(&str, String)>,
) -> Answer {
    let url = format!("{}{path}", stack.url);
    let mut req = stack.http.request(
        reqwest::Method::from_bytes(method.as_bytes()).expect("method"),
        &url,
    );
    match auth {
        Auth::None => {}
        Auth::Bearer(k) => req = req.header("authorization", format!("Bearer {k}")),
        Auth::Admin => {
            let creds = admin::admin_credentials();
            let signed_type: Vec<(&str, &str)> =
                body.iter().map(|(ct, _)| ("content-type", *ct)).collect();
            let payload = body.as_ref().map(|(_, b)| b.as_bytes()).unwrap_or_default();
            let headers = admin::sign_request_with_headers(
                method,
                &url,
                &signed_type,
                payload,
                &creds.access_key(),
                &creds.region,
                admin::now(),
            )
            .expect("signable");
            for (k, v) in headers {
                req = req.header(k, v);
            }
        }
    }
    if let Some((content_type, body)) = body {
        req = req.header("content-type", content_type).body(body);
    }
    let resp = req.send().await.expect("the stack answers");
    let status = resp.status().as_u16();
    let content_type = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let text = resp.text().await.expect("a body");
    Answer {
        status,
        content_type,
        text,
    }
}

/// The documented route (`"POST /v1/payments/{id}/refund"`) a request path falls under: the
/// matching template with the most literal segments.
fn route_of(method: &str, path: &str) -> Option<String> {
    let path = path.split('?').next().unwrap_or(path);
    let segments: Vec<&str> = path.split('/').collect();
    operations(doc())
        .into_keys()
        .filter_map(|route| {
            let (m, template) = route.split_once(' ')?;
            let t: Vec<&str> = template.split('/').collect();
            let fits = m == method
                && t.len() == segments.len()
                && t.iter()
                    .zip(&segments)
                    .all(|(t, s)| t.starts_with('{') || t == s);
            let literal = t.iter().filter(|t| !t.starts_with('{')).count();
            fits.then_some((literal, route))
        })
        .max()
        .map(|(_, route)| route)
}

/// Next whitespace-separated token of `s`, and the rest.
fn token(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    let end = s.find(' ').unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// Sends requests to the stack, validates every answer against the document and against
/// the scenario's expectations, and records what was covered.
struct Conformance<'a> {
    stack: &'a Stack,
    vars: BTreeMap<String, String>,
    failures: Vec<String>,
    /// Route → statuses seen.
    seen: BTreeMap<String, BTreeSet<u16>>,
    codes: BTreeSet<String>,
}

impl<'a> Conformance<'a> {
    fn new(stack: &'a Stack) -> Self {
        Self {
            stack,
            vars: BTreeMap::new(),
            failures: Vec::new(),
            seen: BTreeMap::new(),
            codes: BTreeSet::new(),
        }
    }

    fn substitute(&self, s: &str) -> String {
        self.vars
            .iter()
            .fold(s.to_owned(), |s, (k, v)| s.replace(&format!("{{{k}}}"), v))
    }

    /// Runs one line of [`SCENARIO`].
    async fn line(&mut self, line: &str) {
        let (request, checks) = line.split_once(" => ").unwrap_or((line, ""));
        let request = self.substitute(request);
        let (key, rest) = token(&request);
        let (method, rest) = token(rest);
        let (path, rest) = token(rest);
        let (status, rest) = token(rest);
        let (expect, rest) = if status.starts_with('2') {
            (status.to_owned(), rest)
        } else {
            let (code, rest) = token(rest);
            (format!("{status} {code}"), rest)
        };
        let k = keys();
        let auth = match key {
            "t" => Auth::Bearer(k.anatolia_test),
            "l" => Auth::Bearer(k.anatolia_live),
            "b" => Auth::Bearer(k.bosphorus_test),
            "x" => Auth::Bearer("sk_test_notAKeyAtAll0000000000"),
            "-" => Auth::None,
            "A" => Auth::Admin,
            other => panic!("unknown key {other:?} in: {line}"),
        };
        let body = rest.trim();
        let body = (!body.is_empty()).then(|| ("application/json", body.to_owned()));
        let what = format!("{method} {path}");
        let answer = send_as(self.stack, method, path, auth, body).await;
        let json = match route_of(method, path) {
            Some(route) => self.check(&route, &what, &answer),
            None => {
                self.failures
                    .push(format!("{what}: not a documented route"));
                Value::Null
            }
        };
        self.expect(&what, &answer, &json, &expect);
        for check in checks.split_whitespace() {
            if let Some(name) = check.strip_prefix('@') {
                let (name, pointer) = name.split_once(':').unwrap_or((name, "/id"));
                let id = json
                    .pointer(pointer)
                    .and_then(Value::as_str)
                    .unwrap_or("pay_missing")
                    .to_owned();
                self.vars.insert(name.to_owned(), id);
                continue;
            }
            let (pointer, want) = check.split_once('=').expect("CHECK is /pointer=<json>");
            let want: Value = serde_json::from_str(want)
                .unwrap_or_else(|e| panic!("bad JSON in check {check}: {e}"));
            if json.pointer(pointer) != Some(&want) {
                let got = json.pointer(pointer).map_or("nothing".to_owned(), short);
                self.failures
                    .push(format!("{what}: {pointer} should be {want}, is {got}"));
            }
        }
    }

    /// Checks `answer` to a request on the documented `route`; returns its JSON body.
    fn check(&mut self, route: &str, what: &str, answer: &Answer) -> Value {
        self.seen
            .entry(route.to_owned())
            .or_default()
            .insert(answer.status);
        match response_schema(doc(), route, answer.status) {
            Ok(schema) => self.check_against(what, schema, answer),
            Err(e) => {
                self.failures.push(format!("{what}: {e}: {}", answer.text));
                serde_json::from_str(&answer.text).unwrap_or(Value::Null)
            }
        }
    }

    fn check_against(&mut self, what: &str, schema: &Value, answer: &Answer) -> Value {
        if !answer.content_type.starts_with("application/json") {
            let ct = &answer.content_type;
            self.failures.push(format!("{what}: content-type {ct:?}"));
        }
        let Ok(body) = serde_json::from_str::<Value>(&answer.text) else {
            let text = &answer.text;
            self.failures.push(format!("{what}: not JSON: {text}"));
            return Value::Null;
        };
        let status = answer.status;
        for e in (Validator { root: doc() }).errors(schema, &body) {
            self.failures.push(format!("{what} ({status}): {e}"));
        }
        if status >= 400 {
            let code = body["error"]["code"].as_str().unwrap_or("<none>");
            if !error_codes(doc()).contains(code) {
                let problem = format!("{what}: error code {code} is not in ErrorCode");
                self.failures.push(problem);
            }
            self.codes.insert(code.to_owned());
        }
        body
    }

    /// Records a behaviour mismatch: `expect` is `"<status>"` or `"<status> <code>"`.
    fn expect(&mut self, what: &str, answer: &Answer, body: &Value, expect: &str) {
        let got = match body["error"]["code"].as_str() {
            Some(code) if expect.contains(' ') => format!("{} {code}", answer.status),
            _ => answer.status.to_string(),
        };
        if got != expect {
            let body = short(body);
            let problem = format!("{what}: expected {expect}, got {got}: {body}");
            self.failures.push(problem);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_answers_as_documented() {
    // One retry a second after a failure: the admin scenario's delivery fails within seconds.
    let webhook = WebhookOptions {
        schedule: paygate_domain::webhook::RetrySchedule::parse("1s").expect("a schedule"),
        ..WebhookOptions::default()
    };
    let stack = Stack::start_with_webhooks("openapi", webhook).await;
    let mut c = Conformance::new(&stack);
    for (name, prefix, suffix) in [
        ("isbank", "454360", ""),
        ("isbank5100", "454360", "5100"),
        ("isbank9100", "454360", "9100"),
        ("yapikredi", "450803", ""),
        ("garanti", "540669", ""),
        ("unknownbin", "979200", ""),
    ] {
        c.vars
            .insert(name.to_owned(), card_number(prefix, 16, suffix));
    }
    for line in SCENARIO.lines() {
        if !line.trim().is_empty() && !line.starts_with('#') {
            c.line(line).await;
        }
    }

    // Body hygiene on two routes: a non-JSON content type, and a body over 64 KiB.
    let t = Some(keys().anatolia_test);
    let refund = "/v1/payments/pay_anatoliaCapt2/refund";
    let plain = Some(("text/plain", r#"{"amount": 100}"#.to_owned()));
    let a = send(&stack, "POST", refund, t, plain.clone()).await;
    let body = c.check("POST /v1/payments/{id}/refund", refund, &a);
    c.expect(refund, &a, &body, "415 unsupported_media_type");
    let helper = "/v1/test_helpers/payments";
    let a = send(&stack, "POST", helper, t, plain).await;
    let body = c.check("POST /v1/test_helpers/payments", helper, &a);
    c.expect(helper, &a, &body, "415 unsupported_media_type");
    let big = format!("{{\"amount\": 1{}}}", " ".repeat(70_000));
    let a = send(&stack, "POST", refund, t, Some(("application/json", big))).await;
    let body = c.check("POST /v1/payments/{id}/refund", refund, &a);
    c.expect(refund, &a, &body, "413 request_too_large");

    // Parallel refunds of one payment: whatever each one gets must be documented.
    let path = "/v1/payments/pay_bosphorusCapt2/refund";
    let b = Some(keys().bosphorus_test);
    let one = || Some(("application/json", r#"{"amount": 100}"#.to_owned()));
    let parallel = (0..6).map(|_| send(&stack, "POST", path, b, one()));
    for a in futures::future::join_all(parallel).await {
        c.check("POST /v1/payments/{id}/refund", path, &a);
        if a.status != 200 && a.status != 409 {
            let problem = format!("parallel refund: {} {}", a.status, a.text);
            c.failures.push(problem);
        }
    }

    // Resend: once the test delivery has failed (its attempts to localhost are refused),
    // it is resent (202), and a resend while it is pending again is 409.
    let delivery = format!(
        "/admin/v1/merchants/mch_anatolia/deliveries/{}",
        c.vars["delivery"]
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let a = send_as(&stack, "GET", &delivery, Auth::Admin, None).await;
        let body = c.check(
            "GET /admin/v1/merchants/{merchantId}/deliveries/{deliveryId}",
            &delivery,
            &a,
        );
        if body["status"] == json!("failed") {
            if body["attempts"][0]["error"] != json!("blocked") {
                c.failures
                    .push(format!("the localhost attempt was not blocked: {body}"));
            }
            break;
        }
        if std::time::Instant::now() > deadline {
            c.failures
                .push(format!("the test delivery never failed: {body}"));
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let resend = format!("{delivery}/resend");
    let route = "POST /admin/v1/merchants/{merchantId}/deliveries/{deliveryId}/resend";
    let a = send_as(&stack, "POST", &resend, Auth::Admin, None).await;
    let body = c.check(route, &resend, &a);
    c.expect(&resend, &a, &body, "202");
    let a = send_as(&stack, "POST", &resend, Auth::Admin, None).await;
    let body = c.check(route, &resend, &a);
    c.expect(&resend, &a, &body, "409 delivery_pending");

    // Outside the documented routes: the dev server's own answers.
    for (method, path, schema, expect) in [
        (
            "DELETE",
            "/v1/payments/pay_anatoliaCapt2",
            "MethodNotAllowedError",
            "405 method_not_allowed",
        ),
        ("GET", "/v1/nothing/here", "NotFoundError", "404 not_found"),
    ] {
        let a = send(&stack, method, path, t, None).await;
        let schema = json!({ "$ref": format!("#/components/schemas/{schema}") });
        let body = c.check_against(path, &schema, &a);
        c.expect(path, &a, &body, expect);
    }

    // Coverage: every route's success answer, and the main error codes.
    for (route, op) in operations(doc()) {
        let success: u16 = op["responses"]
            .as_object()
            .and_then(|r| r.keys().find(|s| s.starts_with('2')))
            .and_then(|s| s.parse().ok())
            .expect("a success status");
        if !c.seen.get(&route).is_some_and(|s| s.contains(&success)) {
            let problem = format!("{route}: its {success} answer was never exercised");
            c.failures.push(problem);
        }
    }
    for code in [
        "invalid_request",
        "invalid_amount",
        "amount_exceeds_authorized",
        "amount_exceeds_refundable",
        "operation_not_supported",
        "no_account_for_card",
        "unauthorized",
        "not_found",
        "method_not_allowed",
        "invalid_state",
        "operation_outcome_unknown",
        "request_too_large",
        "unsupported_media_type",
        "provider_declined",
        "provider_error",
        "forbidden",
        "delivery_pending",
        "endpoint_disabled",
    ] {
        if !c.codes.contains(code) {
            c.failures
                .push(format!("error code {code} was never exercised"));
        }
    }
    let checked: usize = c.seen.values().map(BTreeSet::len).sum();
    assert!(
        c.failures.is_empty(),
        "{} problem(s) (route/status pairs seen: {checked}):\n  {}",
        c.failures.len(),
        c.failures.join("\n  ")
    );
}
