//! Just enough URL parsing for proxy decisions and loopback checks: scheme and host.
//!
//! Invariant: pure; hosts come back lowercased, without port, user info or IPv6 brackets.

/// The host of a URL (without port or IPv6 brackets), lowercased; "" when it has none.
pub(crate) fn host_of(url: &str) -> String {
    split_url(url).map(|(_, host)| host).unwrap_or_default()
}

/// Splits `scheme://[user@]host[:port]/...` into scheme and lowercase host.
pub(crate) fn split_url(url: &str) -> Option<(String, String)> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    let host = if let Some(bracketed) = host_port.strip_prefix('[') {
        bracketed.split(']').next().unwrap_or("")
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    Some((scheme.to_string(), host.to_ascii_lowercase()))
}

/// 127.0.0.0/8, ::1, `localhost` and `*.localhost`.
pub(crate) fn is_loopback_host(host: &str) -> bool {
    if host == "localhost" || host.ends_with(".localhost") {
        return true;
    }
    match host.parse::<std::net::IpAddr>() {
        Ok(address) => address.is_loopback(),
        Err(_) => false,
    }
}

/// True for `http(s)://127.x.x.x`, `localhost` and `[::1]` URLs.
pub(crate) fn is_loopback_url(url: &str) -> bool {
    split_url(url).is_some_and(|(_, host)| is_loopback_host(&host))
}
