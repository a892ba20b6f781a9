//! Glob patterns as regexes: bash's pathname patterns (`*`, `?`, `[…]`, a backslash escaping the
//! next character) and the rules' globs, which add `**` across path segments.
//!
//! Invariant: the result is a regex body for the linear-time `regex` crate, never a backtracking
//! matcher, and every character outside the glob syntax is escaped, so a pattern matches only
//! what it spells. It anchors nothing and matches nothing itself: callers add `^…$` and flags.

/// True when a glob has an unescaped `*`, `?` or `[` (a backslash escapes the next character).
pub(crate) fn has_wildcard(source: &str) -> bool {
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '*' | '?' | '[' => return true,
            _ => {}
        }
    }
    false
}

/// Translates a glob to a regex body. Command globs: `*` is `.*`. Path globs: `*` is one
/// segment, `**` any number of segments (`a/**` also matches `a`, `**/b` also matches `b`).
pub(crate) fn glob_to_regex(glob: &str, path: bool) -> String {
    let chars: Vec<char> = glob.chars().collect();
    let mut out = String::new();
    let mut index = 0;
    while index < chars.len() {
        let c = chars[index];
        match c {
            '\\' => {
                index += 1;
                if let Some(next) = chars.get(index) {
                    out.push_str(&regex::escape(&next.to_string()));
                }
            }
            '*' if path && chars.get(index + 1) == Some(&'*') => {
                let at_start = index == 0 || chars[index - 1] == '/';
                let slash_after = chars.get(index + 2) == Some(&'/');
                index += 1;
                if at_start && slash_after {
                    out.push_str("(?:.*/)?");
                    index += 1;
                } else if at_start && out.ends_with('/') && index + 1 == chars.len() {
                    out.pop();
                    out.push_str("(?:/.*)?");
                } else {
                    out.push_str(".*");
                }
            }
            '*' if path => out.push_str("[^/]*"),
            '*' => out.push_str(".*"),
            '?' if path => out.push_str("[^/]"),
            '?' => out.push('.'),
            '[' => match chars[index + 1..].iter().position(|c| *c == ']') {
                Some(length) if length > 0 => {
                    let body = &chars[index + 1..index + 1 + length];
                    out.push('[');
                    let (negate, body) = match body.first() {
                        Some('!' | '^') => (true, &body[1..]),
                        _ => (false, body),
                    };
                    if negate {
                        out.push('^');
                    }
                    for c in body {
                        if c.is_ascii_alphanumeric() || *c == '-' {
                            out.push(*c);
                        } else {
                            out.push_str(&format!("\\x{{{:x}}}", *c as u32));
                        }
                    }
                    out.push(']');
                    index += length + 1;
                }
                _ => out.push_str("\\["),
            },
            _ => out.push_str(&regex::escape(&c.to_string())),
        }
        index += 1;
    }
    out
}
