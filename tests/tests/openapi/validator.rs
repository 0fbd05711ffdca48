//! A validator for the subset of JSON Schema the document uses.

use serde_json::Value;

use crate::resolve;

// ------------------------------------------------------------------------------ the validator

/// The JSON Schema keywords the document may use; all of them are checked below.
const KEYWORDS: [&str; 19] = [
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
    "propertyNames",
    "minItems",
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
pub struct Validator<'a> {
    pub root: &'a Value,
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

pub fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 160 {
        format!("{}…", s.chars().take(160).collect::<String>())
    } else {
        s
    }
}

impl Validator<'_> {
    pub fn errors(&self, schema: &Value, v: &Value) -> Vec<String> {
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
                if let Some(min) = s.get("minItems").and_then(Value::as_u64) {
                    if (items.len() as u64) < min {
                        errs.push(format!("{at}: fewer than {min} items"));
                    }
                }
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
        if let Some(names) = s.get("propertyNames") {
            for k in o.keys() {
                self.validate(
                    names,
                    &Value::from(k.as_str()),
                    &format!("{at} (name {k:?})"),
                    errs,
                );
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
