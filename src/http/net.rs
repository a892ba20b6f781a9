//! Network settings that come from the environment, as values: proxy variables, the extra CA
//! bundle, and the pure decision of which proxy (if any) a URL goes through.
//!
//! Invariant: nothing here reads the process environment. `app/` builds a `NetEnv` with
//! `NetEnv::from_vars` over its snapshot of the environment and passes it down, so every
//! decision is a pure function of its inputs and tests are hermetic. Loopback hosts are never
//! proxied.

use crate::url::{is_loopback_host as is_loopback, split_url};
use std::net::Ipv4Addr;
use std::path::PathBuf;

/// The environment's network settings, captured once by the caller.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NetEnv {
    pub proxy: ProxyEnv,
    /// `SSL_CERT_FILE`: a PEM bundle of extra trust roots.
    pub ssl_cert_file: Option<PathBuf>,
}

/// Proxy variables. Lowercase wins over uppercase, as in curl; empty values count as unset.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProxyEnv {
    pub https_proxy: Option<String>,
    pub http_proxy: Option<String>,
    pub all_proxy: Option<String>,
    pub no_proxy: Option<String>,
}

impl NetEnv {
    /// Builds the settings from `(name, value)` pairs, e.g. `std::env::vars()`.
    pub(crate) fn from_vars(vars: impl IntoIterator<Item = (String, String)>) -> NetEnv {
        let vars: Vec<(String, String)> = vars.into_iter().filter(|(_, value)| !value.trim().is_empty()).collect();
        let get = |lower: &str| {
            let upper = lower.to_ascii_uppercase();
            let find = |name: &str| vars.iter().find(|(key, _)| key == name).map(|(_, value)| value.trim().to_string());
            find(lower).or_else(|| find(&upper))
        };
        NetEnv {
            proxy: ProxyEnv {
                https_proxy: get("https_proxy"),
                http_proxy: get("http_proxy"),
                all_proxy: get("all_proxy"),
                no_proxy: get("no_proxy"),
            },
            ssl_cert_file: get("ssl_cert_file").map(PathBuf::from),
        }
    }
}

/// The proxy URL to use for `url`, or None to connect directly: `https://` targets use
/// `https_proxy` else `all_proxy`, `http://` targets `http_proxy` else `all_proxy`; loopback
/// hosts and hosts matching `no_proxy` connect directly.
pub(crate) fn plan_proxy(url: &str, env: &ProxyEnv) -> Option<String> {
    let (scheme, host) = split_url(url)?;
    if is_loopback(&host) || env.no_proxy.as_deref().is_some_and(|list| no_proxy_matches(list, &host)) {
        return None;
    }
    let chosen = if scheme.eq_ignore_ascii_case("https") { &env.https_proxy } else { &env.http_proxy };
    chosen.clone().or_else(|| env.all_proxy.clone())
}

/// curl's NO_PROXY rules: comma-separated; `*` matches all; `example.com`, `.example.com` and
/// `*.example.com` match the domain and its subdomains; an optional `:port` is ignored;
/// IPv4 CIDR blocks (`10.0.0.0/8`) match addresses inside them.
fn no_proxy_matches(list: &str, host: &str) -> bool {
    list.split(',').map(str::trim).filter(|entry| !entry.is_empty()).any(|entry| {
        if entry == "*" {
            return true;
        }
        if let Some((network, bits)) = entry.split_once('/') {
            return cidr_contains(network, bits, host);
        }
        let entry = entry.trim_start_matches('*').trim_start_matches('.');
        let entry = entry.strip_prefix('[').map_or(entry, |inner| inner.split(']').next().unwrap_or(""));
        let entry = if entry.matches(':').count() == 1 { entry.split(':').next().unwrap_or("") } else { entry };
        let entry = entry.to_ascii_lowercase();
        !entry.is_empty() && (host == entry || host.ends_with(&format!(".{entry}")))
    })
}

fn cidr_contains(network: &str, bits: &str, host: &str) -> bool {
    let (Ok(network), Ok(bits), Ok(address)) =
        (network.parse::<Ipv4Addr>(), bits.parse::<u32>(), host.parse::<Ipv4Addr>())
    else {
        return false;
    };
    if bits > 32 {
        return false;
    }
    let mask = if bits == 0 { 0 } else { u32::MAX << (32 - bits) };
    u32::from(network) & mask == u32::from(address) & mask
}

#[cfg(test)]
#[path = "net_tests.rs"]
mod tests;
