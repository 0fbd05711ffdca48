//! Egress guard: webhooks go only to public addresses over HTTPS (invariant 6).
//!
//! Two checks, both needed:
//!
//! 1. [`check_url`] runs before every send: `https` only, no credentials, a host, and an
//!    IP-literal host (in any notation the `url` crate normalises: `https://2130706433/`,
//!    `https://0x7f.1/`, `https://0177.0.0.1/`, `https://[::ffff:127.0.0.1]/` …) must be a
//!    public address. reqwest never calls the resolver for IP literals, so this check is
//!    the only one they get.
//! 2. [`SafeResolver`] is the client's DNS resolver. It resolves a name once and refuses the
//!    **whole answer** if any address in it is forbidden. reqwest then connects only to the
//!    addresses it returned, so the checked address is the dialled one: no second lookup,
//!    no rebinding window.
//!
//! [`EgressPolicy::allow`] lists exact addresses exempt from the check. It is empty in
//! production; local development and tests name a loopback address there explicitly.

use std::{
    io,
    net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr},
    sync::Arc,
};

use async_trait::async_trait;
use url::{Host, Url};

/// Exact addresses exempt from the private-network check. Empty (the default) in
/// production.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EgressPolicy {
    pub allow: Vec<IpAddr>,
}

/// A value of `PAYGATE_WEBHOOK_ALLOW_ADDRS` that is not a comma-separated list of IPs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not an IP address in the webhook allow list: {0:?}")]
pub struct BadAllowEntry(pub String);

impl EgressPolicy {
    /// No exemptions: what production uses.
    pub fn strict() -> Self {
        Self::default()
    }

    /// Parses a comma-separated list of IP addresses (`127.0.0.1,::1`); blanks are skipped.
    pub fn parse_allow_list(list: &str) -> Result<Self, BadAllowEntry> {
        let allow = list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().map_err(|_| BadAllowEntry(s.to_owned())))
            .collect::<Result<_, _>>()?;
        Ok(Self { allow })
    }

    /// Whether a connection to `ip` is allowed: a public address, or one listed exactly.
    pub fn permits(&self, ip: IpAddr) -> bool {
        !ip_forbidden(ip) || self.allow.contains(&ip)
    }
}

/// Why a delivery is refused before any byte is sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Blocked {
    #[error("not a valid URL")]
    InvalidUrl,
    #[error("only https:// endpoints are delivered to")]
    NotHttps,
    #[error("the URL carries credentials")]
    Credentials,
    #[error("the URL has no host")]
    NoHost,
    #[error("address {0} is not publicly routable")]
    Address(IpAddr),
    #[error("{host} resolves to {addr}, which is not publicly routable")]
    Resolved { host: String, addr: IpAddr },
}

/// Checks an endpoint URL before a send; returns it parsed.
pub fn check_url(url: &str, policy: &EgressPolicy) -> Result<Url, Blocked> {
    let parsed = Url::parse(url).map_err(|_| Blocked::InvalidUrl)?;
    if parsed.scheme() != "https" {
        return Err(Blocked::NotHttps);
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(Blocked::Credentials);
    }
    let ip = match parsed.host() {
        None => return Err(Blocked::NoHost),
        Some(Host::Domain("")) => return Err(Blocked::NoHost),
        Some(Host::Domain(_)) => None, // checked by the SafeResolver when it is resolved
        Some(Host::Ipv4(v4)) => Some(IpAddr::V4(v4)),
        Some(Host::Ipv6(v6)) => Some(IpAddr::V6(v6)),
    };
    match ip {
        Some(ip) if !policy.permits(ip) => Err(Blocked::Address(ip)),
        _ => Ok(parsed),
    }
}

// ---------------------------------------------------------------------------------------
// Address classification
// ---------------------------------------------------------------------------------------

/// IPv4 networks that are never delivered to.
const FORBIDDEN_V4: &[(Ipv4Addr, u8)] = &[
    (Ipv4Addr::new(0, 0, 0, 0), 8),          // "this network"
    (Ipv4Addr::new(10, 0, 0, 0), 8),         // private
    (Ipv4Addr::new(100, 64, 0, 0), 10),      // carrier-grade NAT
    (Ipv4Addr::new(127, 0, 0, 0), 8),        // loopback
    (Ipv4Addr::new(169, 254, 0, 0), 16),     // link-local, cloud metadata
    (Ipv4Addr::new(172, 16, 0, 0), 12),      // private
    (Ipv4Addr::new(192, 0, 0, 0), 24),       // IETF protocol assignments
    (Ipv4Addr::new(192, 0, 2, 0), 24),       // TEST-NET-1
    (Ipv4Addr::new(192, 88, 99, 0), 24),     // 6to4 relay anycast
    (Ipv4Addr::new(192, 168, 0, 0), 16),     // private
    (Ipv4Addr::new(198, 18, 0, 0), 15),      // benchmarking
    (Ipv4Addr::new(198, 51, 100, 0), 24),    // TEST-NET-2
    (Ipv4Addr::new(203, 0, 113, 0), 24),     // TEST-NET-3
    (Ipv4Addr::new(224, 0, 0, 0), 4),        // multicast
    (Ipv4Addr::new(240, 0, 0, 0), 4),        // reserved
    (Ipv4Addr::new(255, 255, 255, 255), 32), // broadcast
];

/// Inside global unicast 2000::/3, the IPv6 networks that are never delivered to. Every
/// address outside 2000::/3 is refused anyway (see [`ip_forbidden`]).
const FORBIDDEN_V6_GLOBAL: &[(Ipv6Addr, u8)] = &[
    (Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0), 32), // Teredo
    (Ipv6Addr::new(0x2001, 2, 0, 0, 0, 0, 0, 0), 48), // benchmarking
    (Ipv6Addr::new(0x2001, 0x10, 0, 0, 0, 0, 0, 0), 28), // ORCHID (deprecated)
    (Ipv6Addr::new(0x2001, 0x20, 0, 0, 0, 0, 0, 0), 28), // ORCHIDv2
    (Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32), // documentation
    (Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0), 20), // documentation (RFC 9637)
];

fn in_v4(ip: Ipv4Addr, (net, len): (Ipv4Addr, u8)) -> bool {
    let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
    u32::from(ip) & mask == u32::from(net) & mask
}

fn in_v6(ip: Ipv6Addr, (net, len): (Ipv6Addr, u8)) -> bool {
    let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
    u128::from(ip) & mask == u128::from(net) & mask
}

/// The IPv4 address an IPv6 address stands for, where the prefix says where it sits:
/// IPv4-mapped `::ffff:0:0/96`, NAT64 well-known `64:ff9b::/96` (last 32 bits) and 6to4
/// `2002::/16` (bits 16..48).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let bits = u128::from(ip);
    let low32 = || Ipv4Addr::from((bits & 0xffff_ffff) as u32);
    if in_v6(ip, (Ipv6Addr::new(0, 0, 0, 0, 0, 0xffff, 0, 0), 96))
        || in_v6(ip, (Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96))
    {
        return Some(low32());
    }
    if in_v6(ip, (Ipv6Addr::new(0x2002, 0, 0, 0, 0, 0, 0, 0), 16)) {
        return Some(Ipv4Addr::from(((bits >> 80) & 0xffff_ffff) as u32));
    }
    None
}

/// Whether `ip` is not a public unicast address (loopback, private, link-local, CGNAT,
/// unspecified, multicast, documentation, benchmarking, reserved, or an IPv6 form of one).
///
/// IPv6 rules, in order:
/// 1. IPv4-mapped (`::ffff:a.b.c.d`), NAT64 well-known (`64:ff9b::a.b.c.d`) and 6to4
///    (`2002:AABB:CCDD::`) addresses are judged by the IPv4 address they carry, so
///    `64:ff9b::808:808` (8.8.8.8) is public and `64:ff9b::a9fe:a9fe` is metadata.
/// 2. Everything outside global unicast `2000::/3` is forbidden: `::`, `::1`, the
///    IPv4-compatible `::/96`, `100::/64` (discard), the local-use NAT64 `64:ff9b:1::/48`
///    (refused outright: where the IPv4 address sits depends on a local prefix length),
///    `5f00::/16` (SRv6), `fc00::/7` (ULA, e.g. `fd00:ec2::254`), `fe80::/10`, `fec0::/10`,
///    `ff00::/8`, and whatever gets assigned there later.
/// 3. Inside `2000::/3`: Teredo `2001::/32` (refused outright), benchmarking `2001:2::/48`,
///    ORCHID `2001:10::/28` and `2001:20::/28`, documentation `2001:db8::/32` and
///    `3fff::/20`.
pub fn ip_forbidden(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => FORBIDDEN_V4.iter().any(|&net| in_v4(v4, net)),
        IpAddr::V6(v6) => {
            if let Some(v4) = embedded_v4(v6) {
                return ip_forbidden(IpAddr::V4(v4));
            }
            !in_v6(v6, (Ipv6Addr::new(0x2000, 0, 0, 0, 0, 0, 0, 0), 3))
                || FORBIDDEN_V6_GLOBAL.iter().any(|&net| in_v6(v6, net))
        }
    }
}

// ---------------------------------------------------------------------------------------
// Resolution
// ---------------------------------------------------------------------------------------

/// A DNS lookup. The system one is [`SystemResolver`]; tests plug in fakes.
#[async_trait]
pub trait Resolver: Send + Sync {
    async fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>>;
}

/// The operating system's resolver (`getaddrinfo` via tokio). IPv4 addresses are returned
/// first: Lambda has no IPv6 egress unless its VPC is dual-stack.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

#[async_trait]
impl Resolver for SystemResolver {
    async fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        let mut ips: Vec<IpAddr> = Vec::new();
        for sa in tokio::net::lookup_host((host, 0u16)).await? {
            if !ips.contains(&sa.ip()) {
                ips.push(sa.ip());
            }
        }
        ips.sort_by_key(IpAddr::is_ipv6); // stable: keeps the resolver's order per family
        Ok(ips)
    }
}

/// Why a name gave no usable address.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    #[error("dns lookup of {host} failed: {source}")]
    Lookup { host: String, source: io::Error },
    #[error("{host} has no address")]
    NoAddress { host: String },
    #[error(transparent)]
    Blocked(#[from] Blocked),
}

/// The client's resolver: one lookup per connection, and the whole answer refused if any
/// address in it is forbidden (a name with one private record among public ones is
/// refused, not filtered). reqwest dials only the addresses returned here.
#[derive(Clone)]
pub struct SafeResolver {
    inner: Arc<dyn Resolver>,
    policy: Arc<EgressPolicy>,
}

impl std::fmt::Debug for SafeResolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SafeResolver")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl SafeResolver {
    pub fn new(inner: Arc<dyn Resolver>, policy: Arc<EgressPolicy>) -> Self {
        Self { inner, policy }
    }

    /// Resolves `host` once and checks every address.
    pub async fn resolve_checked(&self, host: &str) -> Result<Vec<IpAddr>, ResolveError> {
        let ips = self
            .inner
            .lookup(host)
            .await
            .map_err(|source| ResolveError::Lookup {
                host: host.to_owned(),
                source,
            })?;
        if ips.is_empty() {
            return Err(ResolveError::NoAddress {
                host: host.to_owned(),
            });
        }
        if let Some(&addr) = ips.iter().find(|&&ip| !self.policy.permits(ip)) {
            return Err(Blocked::Resolved {
                host: host.to_owned(),
                addr,
            }
            .into());
        }
        Ok(ips)
    }
}

impl reqwest::dns::Resolve for SafeResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let this = self.clone();
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let ips = this
                .resolve_checked(&host)
                .await
                .map_err(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>)?;
            // Port 0 is replaced by the URL's port (or 443) by reqwest.
            let addrs: reqwest::dns::Addrs =
                Box::new(ips.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}
