#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The egress guard against a table of addresses and URLs. No real DNS: names resolve
//! through a fake resolver.

use std::{
    collections::HashMap,
    io,
    net::{IpAddr, SocketAddr},
    str::FromStr,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
};

use async_trait::async_trait;
use paygate_webhooks::{
    check_url, ip_forbidden,
    sender::ssrf::{ResolveError, Resolver},
    Blocked, EgressPolicy, SafeResolver,
};

/// Names → answers; unknown names fail like NXDOMAIN.
struct FakeDns(HashMap<&'static str, Vec<IpAddr>>);

#[async_trait]
impl Resolver for FakeDns {
    async fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        self.0
            .get(host)
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such host"))
    }
}

fn ips(list: &[&str]) -> Vec<IpAddr> {
    list.iter().map(|s| s.parse().unwrap()).collect()
}

fn fake_dns() -> Arc<FakeDns> {
    Arc::new(FakeDns(HashMap::from([
        ("public.test", ips(&["93.184.216.34"])),
        ("dual.test", ips(&["93.184.216.34", "2606:4700::6810:84e5"])),
        ("mixed.test", ips(&["93.184.216.34", "127.0.0.1"])),
        (
            "mixed-late.test",
            ips(&["93.184.216.34", "8.8.8.8", "10.0.0.7"]),
        ),
        ("mixed6.test", ips(&["2606:4700::1", "fd00::1"])),
        ("meta.test", ips(&["169.254.169.254"])),
        ("mapped.test", ips(&["::ffff:10.1.2.3"])),
        ("nat64.test", ips(&["64:ff9b::a00:1"])),
        ("localhost", ips(&["127.0.0.1", "::1"])),
        ("loop.test", ips(&["127.0.0.1"])),
        ("empty.test", vec![]),
    ])))
}

/// What the guard decided, as a short word.
async fn decide(url: &str, policy: &EgressPolicy) -> &'static str {
    let parsed = match check_url(url, policy) {
        Ok(u) => u,
        Err(Blocked::InvalidUrl) => return "invalid",
        Err(Blocked::NotHttps) => return "not_https",
        Err(Blocked::Credentials) => return "credentials",
        Err(Blocked::NoHost) => return "no_host",
        Err(Blocked::Address(_)) => return "address",
        Err(Blocked::Resolved { .. }) => unreachable!("check_url does not resolve"),
    };
    match parsed.host() {
        Some(url::Host::Domain(d)) => {
            let resolver = SafeResolver::new(fake_dns(), Arc::new(policy.clone()));
            match resolver.resolve_checked(d).await {
                Ok(_) => "ok",
                Err(ResolveError::Blocked(Blocked::Resolved { .. })) => "resolved",
                Err(ResolveError::Blocked(_)) => "other",
                Err(ResolveError::Lookup { .. }) => "dns",
                Err(ResolveError::NoAddress { .. }) => "no_address",
            }
        }
        _ => "ok",
    }
}

const TABLE: &[(&str, &str)] = &[
    // IPv4 literals, one or more per forbidden range.
    ("https://0.0.0.0/", "address"),
    ("https://0.1.2.3/", "address"),
    ("https://10.0.0.1/", "address"),
    ("https://10.255.255.255/", "address"),
    ("https://100.64.0.1/", "address"),
    ("https://100.127.255.254/", "address"),
    ("https://127.0.0.1/", "address"),
    ("https://127.1.2.3:8443/hook", "address"),
    ("https://169.254.169.254/latest/meta-data/", "address"),
    ("https://172.16.0.1/", "address"),
    ("https://172.31.255.255/", "address"),
    ("https://192.0.0.170/", "address"),
    ("https://192.0.2.1/", "address"),
    ("https://192.88.99.1/", "address"),
    ("https://192.168.1.1/", "address"),
    ("https://198.18.0.1/", "address"),
    ("https://198.19.255.255/", "address"),
    ("https://198.51.100.7/", "address"),
    ("https://203.0.113.9/", "address"),
    ("https://224.0.0.1/", "address"),
    ("https://239.255.255.250/", "address"),
    ("https://240.0.0.1/", "address"),
    ("https://255.255.255.255/", "address"),
    // Other IPv4 notations the url crate normalises to 127.0.0.1.
    ("https://2130706433/", "address"),
    ("https://0x7f.1/", "address"),
    ("https://0177.0.0.1/", "address"),
    ("https://0x7f000001/", "address"),
    ("https://127.1/", "address"),
    ("https://017700000001/", "address"),
    ("https://0xa9.0xfe.0xa9.0xfe/", "address"), // 169.254.169.254
    // IPv6 literals.
    ("https://[::]/", "address"),
    ("https://[::1]/", "address"),
    ("https://[0:0:0:0:0:0:0:1]:443/", "address"),
    ("https://[::127.0.0.1]/", "address"), // IPv4-compatible (deprecated)
    ("https://[::ffff:127.0.0.1]/", "address"),
    ("https://[::ffff:a9fe:a9fe]/", "address"),
    ("https://[::ffff:10.1.2.3]/", "address"),
    ("https://[::ffff:0:10.1.2.3]/", "address"), // SIIT, outside 2000::/3
    ("https://[64:ff9b::a9fe:a9fe]/", "address"), // NAT64 of 169.254.169.254
    ("https://[64:ff9b::7f00:1]/", "address"),
    ("https://[64:ff9b:1::808:808]/", "address"), // local-use NAT64: refused outright
    ("https://[100::1]/", "address"),
    ("https://[2001::1]/", "address"), // Teredo
    ("https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "address"),
    ("https://[2001:2::1]/", "address"),
    ("https://[2001:20::1]/", "address"),
    ("https://[2001:db8::1]/", "address"),
    ("https://[2002:7f00:1::]/", "address"), // 6to4 of 127.0.0.1
    ("https://[2002:c0a8:101::1]/", "address"), // 6to4 of 192.168.1.1
    ("https://[3fff::1]/", "address"),
    ("https://[5f00::1]/", "address"),
    ("https://[fc00::1]/", "address"),
    ("https://[fd00:ec2::254]/", "address"), // EC2 IPv6 metadata
    ("https://[fe80::1]/", "address"),
    ("https://[fec0::1]/", "address"),
    ("https://[ff02::1]/", "address"),
    // Public literals are allowed, including IPv6 forms of public IPv4 addresses.
    ("https://93.184.216.34/", "ok"),
    ("https://8.8.8.8/", "ok"),
    ("https://1.1.1.1:8443/hook?x=1", "ok"),
    ("https://100.63.255.255/", "ok"),
    ("https://100.128.0.1/", "ok"),
    ("https://172.15.255.255/", "ok"),
    ("https://172.32.0.1/", "ok"),
    ("https://198.20.0.1/", "ok"),
    ("https://223.255.255.255/", "ok"),
    ("https://[2606:4700:4700::1111]/", "ok"),
    ("https://[64:ff9b::808:808]/", "ok"), // NAT64 of 8.8.8.8
    ("https://[2002:808:808::1]/", "ok"),  // 6to4 of 8.8.8.8
    ("https://[::ffff:8.8.8.8]/", "ok"),
    ("HTTPS://PUBLIC.TEST/", "ok"),
    // URL form.
    ("http://93.184.216.34/", "not_https"),
    ("http://public.test/", "not_https"),
    ("ftp://public.test/", "not_https"),
    ("file:///etc/passwd", "not_https"),
    ("wss://public.test/", "not_https"),
    ("https://user:pw@public.test/", "credentials"),
    ("https://user@public.test/", "credentials"),
    ("https://:pw@public.test/", "credentials"),
    ("not a url", "invalid"),
    ("https://", "invalid"),
    ("https://[::1/", "invalid"),
    ("https://[fe80::1%25eth0]/", "invalid"),
    // Names, through the fake DNS.
    ("https://public.test/hooks", "ok"),
    ("https://dual.test/", "ok"),
    ("https://mixed.test/", "resolved"),
    ("https://mixed-late.test/", "resolved"),
    ("https://mixed6.test/", "resolved"),
    ("https://meta.test/", "resolved"),
    ("https://mapped.test/", "resolved"),
    ("https://nat64.test/", "resolved"),
    ("https://localhost/", "resolved"),
    ("https://loop.test:3000/", "resolved"),
    ("https://nx.test/", "dns"),
    ("https://empty.test/", "no_address"),
];

#[tokio::test]
async fn address_table_with_the_strict_policy() {
    assert!(TABLE.len() >= 40);
    let policy = EgressPolicy::strict();
    let mut wrong = Vec::new();
    for &(url, expected) in TABLE {
        let got = decide(url, &policy).await;
        if got != expected {
            wrong.push(format!("{url}: expected {expected}, got {got}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[tokio::test]
async fn allow_list_exempts_exact_addresses_only() {
    let policy = EgressPolicy::parse_allow_list("127.0.0.1").unwrap();
    let cases = [
        ("https://127.0.0.1:8443/hook", "ok"),
        ("https://2130706433:8443/", "ok"), // the same address in another notation
        ("https://loop.test/", "ok"),
        ("https://127.0.0.2/", "address"),
        ("https://[::1]/", "address"),
        ("https://[::ffff:127.0.0.1]/", "address"),
        ("https://localhost/", "resolved"), // ::1 in the answer is not exempt
        ("https://10.0.0.1/", "address"),
        ("http://127.0.0.1/", "not_https"), // the exemption never allows plain HTTP
        ("https://public.test/", "ok"),
    ];
    for (url, expected) in cases {
        assert_eq!(decide(url, &policy).await, expected, "{url}");
    }
}

#[test]
fn allow_list_parsing() {
    assert_eq!(
        EgressPolicy::parse_allow_list("").unwrap(),
        EgressPolicy::strict()
    );
    assert_eq!(
        EgressPolicy::parse_allow_list("127.0.0.1, ::1")
            .unwrap()
            .allow,
        ips(&["127.0.0.1", "::1"])
    );
    assert!(EgressPolicy::parse_allow_list("127.0.0.0/8").is_err());
    assert!(EgressPolicy::parse_allow_list("localhost").is_err());
}

#[test]
fn blocked_literal_reports_the_address() {
    assert_eq!(
        check_url("https://0x7f.1/", &EgressPolicy::strict()),
        Err(Blocked::Address("127.0.0.1".parse().unwrap()))
    );
    assert_eq!(
        check_url("https://[::ffff:7f00:1]/", &EgressPolicy::strict()),
        Err(Blocked::Address("::ffff:127.0.0.1".parse().unwrap()))
    );
}

#[test]
fn ip_forbidden_range_edges() {
    let edges = [
        ("9.255.255.255", false),
        ("10.0.0.0", true),
        ("11.0.0.0", false),
        ("169.253.255.255", false),
        ("169.254.0.0", true),
        ("169.255.0.0", false),
        ("192.0.1.255", false), // between 192.0.0/24 and 192.0.2/24
        ("192.0.3.0", false),
        ("198.17.255.255", false),
        ("223.255.255.255", false),
        ("224.0.0.0", true),
        ("1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true),
        ("2000::", false),
        ("2001:1::1", false), // not Teredo (2001::/32) nor benchmarking
        ("2001:3::1", false),
        ("3ffe::1", false),
        ("3fff:0fff::1", true),
        ("3fff:1000::1", false),
        ("4000::1", true),
    ];
    for (ip, forbidden) in edges {
        assert_eq!(ip_forbidden(ip.parse().unwrap()), forbidden, "{ip}");
    }
}

/// A resolver that answers from a script, one answer per call, and counts calls.
struct Scripted {
    answers: Mutex<Vec<Vec<IpAddr>>>,
    calls: AtomicUsize,
}

#[async_trait]
impl Resolver for Scripted {
    async fn lookup(&self, _host: &str) -> io::Result<Vec<IpAddr>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let mut a = self.answers.lock().unwrap();
        Ok(if a.is_empty() { vec![] } else { a.remove(0) })
    }
}

#[tokio::test]
async fn rebinding_second_answer_is_checked_again() {
    let dns = Arc::new(Scripted {
        answers: Mutex::new(vec![ips(&["93.184.216.34"]), ips(&["127.0.0.1"])]),
        calls: AtomicUsize::new(0),
    });
    let resolver = SafeResolver::new(dns.clone(), Arc::new(EgressPolicy::strict()));

    // Through the reqwest hook, as the client calls it: one lookup, the checked answer.
    let first: Vec<SocketAddr> = reqwest::dns::Resolve::resolve(
        &resolver,
        reqwest::dns::Name::from_str("rebind.test").unwrap(),
    )
    .await
    .unwrap()
    .collect();
    assert_eq!(first, vec!["93.184.216.34:0".parse().unwrap()]);
    assert_eq!(dns.calls.load(Ordering::SeqCst), 1);

    // The name now points at loopback: the next resolution is refused, not cached past.
    let second = reqwest::dns::Resolve::resolve(
        &resolver,
        reqwest::dns::Name::from_str("rebind.test").unwrap(),
    )
    .await;
    let err = second.err().expect("refused");
    let err = err.downcast_ref::<ResolveError>().expect("a ResolveError");
    assert!(
        matches!(err, ResolveError::Blocked(Blocked::Resolved { addr, .. }) if *addr == "127.0.0.1".parse::<IpAddr>().unwrap())
    );
    assert_eq!(dns.calls.load(Ordering::SeqCst), 2);
}
