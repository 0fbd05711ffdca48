//! The command line model: what parses, into what, and what does not.

use clap::Parser;

use super::*;
use crate::commands::{
    deliveries::{DeliveriesCommand, Status},
    endpoints::{EndpointsCommand, Mode},
    trigger::TriggerEvent,
};

fn parse(args: &[&str]) -> Cli {
    let mut argv = vec!["paygate"];
    argv.extend_from_slice(args);
    Cli::try_parse_from(argv).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

fn fails(args: &[&str]) -> bool {
    let mut argv = vec!["paygate"];
    argv.extend_from_slice(args);
    Cli::try_parse_from(argv).is_err()
}

#[test]
fn endpoints_create_takes_events_mode_and_description() {
    let cli = parse(&[
        "endpoints",
        "create",
        "--url",
        "https://shop.example/hooks",
        "--events",
        "payment.captured,payment.refunded",
        "--mode",
        "live",
        "--description",
        "shop",
    ]);
    let Command::Endpoints(EndpointsCommand::Create(a)) = cli.command else {
        panic!("not create")
    };
    assert_eq!(a.url, "https://shop.example/hooks");
    assert_eq!(a.events, ["payment.captured", "payment.refunded"]);
    assert_eq!(a.mode, Mode::Live);
    assert_eq!(a.description.as_deref(), Some("shop"));

    let cli = parse(&[
        "endpoints",
        "create",
        "--url",
        "https://x",
        "--events",
        "*",
        "--mode",
        "test",
    ]);
    let Command::Endpoints(EndpointsCommand::Create(a)) = cli.command else {
        panic!("not create")
    };
    assert_eq!(a.events, ["*"]);
    assert!(fails(&[
        "endpoints",
        "create",
        "--url",
        "https://x",
        "--mode",
        "test"
    ]));
    assert!(fails(&[
        "endpoints",
        "create",
        "--url",
        "https://x",
        "--events",
        "*",
        "--mode",
        "prod"
    ]));
    assert!(fails(&[
        "endpoints",
        "create",
        "--url",
        "https://x",
        "--events",
        "nope",
        "--mode",
        "test"
    ]));
}

#[test]
fn rotate_grace_and_delete() {
    let cli = parse(&["endpoints", "rotate", "whe_1", "--grace", "0"]);
    let Command::Endpoints(EndpointsCommand::Rotate(a)) = cli.command else {
        panic!("not rotate")
    };
    assert_eq!((a.id.as_str(), a.grace), ("whe_1", Some(0)));
    let cli = parse(&["endpoints", "rotate", "whe_1"]);
    let Command::Endpoints(EndpointsCommand::Rotate(a)) = cli.command else {
        panic!("not rotate")
    };
    assert_eq!(a.grace, None);
    assert!(fails(&["endpoints", "rotate", "whe_1", "--grace", "soon"]));
    let cli = parse(&["endpoints", "delete", "whe_1"]);
    assert!(
        matches!(cli.command, Command::Endpoints(EndpointsCommand::Delete(ref a)) if a.id == "whe_1")
    );
    assert!(fails(&["endpoints", "delete"]));
}

#[test]
fn deliveries_list_needs_an_endpoint_or_an_event() {
    let cli = parse(&[
        "deliveries",
        "list",
        "--endpoint",
        "whe_1",
        "--status",
        "failed",
        "--limit",
        "5",
        "--cursor",
        "abc",
    ]);
    let Command::Deliveries(DeliveriesCommand::List(a)) = cli.command else {
        panic!("not list")
    };
    assert_eq!(a.status, Some(Status::Failed));
    assert_eq!(
        a.query(),
        [
            ("status", "failed".to_owned()),
            ("limit", "5".to_owned()),
            ("cursor", "abc".to_owned())
        ]
    );
    assert!(
        parse(&["deliveries", "list", "--event", "evt_1"])
            .global
            .api_url
            == DEFAULT_API_URL
            || std::env::var_os("PAYGATE_API_URL").is_some()
            || std::env::var_os("PAYGATE_PORT").is_some()
    );
    assert!(fails(&["deliveries", "list"]));
    assert!(fails(&[
        "deliveries",
        "list",
        "--endpoint",
        "whe_1",
        "--event",
        "evt_1"
    ]));
    assert!(fails(&[
        "deliveries",
        "list",
        "--event",
        "evt_1",
        "--status",
        "failed"
    ]));
    assert!(fails(&[
        "deliveries",
        "list",
        "--endpoint",
        "whe_1",
        "--limit",
        "0"
    ]));
    assert!(fails(&[
        "deliveries",
        "list",
        "--endpoint",
        "whe_1",
        "--limit",
        "101"
    ]));
    assert!(fails(&[
        "deliveries",
        "list",
        "--endpoint",
        "whe_1",
        "--status",
        "done"
    ]));
}

#[test]
fn deliveries_show_resend_and_test_event() {
    assert!(matches!(
        parse(&["deliveries", "show", "dlv_1"]).command,
        Command::Deliveries(DeliveriesCommand::Show(ref a)) if a.id == "dlv_1"
    ));
    assert!(matches!(
        parse(&["deliveries", "resend", "dlv_1"]).command,
        Command::Deliveries(DeliveriesCommand::Resend(ref a)) if a.id == "dlv_1"
    ));
    assert!(matches!(
        parse(&["test-event", "whe_1"]).command,
        Command::TestEvent(ref a) if a.id == "whe_1"
    ));
}

#[test]
fn trigger_takes_the_five_payment_events() {
    for (name, want) in [
        ("payment.captured", TriggerEvent::Captured),
        ("payment.refunded", TriggerEvent::Refunded),
        ("payment.cancelled", TriggerEvent::Cancelled),
        ("payment.authorized", TriggerEvent::Authorized),
        ("payment.failed", TriggerEvent::Failed),
    ] {
        let Command::Trigger(a) = parse(&["trigger", name]).command else {
            panic!("not trigger")
        };
        assert_eq!((a.event, a.event.as_str(), a.amount), (want, name, 10_000));
    }
    assert!(fails(&["trigger", "webhook.test"]));
    assert!(fails(&["trigger", "payment.captured", "--amount", "0"]));
}

#[test]
fn listen_defaults() {
    let Command::Listen(a) = parse(&["listen"]).command else {
        panic!("not listen")
    };
    assert_eq!(
        (a.port, a.mode, a.status, a.init_cert),
        (0, Mode::Test, 200, false)
    );
    assert_eq!(a.events, ["*"]);
    assert_eq!(a.cert_dir, std::path::Path::new(".local/listen"));
    let Command::Listen(a) = parse(&[
        "listen",
        "--port",
        "8443",
        "--events",
        "payment.captured",
        "--status",
        "500",
        "--init-cert",
    ])
    .command
    else {
        panic!("not listen")
    };
    assert_eq!((a.port, a.status, a.init_cert), (8443, 500, true));
    assert!(fails(&["listen", "--status", "99"]));
}

#[test]
fn global_flags_go_anywhere() {
    let cli = parse(&[
        "endpoints",
        "list",
        "--json",
        "--merchant",
        "mch_anatolia",
        "--api-url",
        "https://api.example.com/prod",
        "--region",
        "eu-central-1",
        "--local",
        "--seed",
        "s.json",
    ]);
    let g = &cli.global;
    assert!(g.json && g.local);
    assert_eq!(g.merchant.as_deref(), Some("mch_anatolia"));
    assert_eq!(g.api_url, "https://api.example.com/prod");
    assert_eq!(g.region.as_deref(), Some("eu-central-1"));
    assert_eq!(g.seed.as_deref(), Some(std::path::Path::new("s.json")));
    let cli = parse(&["--api-key", "sk_test_x", "trigger", "payment.failed"]);
    assert_eq!(cli.global.api_key.as_deref(), Some("sk_test_x"));
}

#[test]
fn which_commands_need_credentials() {
    let needs = |args: &[&str]| commands::needs_admin(&parse(args).command);
    assert!(needs(&["endpoints", "list"]));
    assert!(needs(&["deliveries", "show", "dlv_1"]));
    assert!(needs(&["test-event", "whe_1"]));
    assert!(needs(&["listen"]));
    assert!(!needs(&["listen", "--init-cert"]));
    assert!(!needs(&["listen", "--port", "8443", "--secret", "whsec_x"]));
    assert!(!needs(&["trigger", "payment.captured"]));
}

#[test]
fn the_command_tree_is_consistent() {
    use clap::CommandFactory;
    Cli::command().debug_assert();
}

#[test]
fn keys_and_endpoint_operations_parse() {
    use crate::commands::keys::KeysCommand;
    let cli = parse(&["keys", "create", "--mode", "live", "--name", "checkout"]);
    let Command::Keys(KeysCommand::Create(a)) = cli.command else {
        panic!("not keys create")
    };
    assert_eq!((a.mode, a.name.as_deref()), (Mode::Live, Some("checkout")));
    let cli = parse(&["keys", "roll", "key_1", "--expires-in", "2h"]);
    let Command::Keys(KeysCommand::Roll(a)) = cli.command else {
        panic!("not keys roll")
    };
    assert_eq!((a.id.as_str(), a.expires_in_hours), ("key_1", Some(2)));
    assert!(matches!(
        parse(&["keys", "list"]).command,
        Command::Keys(KeysCommand::List)
    ));
    assert!(matches!(
        parse(&["keys", "revoke", "key_1"]).command,
        Command::Keys(KeysCommand::Revoke(_))
    ));
    assert!(fails(&["keys", "create"]));
    assert!(fails(&["keys", "roll", "key_1", "--expires-in", "8d"]));
    let cli = parse(&[
        "endpoints",
        "recover",
        "whe_1",
        "--since",
        "2026-11-20T00:00:00Z",
    ]);
    let Command::Endpoints(EndpointsCommand::Recover(a)) = cli.command else {
        panic!("not recover")
    };
    assert_eq!(
        (a.id.as_str(), a.since.as_str(), a.until),
        ("whe_1", "2026-11-20T00:00:00Z", None)
    );
    assert!(fails(&["endpoints", "recover", "whe_1"]));
    assert!(matches!(
        parse(&["endpoints", "health", "whe_1"]).command,
        Command::Endpoints(EndpointsCommand::Health(_))
    ));
}

#[test]
fn dashboard_takes_a_port_and_defaults_to_3001() {
    let Command::Dashboard(a) = parse(&["--local", "dashboard"]).command else {
        panic!("not dashboard")
    };
    assert_eq!(a.port, crate::dashboard::DEFAULT_PORT);
    assert_eq!(a.port, 3001);
    let Command::Dashboard(a) = parse(&["dashboard", "--port", "0"]).command else {
        panic!("not dashboard")
    };
    assert_eq!(a.port, 0);
    assert!(needs_admin_for(&["dashboard"]));
}

fn needs_admin_for(args: &[&str]) -> bool {
    commands::needs_admin(&parse(args).command)
}

/// `make dev`'s `PAYGATE_PORT` reaches the CLI (and the dashboard) when no URL is given.
#[test]
fn paygate_port_picks_the_local_api_url() {
    assert_eq!(config::api_url_for_port(None), DEFAULT_API_URL);
    assert_eq!(config::api_url_for_port(Some("")), DEFAULT_API_URL);
    assert_eq!(
        config::api_url_for_port(Some("8080")),
        "http://127.0.0.1:8080"
    );
}

#[test]
fn reconciliations_take_a_strict_date_and_csv() {
    let cli = parse(&[
        "reconciliations",
        "--merchant",
        "mch_a",
        "--date",
        "2026-11-26",
        "--csv",
    ]);
    assert_eq!(cli.global.merchant.as_deref(), Some("mch_a"));
    let Command::Reconciliations(a) = cli.command else {
        panic!("not reconciliations")
    };
    assert_eq!(
        (a.date.map(|d| d.to_string()).as_deref(), a.csv),
        (Some("2026-11-26"), true)
    );
    let Command::Reconciliations(a) = parse(&["reconciliations"]).command else {
        panic!("not reconciliations")
    };
    assert_eq!((a.date, a.csv), (None, false));
    for bad in ["26.11.2026", "2026-11-31", "2026-1-2"] {
        assert!(fails(&["reconciliations", "--date", bad]), "{bad}");
    }
    assert!(needs_admin_for(&["reconciliations"]));
}
