//! Host patterns (`sandbox.allow_hosts` entries) and the hosts commands try to reach: parsed,
//! normalised and matched.
//!
//! Invariant: pure. Names compare lowercase, without a trailing dot; `*.example.com` matches any
//! subdomain of `example.com`, never `example.com` itself (and never `badexample.com`: the match
//! is on whole labels); an IP address, in any spelling the C resolver accepts (`127.1`,
//! `0x7f.0.0.1`, `2130706433`, `[::1]`), is an address and only ever equals an address entry,
//! never a name; an entry with `:port` matches that port only, one without matches any port. An
//! entry that is none of these (a URL, a path, a bare `*`, `*.com`, a wildcard elsewhere than the
//! first label, a non-ASCII name) is refused with the reason, so a typo never widens the list.

use std::net::{IpAddr, Ipv4Addr};

/// A host as a command names it, normalised.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Host {
    /// A DNS name: lowercase ASCII labels, no trailing dot.
    Name(String),
    /// An IP address, however it was spelt.
    Ip(IpAddr),
}

impl Host {
    /// Reads a host as a client sends it (a CONNECT target, a URL's host, an ssh destination):
    /// case and a trailing dot ignored, an IPv6 address with or without brackets, the numeric
    /// spellings of IPv4 the resolver accepts. None for anything that is neither a name nor an
    /// address (empty, spaces, non-ASCII, a name ending in a number that is no address).
    pub(crate) fn parse(text: &str) -> Option<Host> {
        let text = text.trim();
        let bracketed = text.strip_prefix('[').and_then(|rest| rest.strip_suffix(']'));
        if let Some(inner) = bracketed {
            return inner.parse::<std::net::Ipv6Addr>().ok().map(|ip| Host::Ip(IpAddr::V6(ip)));
        }
        if let Ok(ip) = text.parse::<std::net::Ipv6Addr>() {
            return Some(Host::Ip(IpAddr::V6(ip)));
        }
        let name = text.strip_suffix('.').unwrap_or(text).to_ascii_lowercase();
        if name.is_empty() || name.len() > 253 || !name.is_ascii() {
            return None;
        }
        let labels: Vec<&str> = name.split('.').collect();
        // WHATWG's rule, and the resolver's: a host whose last label is a number is an IPv4
        // address, or nothing.
        if labels.last().is_some_and(|label| number(label).is_some()) {
            return ipv4(&labels).map(|ip| Host::Ip(IpAddr::V4(ip)));
        }
        labels.iter().all(|label| valid_label(label)).then_some(Host::Name(name))
    }

    /// True for this machine: `localhost` and its subdomains, loopback and unspecified addresses
    /// (a command reaching a local service is how it escapes through another process).
    pub(crate) fn is_local(&self) -> bool {
        match self {
            Host::Name(name) => name == "localhost" || name.ends_with(".localhost"),
            Host::Ip(ip) => {
                ip.is_loopback() || ip.is_unspecified() || ipv4_mapped(ip).is_some_and(|v4| v4.is_loopback())
            }
        }
    }
}

impl std::fmt::Display for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Host::Name(name) => f.write_str(name),
            Host::Ip(ip) => write!(f, "{ip}"),
        }
    }
}

/// One `sandbox.allow_hosts` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostPattern {
    target: Target,
    /// None: any port.
    port: Option<u16>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Target {
    /// One name or one address.
    Exact(Host),
    /// `*.suffix`: any name ending in `.suffix`.
    Subdomains(String),
}

impl HostPattern {
    /// Parses an entry (module doc); the error says what is wrong and what to write instead.
    pub(crate) fn parse(text: &str) -> Result<HostPattern, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("empty host".to_string());
        }
        if text.contains("://") || text.contains('/') {
            return Err(format!("{text:?} is not a host: write the host alone (e.g. api.example.com), not a URL"));
        }
        if !text.is_ascii() {
            return Err(format!("{text:?}: write the name in its ASCII form (xn--...)"));
        }
        let (host, port) = split_port(text)?;
        if host == "*" {
            return Err("a bare * would allow every host: write sandbox.network: open for that".to_string());
        }
        if let Some(suffix) = host.strip_prefix("*.") {
            let suffix = match Host::parse(suffix) {
                Some(Host::Name(name)) if !name.contains('*') => name,
                _ => return Err(format!("{text:?}: expected *.<domain name>, e.g. *.example.com")),
            };
            if !suffix.contains('.') {
                return Err(format!("{text:?} is too broad: a wildcard needs a domain, e.g. *.example.com"));
            }
            return Ok(HostPattern { target: Target::Subdomains(suffix), port });
        }
        if host.contains('*') {
            return Err(format!("{text:?}: a wildcard may only be the first label, as in *.example.com"));
        }
        match Host::parse(host) {
            Some(host) => Ok(HostPattern { target: Target::Exact(host), port }),
            None => Err(format!("{text:?} is not a host name or an IP address")),
        }
    }

    /// Whether a command reaching `host` on `port` is what this entry allows.
    pub(crate) fn matches(&self, host: &Host, port: u16) -> bool {
        if self.port.is_some_and(|wanted| wanted != port) {
            return false;
        }
        match (&self.target, host) {
            (Target::Exact(exact), host) => exact == host,
            (Target::Subdomains(suffix), Host::Name(name)) => {
                name.strip_suffix(suffix.as_str()).is_some_and(|head| head.len() > 1 && head.ends_with('.'))
            }
            (Target::Subdomains(_), Host::Ip(_)) => false,
        }
    }
}

impl std::fmt::Display for HostPattern {
    /// The normalised entry, which parses back to the same pattern.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.target, self.port) {
            (Target::Exact(Host::Ip(IpAddr::V6(ip))), Some(port)) => write!(f, "[{ip}]:{port}"),
            (Target::Exact(host), Some(port)) => write!(f, "{host}:{port}"),
            (Target::Exact(host), None) => write!(f, "{host}"),
            (Target::Subdomains(suffix), Some(port)) => write!(f, "*.{suffix}:{port}"),
            (Target::Subdomains(suffix), None) => write!(f, "*.{suffix}"),
        }
    }
}

/// The host and the port of an entry: `[v6]:port`, `name:port`, or a bare IPv6 address.
fn split_port(text: &str) -> Result<(&str, Option<u16>), String> {
    let port = |digits: &str| -> Result<Option<u16>, String> {
        match digits.parse::<u16>() {
            Ok(port) if port > 0 && digits.bytes().all(|byte| byte.is_ascii_digit()) => Ok(Some(port)),
            _ => Err(format!("{text:?}: the port must be a number from 1 to 65535")),
        }
    };
    if text.starts_with('[') {
        let Some(end) = text.find(']') else { return Err(format!("{text:?}: missing ]")) };
        return match &text[end + 1..] {
            "" => Ok((&text[..=end], None)),
            rest => match rest.strip_prefix(':') {
                Some(digits) => Ok((&text[..=end], port(digits)?)),
                None => Err(format!("{text:?}: expected [address]:port")),
            },
        };
    }
    match text.matches(':').count() {
        0 => Ok((text, None)),
        1 => {
            let (host, digits) = text.split_once(':').unwrap_or((text, ""));
            Ok((host, port(digits)?))
        }
        // A bare IPv6 address; its port needs brackets.
        _ => Ok((text, None)),
    }
}

fn valid_label(label: &str) -> bool {
    (1..=63).contains(&label.len())
        && !label.starts_with('-')
        && !label.ends_with('-')
        && label.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_')
}

/// One part of a numeric IPv4 spelling: decimal, octal (leading 0) or hex (0x).
fn number(part: &str) -> Option<u64> {
    if part.is_empty() {
        return None;
    }
    if let Some(hex) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
        return if hex.is_empty() { Some(0) } else { u64::from_str_radix(hex, 16).ok() };
    }
    if part.len() > 1 && part.starts_with('0') {
        return u64::from_str_radix(&part[1..], 8).ok();
    }
    part.parse().ok()
}

/// `inet_aton`'s reading: one to four parts, the last filling the remaining bytes.
fn ipv4(parts: &[&str]) -> Option<Ipv4Addr> {
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let numbers: Vec<u64> = parts.iter().map(|part| number(part)).collect::<Option<_>>()?;
    let (last, head) = numbers.split_last()?;
    if head.iter().any(|&part| part > 255) {
        return None;
    }
    let room = 8 * (4 - head.len() as u32);
    if *last >= 1u64 << room {
        return None;
    }
    let value = head.iter().enumerate().fold(*last, |value, (index, &part)| value | (part << (24 - 8 * index)));
    Some(Ipv4Addr::from(u32::try_from(value).ok()?))
}

/// The IPv4 address inside an IPv4-mapped IPv6 one (`::ffff:127.0.0.1`).
fn ipv4_mapped(ip: &IpAddr) -> Option<Ipv4Addr> {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped(),
        IpAddr::V4(_) => None,
    }
}

#[cfg(test)]
#[path = "hosts_tests.rs"]
mod tests;
