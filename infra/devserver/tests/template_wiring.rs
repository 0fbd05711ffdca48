//! One composition root: every function's dependencies come from its `paygate_compose`
//! builder, for the Lambda (names from the template's environment) and the dev server
//! (this stack's names) alike. For every function of `template.yaml`:
//! - its Lambda `Deps` builds from the variables the template gives it and nothing else
//!   (a required name missing from the template fails here, not at init in AWS);
//! - the dev server's names build the same `Deps` with the same builder, reading the same
//!   keys, and each key gives the local stack's table, queue or prefix.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/functions.rs"]
mod functions;
mod support;

use std::collections::BTreeMap;

use functions::{wiring, DEPLOY_ONLY, FUNCTIONS};
use paygate_aws::{dynamo::schema::table_names, sqs::QueueUrls};
use paygate_compose::{Build, Names};
use support::{s, template};

/// A function's environment in the template (Globals, then its own): literal values as
/// they are, a `!Ref` to a parameter as its default, any other intrinsic as a stand-in for
/// the name it resolves to.
fn template_env(t: &serde_norway::Value, function: &str) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    for vars in [
        &t["Globals"]["Function"]["Environment"]["Variables"],
        &t["Resources"][function]["Properties"]["Environment"]["Variables"],
    ] {
        if let Some(m) = vars.as_mapping() {
            for (k, v) in m {
                // An `!If` on a deploy mode (edge protection, static egress) is set only
                // outside the default mode: absent here.
                if matches!(v, serde_norway::Value::Tagged(tagged) if tagged.tag == "If") {
                    continue;
                }
                env.insert(s(k), value(t, v));
            }
        }
    }
    env
}

fn value(t: &serde_norway::Value, v: &serde_norway::Value) -> String {
    let scalar = |v: &serde_norway::Value| {
        v.as_str()
            .map(str::to_owned)
            .or_else(|| v.as_u64().map(|n| n.to_string()))
    };
    match v {
        serde_norway::Value::Tagged(tagged) => tagged
            .value
            .as_str()
            .filter(|_| tagged.tag.to_string().ends_with("Ref"))
            .and_then(|p| scalar(&t["Parameters"][p]["Default"]))
            .unwrap_or_else(|| format!("{v:?}")),
        _ => scalar(v).unwrap_or_else(|| format!("{v:?}")),
    }
}

fn local_names() -> Names {
    let queues = QueueUrls {
        events: "http://moto/q/t-EventsQueue".into(),
        events_dlq: "http://moto/q/t-EventsDLQ".into(),
        deliveries: "http://moto/q/t-DeliveriesQueue".into(),
        deliveries_dlq: "http://moto/q/t-DeliveriesDLQ".into(),
    };
    paygate_devserver::local_names(
        &table_names("t-"),
        &queues,
        "paygate/local/t-banks/",
        &paygate_devserver::card_key_secret("t-"),
    )
}

#[test]
fn the_template_lists_every_function_the_dev_server_wires() {
    let t = template();
    let mut deployed: Vec<String> = support::resources_of_type(&t, "AWS::Serverless::Function")
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    deployed.sort();
    let mut wired: Vec<String> = FUNCTIONS.iter().map(|(f, _)| f.to_string()).collect();
    wired.sort();
    assert_eq!(deployed, wired);
}

#[test]
fn every_lambda_builds_from_its_template_variables_alone() {
    let t = template();
    for (function, builder) in FUNCTIONS {
        let env = template_env(&t, function);
        assert!(!env.is_empty(), "{function} has no environment");
        let w = wiring(Names::from_map(env.clone()));
        if let Err(e) = builder(&w) {
            panic!("{function} does not build from its template variables: {e}");
        }
        // Whatever it reads and the template does not set is an optional setting.
        for (key, value) in w.names.handed_out() {
            assert_eq!(value.is_some(), env.contains_key(&key), "{function}: {key}");
        }
    }
}

#[test]
fn the_dev_server_builds_every_function_with_the_lambdas_builder_and_names() {
    let t = template();
    let local = table_names("t-");
    let by_var: BTreeMap<&str, String> = local.env_pairs().into_iter().collect();
    for (function, builder) in FUNCTIONS {
        if DEPLOY_ONLY.contains(&function) {
            continue;
        }
        let deployed = wiring(Names::from_map(template_env(&t, function)));
        builder(&deployed).unwrap();
        let dev = wiring(local_names());
        if let Err(e) = builder(&dev) {
            panic!("the dev server cannot build {function}: {e}");
        }
        assert_eq!(
            dev.names.keys_read(),
            deployed.names.keys_read(),
            "{function} reads other names locally than deployed"
        );
        for (key, value) in dev.names.handed_out() {
            if let Some(table) = by_var.get(key.as_str()) {
                assert_eq!(value.as_deref(), Some(table.as_str()), "{function}: {key}");
            }
        }
    }
}

#[test]
fn get_payment_reads_the_payments_table_only_deployed_and_local() {
    // Besides the throttling settings every merchant route reads.
    let t = template();
    for names in [
        Names::from_map(template_env(&t, "GetPaymentFunction")),
        local_names(),
    ] {
        let w = wiring(names);
        fn_get_payment::Deps::build(&w).unwrap();
        assert_eq!(
            w.names.keys_read().into_iter().collect::<Vec<_>>(),
            [
                "PAYGATE_POINTS_CARD_THROTTLE_PER_HOUR",
                "PAYGATE_POINTS_CARD_THROTTLE_PER_MINUTE",
                "PAYGATE_POINTS_MERCHANT_THROTTLE_BURST",
                "PAYGATE_POINTS_MERCHANT_THROTTLE_PER_MINUTE",
                "PAYGATE_POINTS_THROTTLE_BURST",
                "PAYGATE_POINTS_THROTTLE_PER_MINUTE",
                "PAYGATE_THROTTLE_BURST",
                "PAYGATE_THROTTLE_PER_MINUTE",
                "PAYMENTS_TABLE",
                "STAGE",
                "THROTTLE_TABLE",
            ]
        );
    }
}
