//! Network settings that come from the environment, as values: proxy variables, the extra CA
//! bundle, and the pure decision of which proxy (if any) a URL goes through.
//!
//! Invariant: nothing here reads the process environment. `app.rs` builds a `NetEnv` with
//! `NetEnv::from_vars(std::env::vars())` and passes it down, so every decision is a pure
//! function of its inputs and tests are hermetic. Loopback hosts are never proxied.

pub(crate) use crate::url::host_of;
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
mod tests {
    use super::*;

    fn env(https: Option<&str>, http: Option<&str>, all: Option<&str>, no: Option<&str>) -> ProxyEnv {
        let owned = |value: Option<&str>| value.map(str::to_string);
        ProxyEnv { https_proxy: owned(https), http_proxy: owned(http), all_proxy: owned(all), no_proxy: owned(no) }
    }

    #[test]
    fn plan_proxy_cases() {
        let corporate =
            env(Some("http://proxy:3128"), Some("http://plain:8080"), None, Some("internal.corp,.lan,10.0.0.0/8"));
        let cases: &[(&str, &ProxyEnv, Option<&str>)] = &[
            ("https://api.anthropic.com/v1", &corporate, Some("http://proxy:3128")),
            ("http://api.example.com/v1", &corporate, Some("http://plain:8080")),
            ("http://127.0.0.1:11434/v1", &corporate, None),
            ("http://127.8.9.10/v1", &corporate, None),
            ("http://localhost:8080/v1", &corporate, None),
            ("http://[::1]:8080/v1", &corporate, None),
            ("http://LOCALHOST/v1", &corporate, None),
            ("https://internal.corp/v1", &corporate, None),
            ("https://gpu.internal.corp:8443/v1", &corporate, None),
            ("https://notinternal.corp/v1", &corporate, Some("http://proxy:3128")),
            ("https://box.lan/v1", &corporate, None),
            ("http://10.1.2.3:8000/v1", &corporate, None),
            ("http://11.1.2.3:8000/v1", &corporate, Some("http://plain:8080")),
            ("https://user:pw@api.example.com/v1", &corporate, Some("http://proxy:3128")),
        ];
        for (url, proxy_env, expected) in cases {
            assert_eq!(plan_proxy(url, proxy_env).as_deref(), *expected, "{url}");
        }
        let all_only = env(None, None, Some("socks5://s:1080"), Some("*"));
        assert_eq!(plan_proxy("https://x.com", &all_only), None);
        let all_only = env(None, None, Some("http://all:1"), Some("*.example.com:443"));
        assert_eq!(plan_proxy("https://x.com", &all_only).as_deref(), Some("http://all:1"));
        assert_eq!(plan_proxy("https://a.example.com", &all_only), None);
        assert_eq!(plan_proxy("https://x.com", &ProxyEnv::default()), None);
    }

    #[test]
    fn from_vars_prefers_lowercase_and_skips_empty() {
        let vars = [
            ("HTTPS_PROXY", "http://upper:1"),
            ("https_proxy", "http://lower:1"),
            ("HTTP_PROXY", "http://upper:2"),
            ("http_proxy", ""),
            ("NO_PROXY", "a,b"),
            ("SSL_CERT_FILE", "/etc/ca.pem"),
        ]
        .map(|(key, value)| (key.to_string(), value.to_string()));
        let net = NetEnv::from_vars(vars);
        assert_eq!(net.proxy, env(Some("http://lower:1"), Some("http://upper:2"), None, Some("a,b")));
        assert_eq!(net.ssl_cert_file, Some(PathBuf::from("/etc/ca.pem")));
    }

    #[test]
    fn host_of_strips_port_userinfo_and_brackets() {
        assert_eq!(host_of("https://user@API.example.com:8443/v1?x"), "api.example.com");
        assert_eq!(host_of("http://[::1]:80/"), "::1");
        assert_eq!(host_of("not a url"), "");
    }
}
