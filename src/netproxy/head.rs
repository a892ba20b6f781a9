//! HTTP/1.x heads as the proxy reads them: the bounded reading of a head, its request or status
//! line, the target a request names, the headers a proxy must not forward, and how long the body
//! that follows is.
//!
//! Invariant: reading takes at most `MAX_LINE` bytes per line and `MAX_HEAD` per head, whatever
//! the peer sends; everything else is pure. A request whose body length is ambiguous (both
//! `Content-Length` and `Transfer-Encoding`, differing lengths, a last coding that is not
//! `chunked`) is refused, never guessed at: a guess is how requests get smuggled past a decision.

use std::fmt;
use std::io::{self, BufRead, Read};
use std::net::Ipv6Addr;

/// The longest line of a head, its ending included.
pub(super) const MAX_LINE: usize = 8 * 1024;
/// The longest head, every line and the empty line that ends it.
pub(super) const MAX_HEAD: usize = 64 * 1024;

/// A head: its first line and its header fields, in order.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Head {
    pub(super) start: String,
    pub(super) headers: Vec<Header>,
}

/// One header field: its name as sent, its value (any bytes, as sent, without surrounding blanks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Header {
    pub(super) name: String,
    pub(super) value: Vec<u8>,
}

/// Why no head could be read.
#[derive(Debug)]
pub(super) enum HeadError {
    /// The socket failed or its deadline passed.
    Io(io::Error),
    /// The peer closed before the empty line that ends a head.
    Truncated,
    /// A line, or the head, is over its cap.
    TooLong(&'static str),
    /// Not an HTTP/1.x head.
    Malformed(String),
}

impl fmt::Display for HeadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeadError::Io(err) => write!(f, "reading the head failed: {err}"),
            HeadError::Truncated => write!(f, "the connection closed in the middle of the head"),
            HeadError::TooLong(what) => write!(f, "{what}"),
            HeadError::Malformed(why) => write!(f, "{why}"),
        }
    }
}

/// Reads one head, up to and including its empty line; `None` when the stream ends before a byte.
/// Empty lines before the first line are skipped, as RFC 9112 asks of a server.
pub(super) fn read_head(reader: &mut impl BufRead) -> Result<Option<Head>, HeadError> {
    let mut total = 0;
    let mut lines: Vec<Vec<u8>> = Vec::new();
    loop {
        let remaining = MAX_HEAD - total;
        if remaining == 0 {
            return Err(HeadError::TooLong("the head is over 64 KiB"));
        }
        let limit = MAX_LINE.min(remaining);
        let mut line = Vec::new();
        let read = reader.by_ref().take(limit as u64).read_until(b'\n', &mut line).map_err(HeadError::Io)?;
        total += read;
        if read == 0 && total == 0 {
            return Ok(None);
        }
        if line.last() != Some(&b'\n') {
            return Err(match read {
                _ if read < limit => HeadError::Truncated,
                _ if limit == MAX_LINE => HeadError::TooLong("a line of the head is over 8 KiB"),
                _ => HeadError::TooLong("the head is over 64 KiB"),
            });
        }
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        match (line.is_empty(), lines.is_empty()) {
            (true, true) => continue,
            (true, false) => break,
            (false, _) => lines.push(line),
        }
    }
    parse_head(&lines).map(Some)
}

fn parse_head(lines: &[Vec<u8>]) -> Result<Head, HeadError> {
    let Some((first, fields)) = lines.split_first() else {
        return Err(HeadError::Malformed("an empty head".to_string()));
    };
    let start = match std::str::from_utf8(first) {
        Ok(text) if text.bytes().all(|byte| byte >= b' ' && byte != 0x7f) => text.to_string(),
        _ => return Err(HeadError::Malformed("the first line holds bytes that are not text".to_string())),
    };
    let mut headers = Vec::with_capacity(fields.len());
    for field in fields {
        if field.starts_with(b" ") || field.starts_with(b"\t") {
            return Err(HeadError::Malformed("a folded header line (obsolete, not accepted)".to_string()));
        }
        let Some(colon) = field.iter().position(|&byte| byte == b':') else {
            return Err(HeadError::Malformed(format!("a header line without a colon: {}", shown(field))));
        };
        let name = &field[..colon];
        if name.is_empty() || !name.iter().all(|&byte| is_token(byte)) {
            return Err(HeadError::Malformed(format!("a bad header name: {}", shown(name))));
        }
        let value = field[colon + 1..].trim_ascii();
        if value.iter().any(|&byte| (byte < b' ' && byte != b'\t') || byte == 0x7f) {
            return Err(HeadError::Malformed(format!("control bytes in the value of {}", shown(name))));
        }
        headers.push(Header { name: String::from_utf8_lossy(name).into_owned(), value: value.to_vec() });
    }
    Ok(Head { start, headers })
}

/// `METHOD target HTTP/1.x`, split.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct RequestLine {
    pub(super) method: String,
    pub(super) target: String,
    pub(super) version: String,
}

pub(super) fn parse_request_line(line: &str) -> Result<RequestLine, String> {
    let parts: Vec<&str> = line.split(' ').collect();
    let [method, target, version] = parts[..] else {
        return Err(format!("not a request line: {}", shown(line.as_bytes())));
    };
    if method.is_empty() || !method.bytes().all(is_token) {
        return Err(format!("a bad method: {}", shown(method.as_bytes())));
    }
    if target.is_empty() {
        return Err("an empty request target".to_string());
    }
    if version != "HTTP/1.1" && version != "HTTP/1.0" {
        return Err(format!("not HTTP/1.0 or HTTP/1.1: {}", shown(version.as_bytes())));
    }
    Ok(RequestLine { method: method.to_string(), target: target.to_string(), version: version.to_string() })
}

/// An absolute-form request's destination: host and port to decide on, the `Host` header the
/// origin gets, and the origin-form target (path and query, no fragment).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Absolute {
    pub(super) host: String,
    pub(super) port: u16,
    pub(super) host_header: String,
    pub(super) path: String,
}

/// Reads `http://host[:port][/path][?query]`; `https://` and other schemes are refused.
pub(super) fn parse_absolute(target: &str) -> Result<Absolute, String> {
    let Some((scheme, rest)) = target.split_once("://") else {
        return Err("the request must name its host (absolute form: http://host/path, or CONNECT)".to_string());
    };
    match scheme.to_ascii_lowercase().as_str() {
        "http" => {}
        "https" => return Err("https:// URLs go through CONNECT, not a plain request".to_string()),
        _ => return Err(format!("the scheme {} is not proxied", shown(scheme.as_bytes()))),
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    if authority.contains('@') {
        return Err("a URL with user info is not proxied (send credentials in a header)".to_string());
    }
    let (host, port, explicit) = parse_authority(authority, Some(80))?;
    let tail = tail.split('#').next().unwrap_or("");
    let path = if tail.starts_with('/') { tail.to_string() } else { format!("/{tail}") };
    let bracketed = if host.contains(':') { format!("[{host}]") } else { host.clone() };
    let host_header = if explicit { format!("{bracketed}:{port}") } else { bracketed };
    Ok(Absolute { host, port, host_header, path })
}

/// `host:port`, `[v6]:port` or (with a default port) a bare host: the host normalised
/// (`normalize_host`), the port, and whether the port was written.
pub(super) fn parse_authority(text: &str, default_port: Option<u16>) -> Result<(String, u16, bool), String> {
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let Some((inside, after)) = rest.split_once(']') else {
            return Err(format!("an IPv6 address without its closing bracket: {}", shown(text.as_bytes())));
        };
        match after.strip_prefix(':') {
            Some(port) => (&text[..inside.len() + 2], Some(port)),
            None if after.is_empty() => (text, None),
            None => return Err(format!("a bad authority: {}", shown(text.as_bytes()))),
        }
    } else {
        match text.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (text, None),
        }
    };
    let port = match (port, default_port) {
        (Some(digits), _) if !digits.is_empty() => match digits.parse::<u16>() {
            Ok(port) if port != 0 && digits.bytes().all(|byte| byte.is_ascii_digit()) => (port, true),
            _ => return Err(format!("a bad port: {}", shown(digits.as_bytes()))),
        },
        (_, Some(default)) => (default, false),
        (_, None) => return Err(format!("no port in {} (host:port)", shown(text.as_bytes()))),
    };
    Ok((normalize_host(host)?, port.0, port.1))
}

/// A host as the callback sees it: a name lowercased without its trailing dot (letters, digits,
/// `-`, `_`, non-empty labels), an IPv4 literal in dotted-quad form (the resolver's other spellings
/// refused), or an IPv6 literal (bracketed or not) in its canonical form.
pub(super) fn normalize_host(raw: &str) -> Result<String, String> {
    let unbracketed = raw.strip_prefix('[').and_then(|inner| inner.strip_suffix(']'));
    if let Some(inner) = unbracketed {
        return inner.parse::<Ipv6Addr>().map(|address| address.to_string()).map_err(|_| bad_host(raw));
    }
    if let Ok(address) = raw.parse::<Ipv6Addr>() {
        return Ok(address.to_string());
    }
    let lower = raw.to_ascii_lowercase();
    let name = lower.strip_suffix('.').unwrap_or(&lower);
    let fine = |label: &str| {
        !label.is_empty()
            && label.len() <= 63
            && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    if name.len() > 253 || !name.split('.').all(fine) {
        return Err(bad_host(raw));
    }
    // No top-level domain is numeric: a host ending in a number is an IPv4 address, and only its
    // dotted-quad form is taken. The resolver would read `127.1`, `2130706433` or `0x7f.0.0.1`
    // (octal and hex too) as 127.0.0.1, a host the callback would not recognise by that name.
    let last = name.rsplit('.').next().unwrap_or(name);
    let numeric = last.bytes().all(|b| b.is_ascii_digit()) || last.starts_with("0x");
    if numeric && name.parse::<std::net::Ipv4Addr>().is_err() {
        return Err(format!("not an IPv4 address in dotted-quad form: {}", shown(raw.as_bytes())));
    }
    Ok(name.to_string())
}

fn bad_host(raw: &str) -> String {
    format!("not a host name or IP address: {}", shown(raw.as_bytes()))
}

/// The status code of `HTTP/1.x NNN reason`.
pub(super) fn parse_status(line: &str) -> Result<u16, String> {
    let mut parts = line.splitn(3, ' ');
    let version = parts.next().unwrap_or("");
    let code = parts.next().unwrap_or("");
    match code.parse::<u16>() {
        Ok(status) if version.starts_with("HTTP/1.") && code.len() == 3 && (100..600).contains(&status) => Ok(status),
        _ => Err(format!("not an HTTP/1.x status line: {}", shown(line.as_bytes()))),
    }
}

/// The headers to forward: without the hop-by-hop ones (the fixed list and what `Connection` or
/// `Proxy-Connection` names, framing headers excepted: the body is relayed as framed) nor `also`.
pub(super) fn end_to_end(headers: &[Header], also: &[&str]) -> Vec<Header> {
    const HOP_BY_HOP: [&str; 7] =
        ["connection", "proxy-connection", "keep-alive", "proxy-authorization", "proxy-authenticate", "te", "upgrade"];
    let listed: Vec<String> = headers
        .iter()
        .filter(|header| ["connection", "proxy-connection"].contains(&header.name.to_ascii_lowercase().as_str()))
        .flat_map(|header| tokens(&header.value))
        .filter(|token| token != "content-length" && token != "transfer-encoding")
        .collect();
    headers
        .iter()
        .filter(|header| {
            let name = header.name.to_ascii_lowercase();
            !HOP_BY_HOP.contains(&name.as_str()) && !also.contains(&name.as_str()) && !listed.contains(&name)
        })
        .cloned()
        .collect()
}

/// How the body after a head ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Framing {
    /// No body.
    Empty,
    /// Exactly this many bytes.
    Length(u64),
    /// Chunked transfer coding, up to the last chunk and its trailers.
    Chunked,
    /// Everything until the sender closes (a response only).
    UntilClose,
}

/// The body of a request: `Transfer-Encoding` ending in `chunked`, or `Content-Length`, or none.
pub(super) fn request_framing(headers: &[Header]) -> Result<Framing, String> {
    let codings = field_tokens(headers, "transfer-encoding");
    let length = content_length(headers)?;
    match (codings.last(), length) {
        (None, None) => Ok(Framing::Empty),
        (None, Some(length)) => Ok(Framing::Length(length)),
        (Some(_), Some(_)) => {
            Err("both Content-Length and Transfer-Encoding: the body length is ambiguous".to_string())
        }
        (Some(last), None) if last == "chunked" => Ok(Framing::Chunked),
        (Some(_), None) => Err("a request body whose last transfer coding is not chunked".to_string()),
    }
}

/// The body of a response to `method` with `status` (RFC 9112 section 6.3).
pub(super) fn response_framing(method: &str, status: u16, headers: &[Header]) -> Result<Framing, String> {
    if method.eq_ignore_ascii_case("HEAD") || status < 200 || status == 204 || status == 304 {
        return Ok(Framing::Empty);
    }
    let codings = field_tokens(headers, "transfer-encoding");
    match codings.last() {
        Some(last) if last == "chunked" => Ok(Framing::Chunked),
        Some(_) => Ok(Framing::UntilClose),
        None => Ok(content_length(headers)?.map_or(Framing::UntilClose, Framing::Length)),
    }
}

fn content_length(headers: &[Header]) -> Result<Option<u64>, String> {
    let mut length = None;
    for value in field_tokens(headers, "content-length") {
        let parsed = match value.parse::<u64>() {
            Ok(parsed) if value.bytes().all(|byte| byte.is_ascii_digit()) => parsed,
            _ => return Err(format!("a bad Content-Length: {}", shown(value.as_bytes()))),
        };
        if length.is_some_and(|length| length != parsed) {
            return Err("differing Content-Length values".to_string());
        }
        length = Some(parsed);
    }
    Ok(length)
}

/// The comma-separated, lowercased items of every field called `name`.
fn field_tokens(headers: &[Header], name: &str) -> Vec<String> {
    headers.iter().filter(|header| header.name.eq_ignore_ascii_case(name)).flat_map(|h| tokens(&h.value)).collect()
}

fn tokens(value: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(value)
        .split(',')
        .map(|token| token.trim().to_ascii_lowercase())
        .filter(|token| !token.is_empty())
        .collect()
}

/// A head's bytes: `start`, each header, the empty line.
pub(super) fn render_head(start: &str, headers: &[Header]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(start.len() + 64 * (headers.len() + 1));
    bytes.extend_from_slice(start.as_bytes());
    bytes.extend_from_slice(b"\r\n");
    for header in headers {
        bytes.extend_from_slice(header.name.as_bytes());
        bytes.extend_from_slice(b": ");
        bytes.extend_from_slice(&header.value);
        bytes.extend_from_slice(b"\r\n");
    }
    bytes.extend_from_slice(b"\r\n");
    bytes
}

/// A header built by the proxy.
pub(super) fn header(name: &str, value: &str) -> Header {
    Header { name: name.to_string(), value: value.as_bytes().to_vec() }
}

/// RFC 9110 `tchar`.
fn is_token(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// Peer-sent bytes quoted for a message: ASCII escapes, at most 100 characters.
pub(super) fn shown(bytes: &[u8]) -> String {
    let escaped: String = bytes.escape_ascii().to_string();
    let cut: String = escaped.chars().take(100).collect();
    if cut.len() < escaped.len() { format!("\"{cut}...\"") } else { format!("\"{cut}\"") }
}

#[cfg(test)]
#[path = "head_tests.rs"]
mod tests;
