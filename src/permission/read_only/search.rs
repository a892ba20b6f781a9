//! The trees a recursive search reads, for the read-only check: `grep -r`/`-R`, `rg` and
//! `diff -r`, read from each program's option syntax (which options take a value, which give
//! the pattern), so a path operand is told from the pattern.
//!
//! Invariant: over-approximate — an option it does not know, or any doubt about which operand is
//! the pattern, adds `.` (the whole project) to the trees. It lists trees; walking them for what
//! must not be read is `mod.rs`'s `confirm`.

use crate::command::expansion;
use crate::command::options::Options;
use crate::permission::sandbox;
use crate::shell::SimpleCommand;
use std::path::Path;

/// One tree a recursive reader walks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Search {
    /// The directory as written (relative to the root, or absolute inside it).
    pub(super) dir: String,
    /// The reader also reads hidden files (`grep -r`, `rg --hidden`).
    pub(super) hidden: bool,
    /// The reader follows symbolic links met below the directory (`grep -R`, `rg -L`, `diff`).
    pub(super) follow: bool,
}

/// The existing directories a command's words (or `--opt=` values) name, glob matches included:
/// a tree one of them reads recursively.
pub(super) fn directories(sub: &SimpleCommand, root: &Path) -> Vec<String> {
    let mut dirs = Vec::new();
    for (word, info) in sub.words.iter().zip(&sub.word_info).skip(1) {
        for candidate in expansion::expand(word, info, root).words {
            let value = candidate.split_once('=').map_or(candidate.as_str(), |(_, value)| value);
            if sandbox::check_path(root, value, None).is_ok_and(|resolved| resolved.is_dir())
                && !dirs.iter().any(|dir| dir == value)
            {
                dirs.push(value.to_string());
            }
        }
    }
    dirs
}

/// grep's short options that take a value, and its long ones (when written without `=`).
const GREP_SHORT_VALUES: &str = "ABCDdefm";
const GREP_LONG_VALUES: &[&str] = &[
    "after-context",
    "before-context",
    "context",
    "devices",
    "directories",
    "regexp",
    "file",
    "max-count",
    "label",
    "include",
    "exclude",
    "exclude-from",
    "exclude-dir",
    "binary-files",
    "group-separator",
];
const GREP_SHORT_FLAGS: &str = "EFGPiyvwxcLloqsbHhnTZzaIrRUV0123456789";
const GREP_LONG_FLAGS: &[&str] = &[
    "extended-regexp",
    "fixed-strings",
    "basic-regexp",
    "perl-regexp",
    "ignore-case",
    "no-ignore-case",
    "invert-match",
    "word-regexp",
    "line-regexp",
    "count",
    "files-without-match",
    "files-with-matches",
    "only-matching",
    "quiet",
    "silent",
    "no-messages",
    "byte-offset",
    "with-filename",
    "no-filename",
    "line-number",
    "initial-tab",
    "null",
    "null-data",
    "text",
    "recursive",
    "dereference-recursive",
    "binary",
    "line-buffered",
    "no-group-separator",
    "color",
    "colour",
];

/// The trees `grep` reads: none unless it recurses (`-r`, `-R`, `-d recurse`, or anything that
/// may spell them); then its path operands, or `.` when it has none.
pub(super) fn grep_searches(args: &[String], sub: &SimpleCommand, root: &Path) -> Vec<Search> {
    let options = Options::new(args);
    // Over-approximate: `-d`/`--d…`/`--r…` may say recurse, `-R`/`--dereference…` follows links.
    if options.short("rRd").is_none() && options.long(&["recursive", "dereference-recursive", "directories"]).is_none()
    {
        return Vec::new();
    }
    let follow = options.short("R").is_some() || options.long(&["dereference-recursive"]).is_some();
    let syntax = Syntax {
        short_values: GREP_SHORT_VALUES,
        long_values: GREP_LONG_VALUES,
        short_flags: GREP_SHORT_FLAGS,
        long_flags: GREP_LONG_FLAGS,
        pattern_options: ("ef", &["regexp", "file"]),
    };
    searches(&syntax, args, sub, root, true, follow)
}

const RG_SHORT_VALUES: &str = "ABCefgjmMtTErd";
const RG_LONG_VALUES: &[&str] = &[
    "after-context",
    "before-context",
    "context",
    "regexp",
    "file",
    "glob",
    "iglob",
    "threads",
    "max-count",
    "max-columns",
    "type",
    "type-not",
    "type-add",
    "type-clear",
    "encoding",
    "replace",
    "max-depth",
    "max-filesize",
    "colors",
    "color",
    "context-separator",
    "field-context-separator",
    "field-match-separator",
    "path-separator",
    "pre",
    "pre-glob",
    "sort",
    "sortr",
    "dfa-size-limit",
    "regex-size-limit",
    "engine",
    "ignore-file",
    "hyperlink-format",
];
const RG_SHORT_FLAGS: &str = "isSvwxclnNHIoquaLzFPUpbhV0.";
const RG_LONG_FLAGS: &[&str] = &[
    "ignore-case",
    "smart-case",
    "case-sensitive",
    "invert-match",
    "word-regexp",
    "line-regexp",
    "count",
    "count-matches",
    "files-with-matches",
    "files-without-match",
    "line-number",
    "no-line-number",
    "with-filename",
    "no-filename",
    "only-matching",
    "quiet",
    "unrestricted",
    "text",
    "follow",
    "fixed-strings",
    "pcre2",
    "multiline",
    "multiline-dotall",
    "null",
    "no-heading",
    "heading",
    "hidden",
    "no-hidden",
    "no-ignore",
    "no-ignore-vcs",
    "no-ignore-dot",
    "no-ignore-parent",
    "no-ignore-global",
    "no-ignore-exclude",
    "no-ignore-files",
    "no-messages",
    "json",
    "vimgrep",
    "column",
    "byte-offset",
    "trim",
    "files",
    "stats",
    "pretty",
    "no-config",
    "one-file-system",
    "passthru",
    "crlf",
    "binary",
    "no-require-git",
    "line-buffered",
    "block-buffered",
    "sort-files",
];

/// The trees `rg` reads: its path operands, or `.` when it has none. It skips hidden files and
/// does not follow links unless told to.
pub(super) fn rg_searches(args: &[String], sub: &SimpleCommand, root: &Path) -> Vec<Search> {
    let options = Options::new(args);
    let hidden = options.short(".u").is_some() || options.long(&["hidden", "unrestricted"]).is_some();
    let follow = options.short("L").is_some() || options.long(&["follow"]).is_some();
    let syntax = Syntax {
        short_values: RG_SHORT_VALUES,
        long_values: RG_LONG_VALUES,
        short_flags: RG_SHORT_FLAGS,
        long_flags: RG_LONG_FLAGS,
        pattern_options: ("ef", &["regexp", "file", "files", "type-list"]),
    };
    searches(&syntax, args, sub, root, hidden, follow)
}

/// How a search program's options are spelled: which take a value, which do not, and which
/// give the pattern (so that no operand is the pattern).
struct Syntax {
    short_values: &'static str,
    long_values: &'static [&'static str],
    short_flags: &'static str,
    long_flags: &'static [&'static str],
    pattern_options: (&'static str, &'static [&'static str]),
}

/// The trees a recursive search reads: its path operands (every directory its words name), and
/// `.` when it has none — or when an option it does not know hides whether it has (the value of
/// an unknown option could be taken for the pattern, leaving the real one to look like a path).
fn searches(
    syntax: &Syntax,
    args: &[String],
    sub: &SimpleCommand,
    root: &Path,
    hidden: bool,
    follow: bool,
) -> Vec<Search> {
    let mut positionals = 0;
    let mut pattern_given = false;
    let mut unknown = false;
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        index += 1;
        if arg == "--" {
            positionals += args.len() - index;
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = long.split_once('=').map_or((long, false), |(name, _)| (name, true));
            if syntax.long_values.contains(&name) {
                index += usize::from(!inline);
                pattern_given |= syntax.pattern_options.1.contains(&name);
            } else if syntax.long_flags.contains(&name) {
                pattern_given |= syntax.pattern_options.1.contains(&name);
            } else {
                unknown = true;
            }
        } else if arg.len() > 1 && arg.starts_with('-') {
            for (offset, letter) in arg.char_indices().skip(1) {
                if syntax.short_values.contains(letter) {
                    pattern_given |= syntax.pattern_options.0.contains(letter);
                    // The value is the rest of the word, or the next word.
                    index += usize::from(offset + 1 == arg.len());
                    break;
                }
                unknown |= !syntax.short_flags.contains(letter);
            }
        } else {
            positionals += 1;
        }
    }
    let has_paths = positionals > usize::from(!pattern_given);
    let mut dirs = directories(sub, root);
    if unknown || !has_paths {
        dirs.push(".".to_string());
    }
    dirs.into_iter().map(|dir| Search { dir, hidden, follow }).collect()
}
