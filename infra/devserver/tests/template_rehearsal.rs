//! The deploy rehearsal (issue 21, item 10): no AWS account is reachable here, so the
//! template is proven the nearest way. `scripts/sam_rehearse.py` runs the SAM transform
//! (aws-sam-translator, pinned in scripts/venv.sh) for every deploy mode (`default`,
//! `static-ips`, `waf`, `all-at-once`, `everything`) and decides each mode's conditions;
//! over each resulting plain CloudFormation template this checks that
//! - every `Ref`, `Fn::GetAtt`, `Fn::Sub` name and `DependsOn` resolves;
//! - every function's environment is what its code reads: its Lambda builder builds from it,
//!   each of its own variables is read, each global one by some function;
//! - every function's role allows exactly the calls of `support/iam.rs`, the one table of
//!   what each function calls, and the network-interface rights exist only in `static-ips` mode;
//! - the payment functions are invoked through their `live` alias, shifted by CodeDeploy
//!   after the pre-traffic hook.
//!
//! `make test` also runs `sam validate --lint` and cfn-lint over the resolved templates
//! (`make rehearse`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/functions.rs"]
mod functions;
#[path = "support/iam.rs"]
mod iam;
mod support;

use std::{
    collections::{BTreeMap, BTreeSet},
    path::PathBuf,
    sync::OnceLock,
};

use paygate_compose::Names;
use serde_json::Value;

/// The functions that join the VPC in `static-ips` mode (template_egress.rs).
const IN_VPC: [&str; 8] = [
    "CapturePaymentFunction",
    "CancelPaymentFunction",
    "RefundPaymentFunction",
    "QueryPaymentFunction",
    "PointsInquiryFunction",
    "TestCreatePaymentFunction",
    "ReconcilerFunction",
    "WebhookDeliverFunction",
];

/// The functions behind the `live` alias, deployed by CodeDeploy after the smoke test.
const ALIASED: [&str; 5] = [
    "GetPaymentFunction",
    "CapturePaymentFunction",
    "CancelPaymentFunction",
    "RefundPaymentFunction",
    "QueryPaymentFunction",
];

/// One rehearsed deploy: its parameters and its plain CloudFormation.
struct Scenario {
    name: String,
    parameters: BTreeMap<String, String>,
    template: Value,
}

/// Every scenario, rehearsed once per test binary.
fn scenarios() -> &'static [Scenario] {
    static ONCE: OnceLock<Vec<Scenario>> = OnceLock::new();
    ONCE.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        let python = root.join(".venv/sam/bin/python");
        assert!(
            python.exists(),
            "{} is missing: run `bash scripts/venv.sh sam` (make test does)",
            python.display()
        );
        let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rehearsal");
        let status = std::process::Command::new(&python)
            .arg(root.join("scripts/sam_rehearse.py"))
            .arg("--out")
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("scripts/sam_rehearse.py runs");
        assert!(status.success(), "the SAM transform failed: {status}");
        let mut all = Vec::new();
        for entry in std::fs::read_dir(&out).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let Some(name) = name.strip_suffix(".json") else {
                continue;
            };
            if name.ends_with(".cfn") {
                continue;
            }
            let doc: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let parameters = doc["parameters"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect();
            all.push(Scenario {
                name: name.to_owned(),
                parameters,
                template: doc["template"].clone(),
            });
        }
        all.sort_by(|a, b| a.name.cmp(&b.name));
        let names: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            ["all-at-once", "default", "everything", "static-ips", "waf"],
            "the rehearsed scenarios"
        );
        all
    })
}

fn resources(t: &Value) -> &serde_json::Map<String, Value> {
    t["Resources"].as_object().unwrap()
}

/// The logical ids of the resources of type `ty`.
fn of_type<'a>(t: &'a Value, ty: &str) -> Vec<(&'a String, &'a Value)> {
    resources(t)
        .iter()
        .filter(|(_, r)| r["Type"] == ty)
        .collect()
}

/// Every name a value refers to: `(kind, name)` for `Ref`, `GetAtt` and `${}` in `Fn::Sub`.
fn references(v: &Value, out: &mut Vec<(&'static str, String)>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("Ref") {
                out.push(("Ref", r.clone()));
            }
            if let Some(a) = m.get("Fn::GetAtt") {
                let target = match a {
                    Value::Array(parts) => parts[0].as_str().unwrap_or_default().to_owned(),
                    Value::String(s) => s.split('.').next().unwrap_or_default().to_owned(),
                    _ => String::new(),
                };
                out.push(("GetAtt", target));
            }
            if let Some(sub) = m.get("Fn::Sub") {
                let (text, vars) = match sub {
                    Value::String(s) => (s.as_str(), None),
                    Value::Array(a) => (a[0].as_str().unwrap_or_default(), a[1].as_object()),
                    _ => ("", None),
                };
                let mut rest = text;
                while let Some(i) = rest.find("${") {
                    let after = &rest[i + 2..];
                    let Some(j) = after.find('}') else { break };
                    let name = &after[..j];
                    rest = &after[j + 1..];
                    if name.starts_with('!') || vars.is_some_and(|v| v.contains_key(name)) {
                        continue;
                    }
                    let target = name.split('.').next().unwrap_or_default();
                    out.push(("Sub", target.to_owned()));
                }
            }
            for child in m.values() {
                references(child, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|c| references(c, out)),
        _ => {}
    }
}

#[test]
fn every_reference_resolves_in_every_mode() {
    for sc in scenarios() {
        let t = &sc.template;
        assert!(
            t.get("Conditions").is_none(),
            "{}: conditions left",
            sc.name
        );
        let res = resources(t);
        let params: BTreeSet<&String> = t["Parameters"].as_object().unwrap().keys().collect();
        let mut refs = Vec::new();
        references(&t["Resources"], &mut refs);
        references(&t["Outputs"], &mut refs);
        assert!(refs.len() > 300, "{}: {} references", sc.name, refs.len());
        for (kind, name) in &refs {
            let ok = name.starts_with("AWS::")
                || res.contains_key(name)
                || (*kind != "GetAtt" && params.contains(name));
            assert!(ok, "{}: {kind} {name} names nothing", sc.name);
        }
        for (id, r) in res {
            let deps = match &r["DependsOn"] {
                Value::String(s) => vec![s.clone()],
                Value::Array(a) => a
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect(),
                _ => vec![],
            };
            for d in deps {
                assert!(
                    res.contains_key(&d),
                    "{}: {id} depends on missing {d}",
                    sc.name
                );
            }
        }
    }
}

/// An IAM resource as the table spells it.
fn render(r: &Value) -> String {
    match r {
        Value::String(s) => s.clone(),
        Value::Object(m) => {
            if let Some(a) = m.get("Fn::GetAtt").and_then(Value::as_array) {
                let (res, attr) = (a[0].as_str().unwrap(), a[1].as_str().unwrap());
                return if attr == "Arn" {
                    res.to_owned()
                } else {
                    format!("{res}.{attr}")
                };
            }
            if let Some(Value::String(r)) = m.get("Ref") {
                return r.clone();
            }
            if let Some(sub) = m.get("Fn::Sub") {
                let text = sub.as_str().or_else(|| sub[0].as_str()).unwrap_or_default();
                let mut s = text.to_owned();
                // arn:${AWS::Partition}:<service>:${AWS::Region}:${AWS::AccountId}: -> <service>:
                if let Some(rest) = s.strip_prefix("arn:${AWS::Partition}:") {
                    if let Some((service, tail)) = rest.split_once(':') {
                        if let Some(tail) = tail.strip_prefix("${AWS::Region}:${AWS::AccountId}:") {
                            s = format!("{service}:{tail}");
                        }
                    }
                }
                // ${X.Arn} -> X
                while let Some(i) = s.find(".Arn}") {
                    let start = s[..i].rfind("${").unwrap();
                    s = format!("{}{}{}", &s[..start], &s[start + 2..i], &s[i + 5..]);
                }
                return s;
            }
            serde_json::to_string(r).unwrap()
        }
        other => other.to_string(),
    }
}

fn as_list(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a.clone(),
        Value::Null => vec![],
        other => vec![other.clone()],
    }
}

/// `(allowed "<action> <resource>", denied actions)` of a function's role.
fn role_calls(t: &Value, function: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let role = t["Resources"][function]["Properties"]["Role"]["Fn::GetAtt"][0]
        .as_str()
        .unwrap_or_else(|| panic!("{function} has no role of its own"));
    let mut allowed = BTreeSet::new();
    let mut denied = BTreeSet::new();
    for policy in as_list(&t["Resources"][role]["Properties"]["Policies"]) {
        for st in as_list(&policy["PolicyDocument"]["Statement"]) {
            for action in as_list(&st["Action"]) {
                let action = action.as_str().unwrap().to_owned();
                if st["Effect"] == "Deny" {
                    denied.insert(action);
                    continue;
                }
                for r in as_list(&st["Resource"]) {
                    allowed.insert(format!("{action} {}", render(&r)));
                }
            }
        }
    }
    (allowed, denied)
}

#[test]
fn every_role_allows_exactly_what_its_function_calls_in_every_mode() {
    let table: BTreeMap<&str, BTreeSet<String>> = iam::IAM
        .iter()
        .map(|(f, calls)| (*f, calls.iter().map(|c| (*c).to_owned()).collect()))
        .collect();
    for sc in scenarios() {
        let t = &sc.template;
        let static_ips = sc.parameters["EgressMode"] == "static-ips";
        let functions: BTreeSet<&str> = of_type(t, "AWS::Lambda::Function")
            .into_iter()
            .map(|(id, _)| id.as_str())
            .collect();
        assert_eq!(
            functions,
            table.keys().copied().collect(),
            "{}: the functions vs the IAM table",
            sc.name
        );
        for function in functions {
            let (allowed, denied) = role_calls(t, function);
            let want = &table[function];
            let extra: Vec<&String> = allowed.difference(want).collect();
            let missing: Vec<&String> = want.difference(&allowed).collect();
            assert!(
                extra.is_empty() && missing.is_empty(),
                "{}: {function}'s role allows {extra:?} beyond the IAM table and lacks \
                 {missing:?} (update template.yaml or the table in tests/support/iam.rs)",
                sc.name
            );
            let role = t["Resources"][function]["Properties"]["Role"]["Fn::GetAtt"][0]
                .as_str()
                .unwrap();
            let managed: Vec<String> =
                as_list(&t["Resources"][role]["Properties"]["ManagedPolicyArns"])
                    .iter()
                    .map(|a| {
                        a.as_str()
                            .unwrap_or_default()
                            .rsplit('/')
                            .next()
                            .unwrap()
                            .to_owned()
                    })
                    .collect();
            let vpc = IN_VPC.contains(&function);
            let mut want_managed = vec!["AWSLambdaBasicExecutionRole", "AWSXrayWriteOnlyAccess"];
            if vpc {
                // SAM attaches it for any VpcConfig, even one that comes to nothing.
                want_managed.push("AWSLambdaVPCAccessExecutionRole");
            }
            assert_eq!(managed, want_managed, "{}: {function}", sc.name);
            // The network-interface rights: usable in static-ips mode only.
            let takes_back = vpc && !static_ips;
            assert_eq!(
                denied.contains("ec2:CreateNetworkInterface"),
                takes_back,
                "{}: {function} denies {denied:?}",
                sc.name
            );
            let props = &t["Resources"][function]["Properties"];
            assert_eq!(
                props.get("VpcConfig").is_some(),
                vpc && static_ips,
                "{}: {function}'s VpcConfig",
                sc.name
            );
        }
    }
}

#[test]
fn every_function_is_handed_the_variables_its_code_reads_and_no_other_in_every_mode() {
    // Read outside the names: RUST_LOG by the logging setup (the log filter), the partition
    // table's path by the AWS SDK itself (paygate_aws::partitions).
    let outside_names = ["RUST_LOG", paygate_aws::partitions::VAR];
    let raw = support::template();
    let globals: BTreeSet<String> = raw["Globals"]["Function"]["Environment"]["Variables"]
        .as_mapping()
        .unwrap()
        .keys()
        .map(support::s)
        .collect();
    let mut unused = Vec::new();
    for sc in scenarios() {
        let t = &sc.template;
        let mut globals_read = BTreeSet::new();
        for (function, builder) in functions::FUNCTIONS {
            let vars = t["Resources"][function]["Properties"]["Environment"]["Variables"]
                .as_object()
                .unwrap_or_else(|| panic!("{}: {function} has no environment", sc.name));
            // Literals as they are, parameters at this scenario's values, anything else
            // (a table name, a version ARN, a resolved secret) a stand-in of a secret's length.
            let env: BTreeMap<String, String> = vars
                .iter()
                .map(|(k, v)| {
                    let value = match v {
                        Value::String(s) => s.clone(),
                        Value::Object(m) => m
                            .get("Ref")
                            .and_then(Value::as_str)
                            .and_then(|p| sc.parameters.get(p).cloned())
                            .unwrap_or_else(|| "resolved-at-deploy-0123456789abcdefghij".into()),
                        other => other.to_string(),
                    };
                    (k.clone(), value)
                })
                .collect();
            let w = functions::wiring(Names::from_map(env.clone()));
            if let Err(e) = builder(&w) {
                panic!(
                    "{}: {function} does not start with its environment: {e}",
                    sc.name
                );
            }
            let read = w.names.keys_read();
            for var in env.keys() {
                if outside_names.contains(&var.as_str()) {
                    continue;
                }
                if globals.contains(var) {
                    if read.contains(var) {
                        globals_read.insert(var.clone());
                    }
                } else if !read.contains(var) {
                    unused.push(format!("{}: {function} {var}", sc.name));
                }
            }
        }
        let unread: Vec<&String> = globals
            .iter()
            .filter(|g| !outside_names.contains(&g.as_str()) && !globals_read.contains(*g))
            .collect();
        assert!(
            unused.is_empty(),
            "variables handed to a function whose code never reads them: {unused:#?}"
        );
        assert!(
            unread.is_empty(),
            "{}: no function reads the globals {unread:?}",
            sc.name
        );
    }
}

#[test]
fn the_payment_functions_are_invoked_through_the_alias_codedeploy_shifts() {
    for sc in scenarios() {
        let t = &sc.template;
        let res = resources(t);
        let want_config = format!(
            "CodeDeployDefault.Lambda{}",
            sc.parameters["DeploymentType"]
        );
        for function in ALIASED {
            let alias = format!("{function}Aliaslive");
            let a = &res[&alias];
            assert_eq!(a["Type"], "AWS::Lambda::Alias", "{}: {alias}", sc.name);
            let update = &a["UpdatePolicy"]["CodeDeployLambdaAliasUpdate"];
            assert_eq!(
                update["BeforeAllowTrafficHook"]["Ref"], "PreTrafficHookFunction",
                "{}: {function}",
                sc.name
            );
            let group = update["DeploymentGroupName"]["Ref"].as_str().unwrap();
            let g = &res[group]["Properties"];
            assert_eq!(
                g["DeploymentConfigName"]["Fn::Sub"][1]["ConfigName"]
                    .as_str()
                    .map(|c| format!("CodeDeployDefault.Lambda{c}")),
                Some(want_config.clone()),
                "{}: {function}",
                sc.name
            );
            let alarms: BTreeSet<String> = as_list(&g["AlarmConfiguration"]["Alarms"])
                .iter()
                .map(|a| a["Name"]["Ref"].as_str().unwrap_or_default().to_owned())
                .collect();
            for alarm in ["CanaryErrorsAlarm", "BankErrorRateAlarm"] {
                assert!(
                    alarms.contains(alarm),
                    "{}: {function} without {alarm}",
                    sc.name
                );
                assert!(res.contains_key(alarm));
            }
            assert_eq!(g["AutoRollbackConfiguration"]["Enabled"], true);
            // API Gateway and its permission name the alias, never the function.
            let body = serde_json::to_string(&t["Resources"]["PaygateApi"]).unwrap();
            assert!(
                body.contains(&format!("${{{alias}}}/invocations")),
                "{}: the API does not invoke {alias}",
                sc.name
            );
            assert!(
                !body.contains(&format!("${{{function}.Arn}}")),
                "{}: the API invokes {function} unaliased",
                sc.name
            );
        }
        // The hook smoke-tests exactly the versions this deploy published.
        let targets = t["Resources"]["PreTrafficHookFunction"]["Properties"]["Environment"]
            ["Variables"][fn_deploy_hook::TARGETS_ENV]["Fn::Sub"]
            .as_str()
            .unwrap();
        let versions: BTreeSet<String> = of_type(t, "AWS::Lambda::Version")
            .into_iter()
            .map(|(id, _)| format!("${{{id}}}"))
            .collect();
        let named: BTreeSet<String> = targets.split(',').map(str::to_owned).collect();
        assert_eq!(named, versions, "{}: the hook's targets", sc.name);
        let name =
            &t["Resources"]["PreTrafficHookFunction"]["Properties"]["FunctionName"]["Fn::Sub"];
        assert!(
            name.as_str()
                .is_some_and(|n| n.starts_with("CodeDeployHook_")),
            "{}: CodeDeploy's role invokes CodeDeployHook_* only",
            sc.name
        );
    }
}
