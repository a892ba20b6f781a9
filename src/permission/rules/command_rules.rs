//! How Bash rules meet a compound command: deny rules see every spelling of every
//! sub-command (nested `-c` scripts included); allow rules must cover every sub-command.
//!
//! Invariant: "normalise aggressively for deny, conservatively for allow". Deny targets include
//! the raw text, each sub-command as written, unwrapped, with the program's basename, and the
//! sub-commands of `sh -c`/`eval`/`find -exec` scripts. An allow needs every sub-command to
//! match, sees the unwrapped form only through harmless wrappers (`timeout`, `nice`, …, never
//! `sudo`/`env`/`xargs`), lets only an exact rule allow a command that can run other programs,
//! and never allows substitutions, unparseable text or file redirections outside the project.

use super::{Level, Rule};
use crate::command::builtins;
use crate::command::expansion;
use crate::command::normalize;
use crate::command::runners::{self, ProjectDir};
use crate::command::wrappers::{self, BENIGN_WRAPPERS, SHELLS};
use crate::permission::sandbox;
use crate::shell::{self, Nesting, ParsedCommand, SimpleCommand};
use crate::special_paths;
use std::path::Path;

/// How deep nested `-c` scripts are followed for deny targets.
const MAX_NESTING: usize = 8;

/// A command analysed for the rule layer.
#[derive(Clone, Debug, Default)]
pub(crate) struct CommandAnalysis {
    /// Every spelling a deny rule is matched against.
    pub deny_targets: Vec<String>,
    /// Why no allow rule can allow this command at all, if so.
    pub never: Option<String>,
    subcommands: Vec<SubcommandFacts>,
}

#[derive(Clone, Debug, Default)]
struct SubcommandFacts {
    /// Spellings an allow rule may match: the literal one, the one without assignment
    /// prefixes, and the unwrapped one when only harmless wrappers were peeled.
    candidates: Vec<String>,
    /// Set when only an exact rule may allow this sub-command.
    risky: Option<String>,
    /// Redirection-only sub-commands touching no file (`(…) 2>/dev/null`) need no rule.
    vacuous: bool,
    /// The first candidate a rule with a wildcard may match; those before it are for exact
    /// rules only. A prefix rule matches a command word, never an assignment (`Bash(git*)` must
    /// not allow `git=1 other`), and never a wrapper's (`Bash(exec *)` must not allow
    /// `X=1 exec other`, whichever prefixes come first).
    broad_from: usize,
}

/// Files a redirection may name without counting as outside the project. The terminal
/// (`/dev/tty`, `/dev/pts/*`, `/dev/console`) is not one: writing it paints escape sequences on
/// the user's screen, reading it takes keystrokes meant for mewcode's own prompts.
pub(crate) const INERT_FILES: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr"];

/// Analyses `command` for the rules; `root` resolves redirection targets.
pub(crate) fn analyze(command: &str, root: &Path) -> CommandAnalysis {
    let mut analysis = CommandAnalysis { deny_targets: deny_targets(command, 0), ..CommandAnalysis::default() };
    let parsed = match shell::parse_command(command) {
        Ok(parsed) => parsed,
        Err(error) => {
            analysis.never = Some(format!("the command cannot be parsed ({})", error.reason));
            return analysis;
        }
    };
    analysis.never = never_reason(&parsed, root);
    // A directory argument names the project when it resolves to the root (`.`, `./`, the
    // absolute path, a symlink to it).
    let project = sandbox::check_path(root, ".", None).ok();
    let project_dir = |dir: &str| project.is_some() && sandbox::check_path(root, dir, None).ok() == project;
    analysis.subcommands = parsed.subcommands.iter().map(|command| facts(command, root, &project_dir)).collect();
    mark_git_after_cd(&parsed.subcommands, &mut analysis.subcommands, &project_dir);
    analysis
}

impl CommandAnalysis {
    /// The allow rule that covers the command: every sub-command must be matched by some
    /// allow rule; the rule reported is the one matching the first sub-command.
    pub(crate) fn allowed_by<'r>(&self, allow: &[(Level, &'r Rule)]) -> Option<(Level, &'r Rule)> {
        if self.never.is_some() {
            return None;
        }
        let mut first = None;
        for facts in self.subcommands.iter().filter(|facts| !facts.vacuous) {
            let found = allow.iter().find(|(_, rule)| allows(rule, facts))?;
            first.get_or_insert(*found);
        }
        first
    }

    /// Why the command needs approval even though rules may exist, for the prompt.
    pub(crate) fn risk(&self) -> Option<&str> {
        self.never.as_deref().or_else(|| self.subcommands.iter().find_map(|facts| facts.risky.as_deref()))
    }

    /// One exact target per sub-command, for "always allow"; empty when rules can never
    /// allow the command (persisting would be useless).
    pub(crate) fn exact_targets(&self) -> Vec<String> {
        if self.never.is_some() {
            return Vec::new();
        }
        self.subcommands
            .iter()
            .filter(|facts| !facts.vacuous)
            .filter_map(|facts| facts.candidates.first().cloned())
            .collect()
    }
}

fn allows(rule: &Rule, facts: &SubcommandFacts) -> bool {
    match &rule.pattern {
        None => facts.risky.is_none(),
        Some(pattern) => {
            let exact = pattern.matcher.is_exact();
            // `Bash(env *)` was not written to allow whatever env runs: through a wrapper, a
            // broad rule sees only the unwrapped command (when the wrapper is harmless).
            let skip = if exact { 0 } else { facts.broad_from };
            (facts.risky.is_none() || exact)
                && facts.candidates.iter().skip(skip).any(|candidate| pattern.matcher.matches(candidate))
        }
    }
}

/// Command substitutions, and file redirections that leave the project, are never auto-allowed.
/// A process substitution (`diff <(a) <(b)`, `while …; done < <(git log)`) is not one: its
/// output is data read through a file name, and its commands are judged like the others.
fn never_reason(parsed: &ParsedCommand, root: &Path) -> Option<String> {
    if parsed.has_substitution || parsed.subcommands.iter().any(|command| command.context == Nesting::Substitution) {
        return Some("command substitution is never auto-allowed".into());
    }
    let changes_directory = parsed.subcommands.iter().any(|command| {
        let effective = wrappers::unwrap_command(&command.words);
        effective
            .words
            .first()
            .is_some_and(|program| matches!(wrappers::program_name(program), "cd" | "pushd" | "popd"))
    });
    for command in &parsed.subcommands {
        for redirect in command
            .redirections
            .iter()
            .filter(|redirect| redirect.op.names_file() && !is_process_substitution(redirect))
        {
            let target = redirect.target.as_str();
            if INERT_FILES.contains(&target) {
                continue;
            }
            if normalize::is_terminal_device(target) {
                return Some(format!("redirection to the terminal ({target}) is never auto-allowed"));
            }
            let unknown = redirect.target_info.expansion || redirect.target_info.glob || target.starts_with('~');
            let relative_after_cd = changes_directory && !target.starts_with('/');
            if unknown || relative_after_cd || sandbox::check_path(root, target, None).is_err() {
                return Some(format!("redirection to {target} may leave the project"));
            }
        }
    }
    None
}

fn facts(command: &SimpleCommand, root: &Path, project_dir: ProjectDir<'_>) -> SubcommandFacts {
    if command.words.is_empty() && command.assignments.is_empty() {
        // `(…) 2>/dev/null` needs no rule; `> file` truncates a file, so it needs one that
        // matches the empty command (only a catch-all like `Bash(*)` does).
        let inert = command.redirections.iter().all(|redirect| {
            !redirect.op.names_file()
                || INERT_FILES.contains(&redirect.target.as_str())
                || is_process_substitution(redirect)
        });
        return SubcommandFacts { vacuous: inert, candidates: vec![String::new()], risky: None, broad_from: 0 };
    }
    if command.header {
        // `for NAME in …`, `((…))`, `[[ … ]]`, `case WORD`: syntax, no program — judged for what
        // it assigns and evaluates. A plain `$NAME` is only a value here; `$((x))`, `${a[x]}`
        // or `${v:x}` evaluate `x` as arithmetic, whose value may hold `a[$(cmd)]`.
        let evaluating = command
            .words
            .iter()
            .zip(&command.word_info)
            .find(|(word, info)| info.expansion && !only_plain_expansions(word))
            .map(|(word, _)| format!("{word} evaluates variables as arithmetic"));
        let risky = evaluating.or_else(|| builtins::builtin_risk(&command.words));
        let candidates = vec![render_words(&command.words)];
        return SubcommandFacts { vacuous: risky.is_none(), candidates, risky, broad_from: 0 };
    }
    let literal = render_words(command.assignments.iter().chain(&command.words));
    let effective = wrappers::unwrap_command(&command.words);
    let mut candidates = vec![literal];
    let mut broad_from = 0;
    // Assignment prefixes are judged on their own (below) and never seen by a broad rule.
    if !command.assignments.is_empty() {
        candidates.push(render_words(&command.words));
        broad_from = 1;
    }
    if !effective.wrappers.is_empty() {
        // Every spelling so far starts with the wrapper: a broad rule sees only what it runs.
        broad_from = candidates.len();
        let benign = effective.wrappers.iter().all(|wrapper| BENIGN_WRAPPERS.contains(&wrapper.as_str()));
        if benign && effective.reserved.is_empty() {
            candidates.push(render_words(&effective.words));
        }
    }
    let mut assignments = command.assignments.iter().chain(&effective.assignments);
    let dangerous_assignment = assignments.find(|assignment| {
        assignment.split_once('=').is_some_and(|(name, _)| runners::is_dangerous_variable(name.trim_end_matches('+')))
    });
    let risky = if command.words.is_empty() {
        Some("a shell variable assignment".to_string())
    } else if let Some(assignment) = dangerous_assignment {
        Some(format!("sets {assignment}"))
    } else if let Some(assignment) = command.assignments.iter().find(|assignment| crate::shell::code_marker(assignment))
    {
        // `i='a[$(id)]' make` runs `id` when `i` is an integer or a name reference.
        Some(format!("the assignment {assignment} may be evaluated as code"))
    } else if let Some(reason) = builtins::builtin_risk(&effective.words) {
        // `export NODE_OPTIONS=…; npm test`, `printf -v PATH …`, `alias git=…`: what follows runs
        // differently, as after a prefix assignment.
        Some(reason)
    } else if !effective.reserved.is_empty() {
        Some("shell control flow".to_string())
    } else if command.word_info.iter().any(|info| info.expansion) {
        Some("a variable expansion".to_string())
    } else if let Some(reason) = expanded_arguments_risk(command, &effective.words, root) {
        Some(reason)
    } else if let Some(reason) = command.redirections.iter().find_map(|redirect| sensitive_redirect(redirect, root)) {
        Some(reason)
    } else {
        wrappers::exec_risk(&effective, project_dir).map(str::to_string)
    };
    SubcommandFacts { candidates, risky, vacuous: false, broad_from }
}

/// The first argument that, as written or as bash expands it (braces, globs against the files
/// that exist), names a place outside the project or a sensitive file.
pub(crate) fn expanded_arguments_risk(command: &SimpleCommand, effective: &[String], root: &Path) -> Option<String> {
    let written = command.words.iter().zip(&command.word_info).skip(1);
    for (word, info) in written {
        let expansion = expansion::expand(word, info, root);
        if expansion.truncated {
            return Some(format!("{word} matches too many files to check"));
        }
        if let Some(reason) = expansion.words.iter().find_map(|word| outside_or_sensitive(word, root)) {
            return Some(reason);
        }
    }
    effective.iter().skip(1).find_map(|word| outside_or_sensitive(word, root))
}

/// An argument (also after `--opt=`) that names a place outside the project — `/x`, `~/x`,
/// `../x`, or a name inside the project that is a symlink pointing out — or a sensitive file
/// (also after `:`, as in `git show HEAD:.env`, or behind a symlink): a broad rule for the program
/// was not written with it in mind.
fn outside_or_sensitive(word: &str, root: &Path) -> Option<String> {
    let value = word.rsplit_once('=').map_or(word, |(_, value)| value);
    if let Some(part) = value.split(':').find(|part| special_paths::is_sensitive_path(Path::new(part))) {
        return Some(format!("names a sensitive file ({part})"));
    }
    if normalize::is_terminal_device(value) {
        return Some(format!("names the terminal ({value})"));
    }
    if value.is_empty() || INERT_FILES.contains(&value) {
        return None;
    }
    match sandbox::check_path(root, value, None) {
        Err(_) => Some(format!("names a path outside the project ({value})")),
        Ok(resolved) if special_paths::is_sensitive_path(&resolved) => {
            Some(format!("names a sensitive file ({value} is {})", resolved.display()))
        }
        Ok(resolved) if is_session_log(root, &resolved) => Some(format!("names a session log ({value})")),
        Ok(_) => None,
    }
}

/// True when a resolved path lies in the project's session logs.
fn is_session_log(root: &Path, resolved: &Path) -> bool {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    resolved.strip_prefix(&root).is_ok_and(special_paths::is_session_log)
}

/// A redirection that reads (or writes) a sensitive file, directly or through a symlink:
/// `wc -l < .env` shows its content as surely as `cat .env`.
pub(crate) fn sensitive_redirect(redirect: &shell::Redirect, root: &Path) -> Option<String> {
    if !redirect.op.names_file() || INERT_FILES.contains(&redirect.target.as_str()) {
        return None;
    }
    let target = &redirect.target;
    let resolved = sandbox::check_path(root, target, None).ok();
    let sensitive = special_paths::is_sensitive_path(Path::new(target))
        || resolved.as_deref().is_some_and(|path| special_paths::is_sensitive_path(path) || is_session_log(root, path));
    sensitive.then(|| format!("redirection names a sensitive file ({target})"))
}

/// `cd DIR && git …`: git then runs with DIR's repository configuration (a nested clone's
/// `core.fsmonitor` or hooks), so unless DIR is the project itself only an exact rule may allow
/// the git sub-commands that follow. `popd`, `cd -` and a bare `cd` go somewhere else too.
fn mark_git_after_cd(commands: &[SimpleCommand], facts: &mut [SubcommandFacts], project_dir: ProjectDir<'_>) {
    let mut moved = false;
    for (command, facts) in commands.iter().zip(facts) {
        let effective = wrappers::unwrap_command(&command.words);
        let program = effective.words.first().map(|word| wrappers::program_name(word));
        match program {
            Some("cd" | "chdir" | "pushd" | "popd") => {
                let target = effective.words[1..].iter().find(|arg| !arg.starts_with('-') || *arg == "-");
                moved |= program == Some("popd") || target.is_none_or(|target| !project_dir(target));
            }
            Some("git") if moved && facts.risky.is_none() => {
                facts.risky = Some("git after cd to another directory runs with its repository configuration".into());
            }
            _ => {}
        }
    }
}

/// True when every `$` in `word` (as the lexer writes expansions) starts `${NAME}` or a
/// special parameter (`$1`, `$?`): expansions whose value is never evaluated.
fn only_plain_expansions(word: &str) -> bool {
    let mut rest = word;
    while let Some(at) = rest.find('$') {
        rest = &rest[at + 1..];
        if let Some(braced) = rest.strip_prefix('{') {
            let Some(end) = braced.find('}') else { return false };
            let name = &braced[..end];
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return false;
            }
            rest = &braced[end + 1..];
        } else if !rest.starts_with(|c: char| c.is_ascii_digit() || "@*#?$!-".contains(c)) {
            return false;
        }
    }
    true
}

/// `< <(cmd)`, `> >(cmd)`: the target is a pipe to commands that are judged on their own.
fn is_process_substitution(redirect: &shell::Redirect) -> bool {
    redirect.target_info.substitution && (redirect.target.starts_with("<(") || redirect.target.starts_with(">("))
}

/// Renders words so that the text re-parses to exactly these words: safe words bare, others
/// single-quoted. Rules match this canonical form, so quoting style cannot dodge a rule.
fn render_words<'a>(words: impl IntoIterator<Item = &'a String>) -> String {
    words.into_iter().map(|word| render_word(word)).collect::<Vec<_>>().join(" ")
}

fn render_word(word: &str) -> String {
    let safe = !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c));
    if safe { word.to_string() } else { format!("'{}'", word.replace('\'', "'\\''")) }
}

/// Every spelling of every sub-command, recursing into scripts the command runs.
fn deny_targets(command: &str, depth: usize) -> Vec<String> {
    let mut targets = vec![command.trim().to_string()];
    if depth > MAX_NESTING {
        return targets;
    }
    let Ok(parsed) = shell::parse_command(command) else {
        // Unparseable: every operator-separated piece as written, without quotes, and parsed
        // on its own when it can be — a deny must not weaken because another part is broken.
        let pieces =
            command.split([';', '&', '|', '\n', '(', ')', '`']).map(str::trim).filter(|piece| !piece.is_empty());
        for piece in pieces {
            let unquoted: String = piece.chars().filter(|c| !matches!(c, '\'' | '"' | '\\')).collect();
            // Where commands start is unknown here, so every word may start one (bounded).
            let words: Vec<String> = unquoted.split_whitespace().map(str::to_string).collect();
            for start in 0..words.len().min(64) {
                let effective = wrappers::unwrap_command(&words[start..]);
                targets.push(words[start..].join(" "));
                if let Some(program) = effective.words.first() {
                    let base = wrappers::program_name(program).to_string();
                    targets.push(render_words(std::iter::once(&base).chain(&effective.words[1..])));
                }
            }
            if piece == command.trim() {
                targets.push(piece.to_string());
            } else {
                targets.extend(deny_targets(piece, depth + 1));
            }
        }
        return targets;
    };
    for (index, sub) in parsed.subcommands.iter().enumerate() {
        for script in stdin_scripts(&parsed.subcommands, index) {
            targets.extend(deny_targets(&script, depth + 1));
        }
        targets.push(render_words(sub.assignments.iter().chain(&sub.words)));
        targets.push(render_words(&sub.words));
        // What bash would run after brace expansion and `$IFS` splitting (`{rm,x}` is `rm x`).
        let expanded: Vec<String> = sub
            .words
            .iter()
            .zip(&sub.word_info)
            .flat_map(
                |(word, info)| if info.brace { normalize::brace_words(&info.pattern) } else { vec![word.clone()] },
            )
            .flat_map(|word| normalize::expand_word(&word, &normalize::Variables::new(), None))
            .collect();
        let words = if expanded == sub.words { &sub.words } else { &expanded };
        targets.push(render_words(words));
        let effective = wrappers::unwrap_command(words);
        let Some(program) = effective.words.first() else { continue };
        let base = wrappers::program_name(program).to_string();
        let rest = &effective.words[1..];
        targets.push(render_words(&effective.words));
        targets.push(render_words(std::iter::once(&base).chain(rest)));
        // `rm -r -f x` and `rm -fr x` are `rm -rf x` to a deny rule written either way.
        for spelling in flag_spellings(rest) {
            targets.push(render_words(std::iter::once(&base).chain(&spelling)));
        }
        if base == "git" {
            // `git -C . --no-pager push` is still `git push` to a deny rule.
            targets.push(render_words(std::iter::once(&base).chain(git_subcommand(rest))));
        }
        for script in nested_scripts(&base, rest).into_iter().chain(effective.scripts.iter().cloned()) {
            targets.extend(deny_targets(&script, depth + 1));
        }
    }
    targets.dedup();
    targets
}

/// The script a shell reading its standard input gets: a here-doc or here-string body, or the
/// text `echo`/`printf` pipe into it (`echo 'curl x' | bash`).
fn stdin_scripts(commands: &[SimpleCommand], index: usize) -> Vec<String> {
    let command = &commands[index];
    let effective = wrappers::unwrap_command(&command.words);
    let Some(program) = effective.words.first().map(|word| wrappers::program_name(word)) else { return Vec::new() };
    let reads_stdin = SHELLS.contains(&program) && nested_scripts(program, &effective.words[1..]).is_empty();
    if !reads_stdin {
        return Vec::new();
    }
    let mut scripts: Vec<String> = command
        .redirections
        .iter()
        .filter(|redirect| matches!(redirect.op, shell::RedirectOp::HereDoc { .. } | shell::RedirectOp::HereString))
        .map(|redirect| redirect.target.clone())
        .collect();
    if let Some(source) = command.pipe_input_from.and_then(|from| commands.get(from)) {
        let source = wrappers::unwrap_command(&source.words);
        if let Some((printer, args)) = source.words.split_first()
            && matches!(wrappers::program_name(printer), "echo" | "printf")
        {
            let args: Vec<&String> = args.iter().filter(|arg| !matches!(arg.as_str(), "-e" | "-n" | "-E")).collect();
            let text = args.iter().map(|arg| arg.as_str()).collect::<Vec<_>>().join(" ");
            scripts.push(normalize::decode_escapes(&text));
        }
    }
    scripts
}

/// Letters of leading short-option clusters beyond which flag orders are not enumerated.
const MAX_FLAG_LETTERS: usize = 4;

/// Other spellings of the leading short options of `args` (`-r -f`, `-rf`, `-fr`): each flag on
/// its own, and clusters in every order, when there are two to four letters in all. Only plain
/// letter flags before the first other word are respelled.
fn flag_spellings(args: &[String]) -> Vec<Vec<String>> {
    let leading = args
        .iter()
        .take_while(|arg| arg.len() > 1 && arg.starts_with('-') && arg[1..].chars().all(|c| c.is_ascii_alphabetic()))
        .count();
    let mut letters: Vec<char> = args[..leading].iter().flat_map(|arg| arg[1..].chars()).collect();
    letters.dedup();
    if !(2..=MAX_FLAG_LETTERS).contains(&letters.len()) {
        return Vec::new();
    }
    let rest = &args[leading..];
    let with_rest = |flags: Vec<String>| flags.into_iter().chain(rest.iter().cloned()).collect::<Vec<String>>();
    let mut spellings = vec![with_rest(letters.iter().map(|letter| format!("-{letter}")).collect())];
    // A cluster of any two or more of them, in any order, then the others one by one
    // (`rm -vfr` is `rm -rf -v` to `Bash(rm -rf *)`).
    for order in permutations(&letters) {
        for size in 2..=order.len() {
            let cluster = format!("-{}", order[..size].iter().collect::<String>());
            let others = order[size..].iter().map(|letter| format!("-{letter}"));
            let spelling = with_rest(std::iter::once(cluster).chain(others).collect());
            if !spellings.contains(&spelling) {
                spellings.push(spelling);
            }
        }
    }
    spellings
}

/// Every order of `items` (callers keep it short).
fn permutations(items: &[char]) -> Vec<Vec<char>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for (index, first) in items.iter().enumerate() {
        let mut others = items.to_vec();
        others.remove(index);
        for mut tail in permutations(&others) {
            tail.insert(0, *first);
            out.push(tail);
        }
    }
    out
}

/// git's arguments from the subcommand on: global options (and their values) skipped.
fn git_subcommand(args: &[String]) -> &[String] {
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if !arg.starts_with('-') {
            break;
        }
        let takes_value = ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"];
        index += if takes_value.contains(&arg.as_str()) { 2 } else { 1 };
    }
    args.get(index..).unwrap_or_default()
}

/// Scripts a command runs itself: `sh -c S`, `eval ARGS`, `su -c S`, `find -exec CMD ;`.
fn nested_scripts(program: &str, args: &[String]) -> Vec<String> {
    match program {
        "eval" => vec![args.join(" ")],
        "trap" => builtins::trap_action(args).map(str::to_string).into_iter().collect(),
        "su" | "runuser" => {
            args.iter().position(|arg| arg == "-c").and_then(|i| args.get(i + 1)).cloned().into_iter().collect()
        }
        "find" => {
            let mut scripts = Vec::new();
            let mut index = 0;
            while index < args.len() {
                if matches!(args[index].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                    let end = args[index + 1..]
                        .iter()
                        .position(|a| a == ";" || a == "+")
                        .map_or(args.len(), |p| index + 1 + p);
                    scripts.push(render_words(&args[index + 1..end]));
                    index = end;
                }
                index += 1;
            }
            scripts
        }
        shell if SHELLS.contains(&shell) => {
            let dash_c = args
                .iter()
                .position(|arg| arg.len() > 1 && arg.starts_with('-') && !arg.starts_with("--") && arg.contains('c'));
            dash_c.and_then(|i| args[i + 1..].iter().find(|arg| !arg.starts_with('-'))).cloned().into_iter().collect()
        }
        _ => Vec::new(),
    }
}
