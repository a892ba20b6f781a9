//! Which bash commands only read (issue 27's pay-off): a command is read-only when every sub-command is a reviewed reader (`ls`, `cat`, `grep`, `git status`, …) with no option that runs a program or writes, reading nothing outside the project or sensitive — it fails closed: any shell feature, program or option it does not know makes the command not read-only.

use super::policy;
use super::rules::command_rules::{INERT_FILES, expanded_arguments_risk, sensitive_redirect};
use super::sandbox;
use crate::command::builtins;
use crate::command::expansion;
use crate::command::wrappers::{self, Effective};
use crate::shell::{self, Nesting, RedirectOp, SimpleCommand};
use std::path::{Path, PathBuf};

/// Why a command is not read-only, for tests and for the engine's logs.
pub(crate) type NotReadOnly = String;

/// What the text of a read-only command leaves to be checked on disk: the trees a recursive
/// search reads (`grep -r`, `rg`, `diff -r`) and whether git runs (its repository configuration
/// may name programs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Needs {
    searches: Vec<Search>,
    git: bool,
}

/// One tree a recursive reader walks.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Search {
    /// The directory as written (relative to the root, or absolute inside it).
    dir: String,
    /// The reader also reads hidden files (`grep -r`, `rg --hidden`).
    hidden: bool,
    /// The reader follows symbolic links met below the directory (`grep -R`, `rg -L`, `diff`).
    follow: bool,
}

/// Whether `command`, run in `root`, only reads files of the project that are not sensitive:
/// [`classify`] on its text, then [`confirm`] on the disk.
pub(crate) fn check(command: &str, root: &Path) -> Result<(), NotReadOnly> {
    confirm(&classify(command, root)?, root)
}

/// The reviewed readers. Each sub-command of the command must be one of them, run directly or
/// through a harmless wrapper, with none of its refused options.
const PROGRAMS: &[&str] = &[
    "ls", "pwd", "cat", "head", "tail", "wc", "file", "stat", "du", "df", "grep", "egrep", "fgrep", "rg", "find",
    "tree", "sort", "uniq", "cut", "tr", "diff", "cmp", "echo", "printf", "which", "type", "date", "git", "true",
    "false", ":", "test", "[", "basename", "dirname", "realpath", "readlink",
];

/// Wrappers that change neither what runs nor what it may write (`time -o FILE` writes, `nohup`
/// may write `nohup.out`, `env` sets variables: none of them is here).
const WRAPPERS: &[&str] = &["timeout", "nice", "command", "builtin", "stdbuf"];

/// Reads the command's text: every sub-command must be a reviewed reader. Pure but for the
/// filesystem lookups the rules already make (symlinks of path arguments, glob matches).
fn classify(command: &str, root: &Path) -> Result<Needs, NotReadOnly> {
    let parsed = shell::parse_command(command).map_err(|error| format!("cannot be parsed ({})", error.reason))?;
    if parsed.has_substitution {
        return Err("command substitution".into());
    }
    let mut needs = Needs::default();
    for sub in &parsed.subcommands {
        if sub.context != Nesting::Script {
            return Err("process substitution".into());
        }
        redirections(sub, root)?;
        if let Some(assignment) = sub.assignments.iter().find(|assignment| !is_locale(assignment)) {
            return Err(format!("sets {assignment}"));
        }
        // A header's arithmetic (`(( j = 7 % 4 ))`) names variables without expanding them:
        // what it reads is judged below; a `$` in it is an expansion.
        let expanded = |(word, info): &(&String, &shell::WordInfo)| {
            info.substitution || if sub.header { word.contains('$') } else { info.expansion }
        };
        if let Some((word, _)) = sub.words.iter().zip(&sub.word_info).find(expanded) {
            return Err(format!("{word} is expanded by the shell"));
        }
        if sub.header {
            // `for NAME in WORDS`, `case WORD`, `[[ … ]]`, `((…))`: syntax, judged for what it
            // evaluates; without expansions it reads nothing.
            if let Some(reason) = builtins::builtin_risk(&sub.words) {
                return Err(reason);
            }
            continue;
        }
        if sub.words.is_empty() {
            continue;
        }
        let effective = wrappers::unwrap_command(&sub.words);
        if let Some(wrapper) = effective.wrappers.iter().find(|wrapper| !WRAPPERS.contains(&wrapper.as_str())) {
            // `env` with no command only prints the environment (mewcode's, already scrubbed).
            // No other wrapper is allowed, so no `env NAME=value` or `env -S` reaches the reader.
            let bare_env = wrapper == "env" && effective.words.is_empty() && sub.words.len() == 1;
            if !bare_env {
                return Err(format!("runs through {wrapper}"));
            }
            continue;
        }
        reader(sub, &effective, root, &mut needs)?;
    }
    Ok(needs)
}

/// `LANG=C`, `LC_ALL=en_US.UTF-8`: a locale by name (no path), which changes only how the
/// program prints. Any other assignment may change what runs or what it reads (`PATH`,
/// `LD_PRELOAD`, `GIT_DIR`, `LESSOPEN`) and is refused, harmless-looking ones too.
fn is_locale(assignment: &str) -> bool {
    assignment.split_once('=').is_some_and(|(name, value)| {
        (matches!(name, "LANG" | "LANGUAGE") || name.starts_with("LC_"))
            && value.chars().all(|c| c.is_ascii_alphanumeric() || "_.@-".contains(c))
    })
}

/// Redirections may read project files that are not sensitive, duplicate descriptors, feed
/// here-docs, and write only to `/dev/null` and the command's own output.
fn redirections(sub: &SimpleCommand, root: &Path) -> Result<(), NotReadOnly> {
    for redirect in &sub.redirections {
        let target = redirect.target.as_str();
        if redirect.target_info.substitution || redirect.target_info.expansion {
            return Err(format!("redirection to {target} is expanded by the shell"));
        }
        match redirect.op {
            RedirectOp::Dup | RedirectOp::HereDoc { .. } | RedirectOp::HereString => {}
            _ if INERT_FILES.contains(&target) && redirect.op != RedirectOp::ReadWrite => {}
            op if op.writes() => return Err(format!("writes {target}")),
            _ => {
                if redirect.target_info.glob
                    || target.starts_with('~')
                    || sandbox::check_path(root, target, None).is_err()
                {
                    return Err(format!("reads {target}, which may be outside the project"));
                }
                if let Some(reason) = sensitive_redirect(redirect, root) {
                    return Err(reason);
                }
            }
        }
    }
    Ok(())
}

/// One sub-command whose program runs (wrappers peeled): a reviewed reader with reviewed options
/// and arguments inside the project.
fn reader(sub: &SimpleCommand, effective: &Effective, root: &Path, needs: &mut Needs) -> Result<(), NotReadOnly> {
    let Some((program, args)) = effective.words.split_first() else { return Ok(()) };
    // `./ls` or `/tmp/ls` may be any program: only a name looked up in PATH is the reviewed one.
    if program.contains('/') || !PROGRAMS.contains(&program.as_str()) {
        return Err(format!("{program} is not a reviewed read-only program"));
    }
    if let Some(reason) = builtins::builtin_risk(&effective.words) {
        return Err(reason);
    }
    let nowhere: &dyn Fn(&str) -> bool = &|_| false;
    if let Some(reason) = wrappers::exec_risk(effective, nowhere) {
        return Err(reason.to_string());
    }
    if let Some(reason) = expanded_arguments_risk(sub, &effective.words, root) {
        return Err(reason);
    }
    let refuse = |option: &str| Err(format!("{program} {option} writes, runs a program or reads a list of files"));
    let options = Options::new(args);
    match program.as_str() {
        "wc" | "du" => options.long(&["files0-from"]).map_or(Ok(()), refuse),
        "file" => options.short("fC").or(options.long(&["files-from", "compile"])).map_or(Ok(()), refuse),
        "find" => {
            let actions = ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"];
            let refused = args.iter().find(|arg| actions.contains(&arg.as_str()) || arg.starts_with("-files0"));
            refused.map_or(Ok(()), |arg| refuse(arg))
        }
        "tree" => options.short("oR").map_or(Ok(()), refuse),
        "sort" => {
            options.short("o").or(options.long(&["output", "compress-program", "files0-from"])).map_or(Ok(()), refuse)
        }
        "uniq" => {
            // `uniq IN OUT` writes OUT; an option's value counts as an operand (over-approximate).
            let operands = args.iter().filter(|arg| *arg == "-" || !arg.starts_with('-')).count();
            if operands > 1 { refuse("with two operands") } else { Ok(()) }
        }
        "printf" => options.short("v").map_or(Ok(()), refuse),
        "date" => options.short("sf").or(options.long(&["set", "file"])).map_or(Ok(()), refuse),
        "grep" | "egrep" | "fgrep" => {
            if let Some(option) = options.short("f").or(options.long(&["file"])) {
                return refuse(option);
            }
            needs.searches.extend(grep_searches(args, sub, root));
            Ok(())
        }
        "rg" => {
            needs.searches.extend(rg_searches(args, sub, root));
            Ok(())
        }
        "diff" => {
            if options.short("r").or(options.long(&["recursive"])).is_some() {
                needs.searches.extend(directories(sub, root).into_iter().map(|dir| Search {
                    dir,
                    hidden: true,
                    follow: true,
                }));
            }
            Ok(())
        }
        "git" => {
            needs.git = true;
            git(args)
        }
        _ => Ok(()),
    }
}

/// A command's options as written, read up to `--`.
struct Options<'a> {
    args: &'a [String],
}

impl<'a> Options<'a> {
    fn new(args: &'a [String]) -> Options<'a> {
        let end = args.iter().position(|arg| arg == "--").unwrap_or(args.len());
        Options { args: &args[..end] }
    }

    /// The first short-option cluster holding one of `letters` (`-o`, `-ro`, `-oFILE`).
    fn short(&self, letters: &str) -> Option<&'a str> {
        self.args
            .iter()
            .find(|arg| {
                arg.len() > 1 && arg.starts_with('-') && !arg.starts_with("--") && arg.contains(|c| letters.contains(c))
            })
            .map(String::as_str)
    }

    /// The first long option naming one of `names`, also abbreviated as getopt allows
    /// (`--out`, `--output=x`).
    fn long(&self, names: &[&str]) -> Option<&'a str> {
        self.args.iter().map(String::as_str).find(|arg| {
            let Some(long) = arg.strip_prefix("--") else { return false };
            let name = long.split_once('=').map_or(long, |(name, _)| name);
            !name.is_empty() && names.iter().any(|full| full.starts_with(name))
        })
    }
}

/// The existing directories a command's words (or `--opt=` values) name, glob matches included:
/// a tree one of them reads recursively.
fn directories(sub: &SimpleCommand, root: &Path) -> Vec<String> {
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
fn grep_searches(args: &[String], sub: &SimpleCommand, root: &Path) -> Vec<Search> {
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
fn rg_searches(args: &[String], sub: &SimpleCommand, root: &Path) -> Vec<Search> {
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

/// git subcommands that only read, given the hardened environment auto-allowed commands get
/// (`tools::HARDENED_GIT`: no fsmonitor, no hooks, no bare repository discovered) and a
/// repository configuration that names no program ([`confirm`]).
const GIT_READERS: &[&str] =
    &["status", "diff", "log", "show", "branch", "rev-parse", "ls-files", "blame", "grep", "ls-tree", "describe"];

/// Global options that change nothing git runs or reads. Everything else is refused: `-c` and
/// `--config-env` set any key, `--exec-path=` picks helpers, `-p` runs the pager, `--git-dir`,
/// `--work-tree`, `--bare` and `-C` bring another repository's configuration, which was not read.
const GIT_GLOBALS: &[&str] = &[
    "--no-pager",
    "-P",
    "--no-optional-locks",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
];

/// Options of the readers that write a file (`--output`), run a program (`--ext-diff`,
/// `--textconv`, `--show-signature` runs gpg, `--remerge-diff` runs merge drivers, `grep -O` a
/// pager), or read beyond the repository's tracked files and configuration (`--no-index`,
/// `--untracked`, `--recurse-submodules`).
const GIT_REFUSED: &[&str] = &[
    "output",
    "output-directory",
    "ext-diff",
    "textconv",
    "show-signature",
    "remerge-diff",
    "open-files-in-pager",
    "no-index",
    "untracked",
    "recurse-submodules",
    "exec",
];

/// git's own options that a refused name begins with; written out whole they are harmless.
const GIT_HARMLESS_PREFIXES: &[&str] = &["--text"];

fn git(args: &[String]) -> Result<(), NotReadOnly> {
    let Some(start) = args.iter().position(|arg| !GIT_GLOBALS.contains(&arg.as_str())) else {
        return Err("git without a subcommand".into());
    };
    let subcommand = args[start].as_str();
    if subcommand.starts_with('-') {
        return Err(format!("git {subcommand} may bring configuration or programs of its own"));
    }
    if !GIT_READERS.contains(&subcommand) {
        return Err(format!("git {subcommand} is not a reviewed read-only subcommand"));
    }
    let rest = &args[start + 1..];
    let options = Options::new(rest);
    let refused = options.args.iter().find(|arg| {
        let long = arg.strip_prefix("--").map(|long| long.split_once('=').map_or(long, |(name, _)| name));
        let abbreviates =
            long.is_some_and(|name| !name.is_empty() && GIT_REFUSED.iter().any(|full| full.starts_with(name)));
        (abbreviates && !GIT_HARMLESS_PREFIXES.contains(&arg.as_str()))
            // A format's `%G?`, `%GS`, … verify signatures with gpg.
            || arg.contains("%G")
    });
    if let Some(option) = refused {
        return Err(format!("git {subcommand} {option} writes or runs a program"));
    }
    if subcommand == "grep" && options.args.iter().any(|arg| arg.starts_with("-O")) {
        return Err("git grep -O runs a pager".into());
    }
    if subcommand == "branch" {
        return git_branch_lists(rest);
    }
    Ok(())
}

/// `git branch` that only lists: listing options, and names only as patterns of `--list` or
/// commits of `--contains`/`--merged`/`--points-at` (which imply listing). `git branch NAME`
/// creates, `-d`/`-m`/`-c`/`-u`/`-f` change branches.
fn git_branch_lists(args: &[String]) -> Result<(), NotReadOnly> {
    const LISTING: &[&str] = &[
        "--all",
        "--remotes",
        "--verbose",
        "--list",
        "--show-current",
        "--contains",
        "--no-contains",
        "--merged",
        "--no-merged",
        "--points-at",
        "--sort",
        "--format",
        "--color",
        "--no-color",
        "--column",
        "--no-column",
        "--ignore-case",
        "--abbrev",
        "--no-abbrev",
        "--quiet",
        "--omit-empty",
    ];
    const IMPLY_LIST: &[&str] = &["--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"];
    let mut lists = false;
    let mut names = false;
    for arg in args {
        if let Some(long) = arg.strip_prefix("--") {
            let name = format!("--{}", long.split_once('=').map_or(long, |(name, _)| name));
            if !LISTING.contains(&name.as_str()) {
                return Err(format!("git branch {arg} changes branches"));
            }
            lists |= IMPLY_LIST.contains(&name.as_str());
        } else if arg.len() > 1 && arg.starts_with('-') {
            if !arg[1..].chars().all(|letter| "arvliq".contains(letter)) {
                return Err(format!("git branch {arg} changes branches"));
            }
            lists |= arg.contains('l');
        } else {
            names = true;
        }
    }
    if names && !lists { Err("git branch NAME creates a branch".into()) } else { Ok(()) }
}

/// Files met below a search root before the walk gives up (and the command asks).
const MAX_WALK: usize = 20_000;

/// Checks on the disk what the text left open: no tree a recursive search reads holds a
/// sensitive file, a session log or (when links are followed) a symbolic link; and when git
/// runs, its repository configuration names no program.
fn confirm(needs: &Needs, root: &Path) -> Result<(), NotReadOnly> {
    let Ok(root) = std::fs::canonicalize(root) else { return Err("the project root cannot be resolved".into()) };
    for search in &needs.searches {
        let start =
            sandbox::check_path(&root, &search.dir, None).map_err(|denial| format!("{}: {denial}", search.dir))?;
        walk(&root, &start, search)?;
    }
    if needs.git {
        git_configuration_runs_nothing(&root)?;
    }
    Ok(())
}

/// Walks `start` as the search would, looking for what it must not read.
fn walk(root: &Path, start: &Path, search: &Search) -> Result<(), NotReadOnly> {
    let mut pending: Vec<PathBuf> = vec![start.to_path_buf()];
    let mut seen = 0;
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_WALK {
                return Err(format!("{} holds too many files to check", search.dir));
            }
            let path = entry.path();
            let hidden = entry.file_name().as_encoded_bytes().starts_with(b".");
            if hidden && !search.hidden {
                continue;
            }
            let Ok(kind) = entry.file_type() else { continue };
            let relative = path.strip_prefix(root).unwrap_or(&path);
            if kind.is_symlink() {
                if search.follow {
                    return Err(format!("{} is a symbolic link the search would follow", relative.display()));
                }
            } else if kind.is_dir() {
                pending.push(path);
            } else if policy::is_sensitive_path(&path) || policy::is_session_log(relative) {
                return Err(format!("the search would read {}", relative.display()));
            }
        }
    }
    Ok(())
}

/// Sections of a repository's git configuration that name no program any reader above runs.
/// Everything else is refused, among them `diff` (`diff.external`, a driver's `command` and
/// `textconv`), `filter` (clean filters run on `git status`), `gpg` and `log`
/// (`log.showSignature` runs gpg), `merge`, `include`/`includeIf` (a file this check did not
/// read), `alias`, `pager`. `core`'s program keys are either overridden for auto-allowed
/// commands (`core.fsmonitor`, `core.hooksPath`: `tools::HARDENED_GIT`) or run only with a
/// terminal or a remote (`core.pager`, `core.editor`, `core.sshCommand`, `core.askPass`).
const GIT_SECTIONS: &[&str] = &[
    "core",
    "remote",
    "branch",
    "user",
    "init",
    "pull",
    "push",
    "fetch",
    "gc",
    "pack",
    "index",
    "color",
    "advice",
    "submodule",
    "lfs",
    "maintenance",
    "rerere",
    "feature",
    "checkout",
    "status",
    "column",
    "help",
    "extensions",
    "http",
    "credential",
    "safe",
    "transfer",
    "protocol",
    "receive",
    "i18n",
    "gui",
];

/// The repository git would find from the root (the nearest `.git` at or above it): its
/// configuration, its worktree configuration and its submodules' must name no program.
fn git_configuration_runs_nothing(root: &Path) -> Result<(), NotReadOnly> {
    let Some(dot_git) = root.ancestors().map(|dir| dir.join(".git")).find(|path| path.symlink_metadata().is_ok())
    else {
        // No repository: git reads no repository configuration.
        return Ok(());
    };
    if !dot_git.symlink_metadata().is_ok_and(|meta| meta.is_dir()) {
        return Err(format!("{} is not a directory: its git directory was not checked", dot_git.display()));
    }
    let mut configs = vec![dot_git.join("config"), dot_git.join("config.worktree")];
    let mut pending = vec![dot_git.join("modules")];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten().take(MAX_WALK) {
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => pending.push(entry.path()),
                _ if entry.file_name() == "config" || entry.file_name() == "config.worktree" => {
                    configs.push(entry.path())
                }
                _ => {}
            }
        }
    }
    // A submodule whose `.git` is a directory of its own (not absorbed into `.git/modules`)
    // brings a configuration this check does not read; `git status` recurses into it.
    let top = dot_git.parent().unwrap_or(root);
    let gitmodules = std::fs::read_to_string(top.join(".gitmodules")).unwrap_or_default();
    for path in gitmodules.lines().filter_map(|line| line.trim().strip_prefix("path")) {
        let path = path.trim_start().trim_start_matches('=').trim().trim_matches('"');
        if top.join(path).join(".git").symlink_metadata().is_ok_and(|meta| !meta.is_file()) {
            return Err(format!("the submodule {path} keeps its own git directory, which was not checked"));
        }
    }
    for config in configs {
        match std::fs::read(&config) {
            Ok(bytes) => config_runs_nothing(&String::from_utf8_lossy(&bytes))
                .map_err(|what| format!("{} has {what}", config.display()))?,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(format!("{} cannot be read ({err})", config.display())),
        }
    }
    Ok(())
}

/// The first section (or `core.worktree`, which moves the work tree out of the project) of a git
/// configuration text outside [`GIT_SECTIONS`], read the way git reads headers: several may
/// share a line (`[core] [diff "x"]`), and a key may follow one.
fn config_runs_nothing(text: &str) -> Result<(), String> {
    let mut section = String::new();
    for line in text.trim_start_matches('\u{feff}').lines() {
        let mut rest = line.trim_start();
        while let Some(header) = rest.strip_prefix('[') {
            let end = header.find(']').unwrap_or(header.len());
            section = header[..end]
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect::<String>()
                .to_ascii_lowercase();
            if !GIT_SECTIONS.contains(&section.as_str()) {
                return Err(format!("a [{section}] section (it can name programs git runs)"));
            }
            rest = header.get(end + 1..).unwrap_or_default().trim_start();
        }
        let key = rest.split(['=', ' ', '\t']).next().unwrap_or_default().to_ascii_lowercase();
        if section == "core" && key == "worktree" {
            return Err("core.worktree (a work tree elsewhere)".into());
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "read_only_tests.rs"]
mod tests;
