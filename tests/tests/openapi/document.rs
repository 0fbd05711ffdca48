//! The document itself (part 1) and its routes against the served ones (part 2).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::{deref, doc, error_codes, operations, validator::Validator, workspace_file};

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

    // Error codes: the enum, one schema per code, the table in the description, docs/api.md.
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
    let api_doc = workspace_file("docs/api.md");
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
        if !api_doc.contains(&format!("`{code}`")) {
            problems.push(format!("error code {code} is not in docs/api.md"));
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
        29,
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
