//! Word normalisation for the blacklist and the rules: what bash would turn a word into before running it,
//! as far as the script itself tells — brace expansion, same-script variables, `$IFS`
//! splitting — and the classification of paths as catastrophic targets.
//!
//! Invariant: normalisation errs towards more candidates, never fewer: a variable assigned
//! twice yields both values, and an expansion we cannot resolve stays literal (the blacklist
//! then treats an unresolved program name as "any program"). Pure: no environment is read.

use std::collections::BTreeMap;

/// Caps on candidates so hostile input cannot make checking exponential.
const MAX_BRACE_WORDS: usize = 64;
const MAX_VARIANTS: usize = 16;

/// Top-level directories whose recursive deletion or permission change breaks the system.
const SYSTEM_DIRS: &[&str] = &[
    "bin",
    "boot",
    "dev",
    "etc",
    "home",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "opt",
    "proc",
    "root",
    "run",
    "sbin",
    "srv",
    "sys",
    "usr",
    "var",
    "snap",
    "mnt",
    "media",
    "Users",
    "System",
    "Library",
    "Applications",
];

/// Second-level directories whose recursive deletion breaks the system as surely as a top-level
/// one: the programs and libraries under `/usr`, and the package databases under `/var`.
const SYSTEM_SUBDIRS: &[(&str, &[&str])] = &[
    ("usr", &["bin", "sbin", "lib", "lib32", "lib64", "libx32", "libexec", "share", "include", "local"]),
    ("var", &["lib"]),
    ("System", &["Library"]),
];

/// Directories whose children are users' home directories (`/home/alice`, `/Users/alice`).
const HOME_PARENTS: &[&str] = &["home", "Users"];

/// A marker standing for the user's home directory, whatever it is.
pub(crate) const HOME: &str = "/\u{0}home";

/// Variables assigned literally in the script, every value kept.
pub(crate) type Variables = BTreeMap<String, Vec<String>>;

/// Records `NAME=value` (also `NAME+=value`) into `variables`.
pub(crate) fn record_assignment(variables: &mut Variables, assignment: &str) {
    if let Some((name, value)) = assignment.split_once('=') {
        let name = name.trim_end_matches('+');
        if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            variables.entry(name.to_string()).or_default().push(value.to_string());
        }
    }
}

/// Brace-expands a word's pattern (`{rm,-rf,/}` → three words) and removes the escapes.
pub(crate) fn brace_words(pattern: &str) -> Vec<String> {
    brace_patterns(pattern).iter().map(|word| unescape(word)).collect()
}

/// Brace-expands a word's pattern, keeping the escapes (so globs stay distinguishable).
pub(crate) fn brace_patterns(pattern: &str) -> Vec<String> {
    let mut out = Vec::new();
    expand_braces(pattern, &mut out);
    out
}

fn expand_braces(pattern: &str, out: &mut Vec<String>) {
    if out.len() >= MAX_BRACE_WORDS {
        return;
    }
    let chars: Vec<(usize, char)> = pattern.char_indices().collect();
    let mut index = 0;
    while index < chars.len() {
        let (open, c) = chars[index];
        if c == '\\' {
            index += 2;
            continue;
        }
        if c == '{'
            && let Some((close, commas)) = matching_brace(&chars, index)
        {
            let prefix = &pattern[..open];
            let suffix = &pattern[chars[close].0 + 1..];
            let body = &pattern[open + 1..chars[close].0];
            let alternatives: Vec<String> = if commas.is_empty() {
                sequence(body)
            } else {
                let mut parts = Vec::new();
                let mut last = open + 1;
                for comma in commas {
                    parts.push(pattern[last..chars[comma].0].to_string());
                    last = chars[comma].0 + 1;
                }
                parts.push(pattern[last..chars[close].0].to_string());
                parts
            };
            if !alternatives.is_empty() {
                for alternative in alternatives {
                    expand_braces(&format!("{prefix}{alternative}{suffix}"), out);
                }
                return;
            }
        }
        index += 1;
    }
    out.push(pattern.to_string());
}

/// The index of the `}` matching the `{` at `open`, with the top-level comma indices.
fn matching_brace(chars: &[(usize, char)], open: usize) -> Option<(usize, Vec<usize>)> {
    let mut depth = 0usize;
    let mut commas = Vec::new();
    let mut index = open;
    while index < chars.len() {
        match chars[index].1 {
            '\\' => index += 1,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((index, commas));
                }
            }
            ',' if depth == 1 => commas.push(index),
            _ => {}
        }
        index += 1;
    }
    None
}

/// `{1..3}` and `{a..c}` sequences; anything else is not an expansion.
fn sequence(body: &str) -> Vec<String> {
    let Some((from, to)) = body.split_once("..") else { return Vec::new() };
    if let (Ok(from), Ok(to)) = (from.parse::<i64>(), to.parse::<i64>()) {
        let (low, high) = (from.min(to), from.max(to));
        return (low..=high).take(MAX_BRACE_WORDS).map(|n| n.to_string()).collect();
    }
    let (mut from_chars, mut to_chars) = (from.chars(), to.chars());
    match (from_chars.next(), from_chars.next(), to_chars.next(), to_chars.next()) {
        (Some(from), None, Some(to), None) if from.is_ascii_alphabetic() && to.is_ascii_alphabetic() => {
            let (low, high) = (from.min(to), from.max(to));
            (low..=high).take(MAX_BRACE_WORDS).map(String::from).collect()
        }
        _ => Vec::new(),
    }
}

/// Removes a pattern's backslash escapes.
pub(crate) fn unescape(pattern: &str) -> String {
    let mut out = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.extend(chars.next());
        } else {
            out.push(c);
        }
    }
    out
}

/// Decodes the backslash escapes `printf` and `echo -e` understand (`\x72`, `\0162`, `\162`,
/// `\n`, `\t`, `\\`); anything else is kept as written.
pub(crate) fn decode_escapes(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut index = 0;
    while index < chars.len() {
        if chars[index] != '\\' || index + 1 == chars.len() {
            out.push(chars[index]);
            index += 1;
            continue;
        }
        let escape = chars[index + 1];
        let digits = |start: usize, radix: u32, max: usize| {
            let run: String = chars[start..].iter().take(max).take_while(|c| c.is_digit(radix)).collect();
            (u32::from_str_radix(&run, radix).ok().and_then(char::from_u32), run.len())
        };
        let (decoded, used) = match escape {
            'n' => (Some('\n'), 2),
            't' => (Some('\t'), 2),
            '\\' => (Some('\\'), 2),
            'x' => match digits(index + 2, 16, 2) {
                (_, 0) => (None, 1),
                (c, len) => (c, 2 + len),
            },
            '0'..='7' => {
                let start = if escape == '0' { index + 2 } else { index + 1 };
                let (c, len) = digits(start, 8, 3);
                (c.or(Some('\0')), start - index + len)
            }
            _ => (None, 1),
        };
        out.push(decoded.unwrap_or('\\'));
        index += used;
    }
    out
}

/// Substitutes same-script variables (`$X`, `${X}`) with their `variant`-th value (`None`:
/// leave them unresolved, since the script may change them in ways we cannot follow) and
/// splits on `$IFS`/`${IFS}`; `$HOME`/`${HOME}` become the [`HOME`] marker.
pub(crate) fn expand_word(word: &str, variables: &Variables, variant: Option<usize>) -> Vec<String> {
    let mut text = String::new();
    let mut rest = word;
    while let Some(dollar) = rest.find('$') {
        text.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        let mut default = None;
        let (name, consumed) = if let Some(braced) = after.strip_prefix('{') {
            match braced.find('}') {
                Some(close) => {
                    let inner = &braced[..close];
                    let name_len =
                        inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(inner.len());
                    // `${X:-/}`, `${X-/}`, `${X:=/}`: the default is what runs when X is unset.
                    let operator = &inner[name_len..];
                    default = [":-", ":=", "-", "="].iter().find_map(|op| operator.strip_prefix(op));
                    (&inner[..name_len], close + 2)
                }
                None => ("", 0),
            }
        } else {
            let len = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
            (&after[..len], len)
        };
        if name.is_empty() {
            text.push('$');
            rest = after;
            continue;
        }
        match name {
            "HOME" => text.push_str(HOME),
            "IFS" => text.push(' '),
            _ => match (variables.get(name), default) {
                (Some(values), _) if let Some(variant) = variant => {
                    text.push_str(&values[variant.min(values.len() - 1)])
                }
                (_, Some(default)) => text.push_str(default),
                (_, None) => text.push_str(&rest[dollar..dollar + 1 + consumed]),
            },
        }
        rest = &after[consumed..];
    }
    text.push_str(rest);
    if word.contains("IFS") { text.split_whitespace().map(str::to_string).collect() } else { vec![text] }
}

/// The number of variants worth trying for a set of words.
pub(crate) fn variant_count(words: &[String], variables: &Variables) -> usize {
    let mut count = 1;
    for (name, values) in variables {
        if words.iter().any(|word| word.contains(&format!("${name}")) || word.contains(&format!("${{{name}"))) {
            count = count.max(values.len());
        }
    }
    count.min(MAX_VARIANTS)
}

/// Lexically cleans an absolute or home-relative path: `//`, `/./`, `..`, trailing `/`; a
/// leading `~`, `~user` or [`HOME`] becomes the [`HOME`] marker.
pub(crate) fn clean_path(word: &str) -> String {
    let (root, rest) = if let Some(rest) = word.strip_prefix(HOME) {
        (HOME, rest)
    } else if word.starts_with('~') {
        (HOME, word.find('/').map_or("", |slash| &word[slash..]))
    } else if word.starts_with('/') {
        ("/", word)
    } else {
        ("", word)
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|last| *last != "..") => {
                parts.pop();
            }
            ".." if !root.is_empty() => {}
            _ => parts.push(part),
        }
    }
    match root {
        "/" => format!("/{}", parts.join("/")),
        "" => parts.join("/"),
        _ if parts.is_empty() => HOME.to_string(),
        _ => format!("{HOME}/{}", parts.join("/")),
    }
}

fn is_glob_only(part: &str) -> bool {
    !part.is_empty() && part.chars().all(|c| matches!(c, '*' | '?' | '[' | ']' | '.')) && part.contains(['*', '?', '['])
}

/// True when deleting (or chmod-ing) `word` recursively would wreck the system or the home
/// directory: `/`, `/*`, `~`, `$HOME/*`, `/home/alice`, a top-level system directory, `/usr/lib`,
/// `/u*`, `..`.
pub(crate) fn is_critical_target(word: &str, cwd_is_critical: bool) -> bool {
    let cleaned = clean_path(word);
    let mut parts: Vec<&str> = cleaned.split('/').filter(|part| !part.is_empty()).collect();
    if parts.last().is_some_and(|last| is_glob_only(last)) {
        parts.pop();
    }
    if cleaned.starts_with(HOME) {
        // HOME itself splits into ["\0home"]; anything below it is the user's business.
        return parts.len() <= 1;
    }
    if !cleaned.starts_with('/') {
        // Relative: only parents (`..`, `../..`) or the whole cwd when cwd is critical.
        let only_parents = !parts.is_empty() && parts.iter().all(|part| *part == "..");
        return only_parents || (cwd_is_critical && parts.is_empty());
    }
    match parts.as_slice() {
        [] => true,
        [top] => SYSTEM_DIRS.contains(top) || top.contains(['*', '?', '[']),
        // A user's home spelled absolutely (`/home/alice`, `/Users/*`), or `/usr/lib`.
        [top, _] if HOME_PARENTS.contains(top) => true,
        [top, second] if SYSTEM_SUBDIRS.iter().any(|(parent, children)| parent == top && children.contains(second)) => {
            true
        }
        [first, ..] => first.contains(['*', '?', '[']),
    }
}

/// True for a block device node (`/dev/sda`, `/dev/nvme0n1p1`, `/dev/mapper/x`, `/dev/disk0`).
pub(crate) fn is_block_device(word: &str) -> bool {
    let cleaned = clean_path(word);
    let Some(name) = cleaned.strip_prefix("/dev/") else { return false };
    const PREFIXES: &[&str] = &[
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "loop", "ram", "pmem", "disk", "rdisk", "md", "dm-", "nbd", "zd",
        "mapper/", "disk/", "block/", "zvol/", "bcache", "rbd", "mtdblock", "sr", "root",
    ];
    // `/dev/fd0` is a floppy drive, `/dev/fd/1` is standard output.
    let floppy = name.strip_prefix("fd").is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
    floppy || PREFIXES.iter().any(|prefix| name.starts_with(prefix))
}

/// True for the terminal devices (`/dev/tty`, `/dev/tty3`, `/dev/pts/0`, `/dev/console`,
/// `/dev/vcs*`, `/dev/ptmx`): writing one reaches the user's screen, reading one the keyboard.
pub(crate) fn is_terminal_device(word: &str) -> bool {
    let cleaned = clean_path(word);
    let Some(name) = cleaned.strip_prefix("/dev/") else { return false };
    ["tty", "pts/", "console", "vcs", "ptmx"].iter().any(|prefix| name.starts_with(prefix))
}

/// True for files whose overwrite or deletion breaks logins, privileges, booting or every
/// program: anything in `/etc`, `/boot`, `/bin`, `/sbin`, `/lib*`, `/usr/bin`, `/usr/sbin`,
/// `/usr/lib*`, `/usr/libexec` (the directories themselves included). `/usr/local` is the
/// administrator's own, so installing a program there is not a catastrophe.
pub(crate) fn is_system_file(word: &str) -> bool {
    let cleaned = clean_path(word);
    if !cleaned.starts_with('/') {
        return false;
    }
    let parts: Vec<&str> = cleaned.split('/').filter(|part| !part.is_empty()).collect();
    let binaries = |name: &str| matches!(name, "bin" | "sbin") || name.starts_with("lib");
    match parts.as_slice() {
        [top, ..] if binaries(top) || matches!(*top, "etc" | "boot") => true,
        ["usr", second, ..] => binaries(second),
        ["private", "etc", ..] => true,
        _ => false,
    }
}
