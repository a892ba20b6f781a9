//! Unit tests of `hosts.rs`: entries parsed and refused, hosts normalised, and matching.

use super::*;

fn host(text: &str) -> Host {
    Host::parse(text).unwrap_or_else(|| panic!("{text:?} should parse"))
}

fn pattern(text: &str) -> HostPattern {
    HostPattern::parse(text).unwrap_or_else(|err| panic!("{text:?}: {err}"))
}

#[test]
fn hosts_are_normalised_names_or_addresses() {
    assert_eq!(host("API.Example.COM."), Host::Name("api.example.com".into()));
    assert_eq!(host("localhost"), Host::Name("localhost".into()));
    assert_eq!(host("my_host-1"), Host::Name("my_host-1".into()));
    assert_eq!(host("127.0.0.1"), Host::Ip("127.0.0.1".parse().unwrap()));
    // Every spelling the resolver reads as 127.0.0.1 is that address, not a name.
    for spelling in ["127.1", "0x7f.0.0.1", "0177.0.0.1", "2130706433", "0x7f000001", "127.0.1"] {
        assert_eq!(host(spelling), Host::Ip("127.0.0.1".parse().unwrap()), "{spelling}");
    }
    assert_eq!(host("[::1]"), Host::Ip("::1".parse().unwrap()));
    assert_eq!(host("0:0::1"), Host::Ip("::1".parse().unwrap()));
    for bad in [
        "",
        " ",
        "a b",
        "exa mple.com",
        "-x.com",
        "x..com",
        "1.2.3.4.5",
        "256.1.1.1",
        "example.123",
        "caf\u{e9}.fr",
        "[::1",
        "[x]",
    ] {
        assert_eq!(Host::parse(bad), None, "{bad:?}");
    }
}

#[test]
fn local_hosts_are_this_machine() {
    for local in
        ["localhost", "a.localhost", "127.0.0.1", "127.9.9.9", "::1", "0.0.0.0", "::", "::ffff:127.0.0.1", "2130706433"]
    {
        assert!(host(local).is_local(), "{local}");
    }
    for remote in ["example.com", "localhost.example.com", "10.0.0.1", "2001:db8::1"] {
        assert!(!host(remote).is_local(), "{remote}");
    }
}

#[test]
fn entries_parse_to_their_normal_form() {
    let cases = [
        ("api.example.com", "api.example.com"),
        ("API.Example.com.", "api.example.com"),
        ("*.Example.com", "*.example.com"),
        ("*.example.com.:8443", "*.example.com:8443"),
        ("git.example.com:22", "git.example.com:22"),
        ("10.0.0.1", "10.0.0.1"),
        ("10.1:80", "10.0.0.1:80"),
        ("::1", "::1"),
        ("[::1]", "::1"),
        ("[::1]:8080", "[::1]:8080"),
        ("  localhost  ", "localhost"),
    ];
    for (text, normal) in cases {
        assert_eq!(pattern(text).to_string(), normal, "{text}");
        assert_eq!(pattern(normal), pattern(text), "{normal} parses back");
    }
}

#[test]
fn bad_entries_are_refused_with_the_reason() {
    let cases = [
        ("", "empty host"),
        ("https://api.example.com", "not a URL"),
        ("api.example.com/v1", "not a URL"),
        ("*", "sandbox.network: open"),
        ("*:443", "sandbox.network: open"),
        ("*.com", "too broad"),
        ("*.*.example.com", "expected *.<domain name>"),
        ("api.*.example.com", "may only be the first label"),
        ("*example.com", "may only be the first label"),
        ("*.10.0.0.1", "expected *.<domain name>"),
        ("example.com:0", "from 1 to 65535"),
        ("example.com:70000", "from 1 to 65535"),
        ("example.com:http", "from 1 to 65535"),
        ("example.com:+80", "from 1 to 65535"),
        ("[::1]x", "expected [address]:port"),
        ("[::1", "missing ]"),
        ("b\u{fc}cher.de", "ASCII form"),
        ("exa mple.com", "not a host name"),
        ("1.2.3.4.5", "not a host name"),
    ];
    for (text, reason) in cases {
        let err = HostPattern::parse(text).expect_err(text);
        assert!(err.contains(reason), "{text:?}: {err}");
    }
}

#[test]
fn exact_names_match_themselves_in_any_case_and_only_themselves() {
    let entry = pattern("api.example.com");
    assert!(entry.matches(&host("API.EXAMPLE.COM."), 443));
    assert!(entry.matches(&host("api.example.com"), 8080), "no port in the entry: any port");
    for other in ["example.com", "x.api.example.com", "api.example.com.evil.net", "apiexample.com"] {
        assert!(!entry.matches(&host(other), 443), "{other}");
    }
}

#[test]
fn a_wildcard_matches_subdomains_but_not_the_apex_nor_lookalikes() {
    let entry = pattern("*.example.com");
    for inside in ["a.example.com", "a.b.example.com", "A.Example.Com."] {
        assert!(entry.matches(&host(inside), 443), "{inside}");
    }
    for outside in ["example.com", "badexample.com", "a.badexample.com", "example.com.evil.net", "a.example.co"] {
        assert!(!entry.matches(&host(outside), 443), "{outside}");
    }
}

#[test]
fn a_port_restricts_the_entry() {
    let entry = pattern("git.example.com:22");
    assert!(entry.matches(&host("git.example.com"), 22));
    assert!(!entry.matches(&host("git.example.com"), 443));
    let entry = pattern("*.example.com:443");
    assert!(entry.matches(&host("a.example.com"), 443) && !entry.matches(&host("a.example.com"), 80));
    let entry = pattern("[::1]:8080");
    assert!(entry.matches(&host("[::1]"), 8080) && !entry.matches(&host("::1"), 8081));
}

#[test]
fn addresses_and_names_never_match_each_other() {
    let by_name = pattern("localhost");
    for address in ["127.0.0.1", "::1", "2130706433"] {
        assert!(!by_name.matches(&host(address), 80), "{address}");
    }
    let by_address = pattern("127.0.0.1");
    assert!(by_address.matches(&host("127.1"), 80), "another spelling of the same address");
    assert!(by_address.matches(&host("0x7f000001"), 80));
    assert!(!by_address.matches(&host("localhost"), 80));
    assert!(!by_address.matches(&host("::ffff:127.0.0.1"), 80), "a mapped address is another entry");
    // A name that looks like an address under a wildcard is still only a name.
    assert!(!pattern("*.example.com").matches(&host("10.0.0.1"), 80));
    assert!(pattern("*.example.com").matches(&host("10.0.0.1.example.com"), 80));
}
