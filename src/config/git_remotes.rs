//! The hosts of a repository's git remotes: every `url` and `pushurl` of every `[remote "..."]`
//! section of its config, read from the text git keeps, never by running git.
//!
//! Invariant: the parsers are pure; `read_remote_hosts` only reads files (`.git`, which may be a
//! `gitdir:` file for a worktree or a submodule, then its `commondir`, then `config`). Hosts
//! come out normalised (`hosts::Host`), sorted, each once; a URL without a host (a local path,
//! `file://`, a remote helper's `transport::address`) gives none. What it does not read, and
//! why that is safe: `url.<base>.insteadOf` rewrites and `include`/`includeIf` files. The
//! policy judges the host a command actually connects to, so a rewrite or an included remote
//! only means that host is asked about instead of allowed.

use super::hosts::Host;
use std::path::{Path, PathBuf};

/// The hosts of the remotes of the repository whose work tree is `root` (empty when it is no
/// repository or its config cannot be read).
pub(crate) fn read_remote_hosts(root: &Path) -> Vec<Host> {
    let dot_git = root.join(".git");
    let git_dir = match std::fs::read_to_string(&dot_git) {
        Ok(text) => match gitdir_of(&text) {
            Some(dir) => root.join(dir),
            None => return Vec::new(),
        },
        Err(_) => dot_git,
    };
    // A worktree's config is its main repository's: `commondir` says where that is.
    let common = match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(text) => git_dir.join(text.trim()),
        Err(_) => git_dir,
    };
    std::fs::read_to_string(common.join("config")).map(|text| remote_hosts(&text)).unwrap_or_default()
}

/// The directory a `.git` file points to (`gitdir: <path>`), relative to the work tree when
/// not absolute.
fn gitdir_of(dot_git_file: &str) -> Option<PathBuf> {
    let line = dot_git_file.lines().next()?;
    let path = line.strip_prefix("gitdir:")?.trim();
    (!path.is_empty()).then(|| PathBuf::from(path))
}

/// The hosts of every remote URL in a git config text (module doc).
fn remote_hosts(config: &str) -> Vec<Host> {
    let mut hosts = Vec::new();
    let mut in_remote = false;
    let mut lines = config.lines();
    while let Some(line) = lines.next() {
        let mut line = line.to_string();
        // A value continued on the next line.
        while line.ends_with('\\') && !line.ends_with("\\\\") {
            line.pop();
            match lines.next() {
                Some(next) => line.push_str(next),
                None => break,
            }
        }
        let line = line.trim();
        if let Some(rest) = line.strip_prefix('[') {
            let Some((header, after)) = rest.split_once(']') else { continue };
            in_remote = is_remote_section(header);
            // `[remote "origin"] url = ...` on one line is valid git config too.
            if in_remote && let Some(host) = remote_url_value(after.trim()).and_then(|url| url_host(&url)) {
                hosts.push(host);
            }
            continue;
        }
        if in_remote && let Some(host) = remote_url_value(line).and_then(|url| url_host(&url)) {
            hosts.push(host);
        }
    }
    hosts.sort();
    hosts.dedup();
    hosts
}

/// `remote "name"` (the section name is case-insensitive) or the old `remote.name`.
fn is_remote_section(header: &str) -> bool {
    let header = header.trim();
    let name = header.split(|c: char| c.is_whitespace() || c == '.').next().unwrap_or("");
    name.eq_ignore_ascii_case("remote") && header.len() > name.len()
}

/// The value of a `url = ...` or `pushurl = ...` line (keys are case-insensitive), unquoted and
/// without a trailing comment.
fn remote_url_value(line: &str) -> Option<String> {
    let (key, value) = line.split_once('=')?;
    let key = key.trim();
    if !(key.eq_ignore_ascii_case("url") || key.eq_ignore_ascii_case("pushurl")) {
        return None;
    }
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = value.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            },
            '#' | ';' if !quoted => break,
            c => out.push(c),
        }
    }
    let out = out.trim().to_string();
    (!out.is_empty()).then_some(out)
}

/// The host of a remote URL: `scheme://[user@]host[:port]/path` (https, http, ssh, git,
/// `git+ssh`, ...; brackets around an IPv6 address) or scp-like `[user@]host:path`. None for
/// local paths, `file://` and remote helpers (`transport::address`).
fn url_host(url: &str) -> Option<Host> {
    let url = url.trim();
    if let Some((scheme, rest)) = url.split_once("://") {
        if scheme.eq_ignore_ascii_case("file") || scheme.contains("::") || !is_scheme(scheme) {
            return None;
        }
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        let host_port = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
        let host = match host_port.strip_prefix('[') {
            Some(inner) => &host_port[..inner.find(']')? + 2],
            None => host_port.split(':').next().unwrap_or(""),
        };
        return Host::parse(host);
    }
    if url.split_once("::").is_some_and(|(transport, _)| is_scheme(transport)) {
        return None;
    }
    // scp-like: a colon before any slash (git's rule; `./a:b` and `/a:b` are paths).
    let colon = scp_colon(url)?;
    let user_host = &url[..colon];
    let host = user_host.rsplit_once('@').map_or(user_host, |(_, host)| host);
    Host::parse(host)
}

/// Where the host of an scp-like address ends: the first colon outside brackets, provided no
/// slash comes before it.
fn scp_colon(url: &str) -> Option<usize> {
    let mut bracket = false;
    for (at, c) in url.char_indices() {
        match c {
            '[' => bracket = true,
            ']' => bracket = false,
            ':' if !bracket => return (at > 0).then_some(at),
            '/' => return None,
            _ => {}
        }
    }
    None
}

fn is_scheme(scheme: &str) -> bool {
    scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

#[cfg(test)]
#[path = "git_remotes_tests.rs"]
mod tests;
