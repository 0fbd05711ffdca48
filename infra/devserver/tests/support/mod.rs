//! Reading `template.yaml` in the drift tests: resources, intrinsics, policies, events.
#![allow(dead_code)] // each test binary uses a different part of it

use serde_norway::Value;

/// `template.yaml`, parsed.
pub fn template() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../template.yaml");
    serde_norway::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A string value, or empty.
pub fn s(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_owned()
}

/// The operand of an intrinsic in short form (`!Ref X` -> `X` for tag `Ref`).
pub fn intrinsic(v: &Value, tag: &str) -> Option<String> {
    match v {
        Value::Tagged(t) if t.tag == tag => t.value.as_str().map(str::to_owned),
        _ => None,
    }
}

/// `(logical id, resource)` of every resource of type `ty`.
pub fn resources_of_type<'a>(t: &'a Value, ty: &str) -> Vec<(String, &'a Value)> {
    t["Resources"]
        .as_mapping()
        .unwrap()
        .iter()
        .filter(|(_, r)| r["Type"].as_str() == Some(ty))
        .map(|(k, r)| (s(k), r))
        .collect()
}

/// A function's timeout: its own, else the Globals one.
pub fn timeout_secs(t: &Value, function: &str) -> u64 {
    let own = &t["Resources"][function]["Properties"]["Timeout"];
    own.as_u64()
        .or_else(|| t["Globals"]["Function"]["Timeout"].as_u64())
        .unwrap_or_else(|| panic!("{function} has no timeout"))
}

/// The function's inline policy statements.
pub fn statements(t: &Value, function: &str) -> Vec<Value> {
    t["Resources"][function]["Properties"]["Policies"]
        .as_sequence()
        .into_iter()
        .flatten()
        .flat_map(|p| p["Statement"].as_sequence().cloned().unwrap_or_default())
        .collect()
}

/// Whether one of the function's inline policy statements allows `action` on `resource`.
pub fn allows(t: &Value, function: &str, action: &str, resource: &Value) -> bool {
    let as_list = |v: &Value| -> Vec<Value> {
        match v.as_sequence() {
            Some(seq) if !matches!(v, Value::Tagged(_)) => seq.clone(),
            _ => vec![v.clone()],
        }
    };
    statements(t, function).into_iter().any(|st| {
        st["Effect"].as_str() == Some("Allow")
            && as_list(&st["Action"])
                .iter()
                .any(|a| a.as_str() == Some(action))
            && as_list(&st["Resource"]).contains(resource)
    })
}

/// `!GetAtt resource.attr`.
pub fn get_att(resource: &str, attr: &str) -> Value {
    serde_norway::from_str(&format!("!GetAtt {resource}.{attr}")).unwrap()
}

/// Every HttpApi event: (function, "METHOD /path", its `Auth.Authorizer` if any).
pub fn http_events(t: &Value) -> Vec<(String, String, Option<String>)> {
    let mut out = Vec::new();
    for (function, r) in resources_of_type(t, "AWS::Serverless::Function") {
        for (_, e) in r["Properties"]["Events"].as_mapping().into_iter().flatten() {
            if e["Type"].as_str() == Some("HttpApi") {
                let p = &e["Properties"];
                out.push((
                    function.clone(),
                    format!("{} {}", s(&p["Method"]), s(&p["Path"])),
                    p["Auth"]["Authorizer"].as_str().map(str::to_owned),
                ));
            }
        }
    }
    out
}
