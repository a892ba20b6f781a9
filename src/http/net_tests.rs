//! Proxy planning (curl's rules, loopback never proxied) and reading the network variables.

use super::*;
use crate::url::host_of;

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
