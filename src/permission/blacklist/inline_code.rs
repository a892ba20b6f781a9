//! Code given to an interpreter on the command line (`python3 -c`, `perl -e`, `node -e`, a
//! here-doc or an echo piped into `python3`), read for the two shapes a one-liner wrecks a
//! machine with: a recursive-delete call (`shutil.rmtree`, Perl's `rmtree`, `FileUtils.rm_rf`,
//! `fs.rmSync(…, {recursive: true})`) on a critical literal or on the home directory
//! (`Path.home()`, `$ENV{HOME}`, `os.homedir()`), and a command line handed to the OS as a list
//! of literals (`subprocess.run(["rm", "-rf", "/"])`), which the blacklist then checks as a
//! script. (A command line given as one string, `os.system("rm -rf /")`, is already found by
//! the raw-text scan of unparseable scripts.)
//!
//! Invariant: only literals and well-known spellings are recognised; a target computed inside
//! the program (`rmtree(sys.argv[1])`, a path joined from pieces, an aliased function) is not.
//! The blacklist is the seatbelt here, the OS sandbox the guarantee. Pure text matching with
//! linear-time regexes.

use super::MaybeMatch;
use super::scope::Scope;
use regex::Regex;
use std::sync::LazyLock;

/// Calls that delete a directory tree in Python, Perl, Ruby, Node, Deno and Bun; the generic
/// `rm`/`remove` calls of Node and Deno count only with `recursive` in the same statement.
static DELETE_CALL: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\b(?:rmtree|remove_tree|rm_rf|rm_r|remove_dir|remove_entry(?:_secure)?|removeSync|emptyDirSync|emptyDir",
        r"|rimraf(?:Sync)?|deleteRecursively)\b",
        r"|\b(?:rm|rmdir|rmSync|rmdirSync|remove)\s*\([^;\n]*recursive",
    ))
    .ok()
});

/// Spellings of the home directory inside program text.
static HOME_EXPRESSION: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(concat!(
        r"Path\.home\(\)|\bhomedir\(\)|\bDir\.home\b|\bENV\s*[\[{]\s*['\x22]?HOME\b",
        r"|\benviron(?:\.get)?\s*[\[(]\s*['\x22]HOME\b|\bgetenv\s*\(\s*['\x22]HOME\b|\benv\.HOME\b",
        r"|\bos\.UserHomeDir\(\)",
    ))
    .ok()
});

static STRING_LITERAL: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"'([^'\\]*)'|\x22([^\x22\\]*)\x22|`([^`]*)`").ok());

/// True when interpreter code deletes a critical tree: some statement calls a recursive-delete
/// function and names a critical path literal (`"/"`, `"~"`, `"/home/alice"`, `".."`) or the home
/// directory.
pub(super) fn deletes_critical_tree(code: &str, scope: &Scope) -> bool {
    code.split([';', '\n']).any(|statement| {
        if !DELETE_CALL.is_match(statement) {
            return false;
        }
        let literal_is_critical = STRING_LITERAL.as_ref().is_some_and(|regex| {
            regex.captures_iter(statement).any(|captures| {
                let text = captures.iter().skip(1).flatten().next().map_or("", |found| found.as_str());
                !text.is_empty() && scope.is_critical(text)
            })
        });
        literal_is_critical || HOME_EXPRESSION.is_match(statement)
    })
}

/// A bracketed list of two or more string literals: `["rm", "-rf", "/"]`, `['rm','-rf','/']`.
static ARGV_LIST: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"\[\s*(?:(?:'[^'\\]*'|"[^"\\]*")\s*,\s*)+(?:'[^'\\]*'|"[^"\\]*")\s*,?\s*\]"#).ok());

/// Every list of string literals in the code, as the words of a command line.
pub(super) fn argv_lists(code: &str) -> Vec<Vec<String>> {
    let (Some(lists), Some(literal)) = (ARGV_LIST.as_ref(), STRING_LITERAL.as_ref()) else { return Vec::new() };
    lists
        .find_iter(code)
        .map(|list| {
            literal
                .captures_iter(list.as_str())
                .filter_map(|captures| captures.iter().skip(1).flatten().next().map(|found| found.as_str().to_string()))
                .collect()
        })
        .collect()
}
