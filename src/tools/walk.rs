//! A parallel directory walker that honours `.gitignore`, shared by `glob` and `grep`.
//!
//! Invariant: every regular file under the start directory is visited exactly once unless it is
//! ignored, and the walk always terminates — also when cancelled (pending work is drained unvisited)
//! and when a visitor panics (the other workers are told to stop and the panic is re-raised to the
//! caller, where `Registry::execute` turns it into an error result).
//!
//! What is skipped:
//! - `.git` entries, always.
//! - Symlinked directories are not followed (no loops, no escaping the project through a link);
//!   symlinks to regular files are visited like files, marked `is_symlink` so that the callers'
//!   `permission::FileGate` resolves them (and only them). Other file types (sockets, fifos) are
//!   not visited. `walk_with` can instead visit every link unresolved (`WalkOptions::all_links`:
//!   the checkpoints record links as links), prune more directories and read each entry's own
//!   metadata; `walk_parallel`, which grep and glob call, keeps the choices above.
//! - Paths ignored by `.gitignore` files: the one in each visited directory, plus those in the
//!   directories between `ignore_root` and the start directory, whether or not a `.git` exists.
//!   Not read: `.git/info/exclude`, the global excludes file, `.ignore`. Hidden files are visited.
//!
//! The `.gitignore` subset (the common one): blank lines and `#` comments; `\#`, `\!`, `\ `
//! escapes; unescaped trailing spaces trimmed; `!` negation (the last matching line wins, a deeper
//! file wins over a shallower one, and a file inside an ignored directory cannot be re-included
//! because the directory is never entered); a trailing `/` matches directories only; a `/` at the
//! start or in the middle anchors the pattern to the `.gitignore`'s directory, otherwise it
//! matches a name at any depth; `*` and `?` never match `/`; `[...]` classes with `!` or `^`
//! negation; `**/` leading, `/**` trailing and `/**/` in the middle span directories.
//!
//! Parallelism: a crossbeam channel of jobs (a directory to read, or a batch of files to visit)
//! served by up to `MAX_THREADS` named scoped threads. A counter of unfinished jobs drives
//! termination: the worker that finishes the last job sends one `Quit` per worker. Each worker owns
//! a state value (buffers, results), so visitors need no locks; the states are returned in worker
//! order and callers sort what they need sorted.

use crate::cancel::CancelToken;
use crossbeam_channel::{Receiver, Sender};
use regex::RegexSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Upper bound on walker threads: past this, a disk-bound walk gets no faster.
const MAX_THREADS: usize = 12;
/// Files of one directory handed out as one job; small enough to spread a flat directory of
/// thousands of files over all workers, large enough to keep channel traffic negligible.
const FILE_BATCH: usize = 32;

/// A file found by the walk.
#[derive(Clone, Debug)]
pub(crate) struct WalkEntry {
    /// The file's path (the start directory joined with `rel`).
    pub path: PathBuf,
    /// The path relative to the start directory, `/`-separated (lossy for non-UTF-8 names). For a
    /// start that is itself a file, its file name.
    pub rel: String,
    /// True when the directory entry is a symlink (to a file). Plain entries need no resolving:
    /// the walk only descends real directories, so they are where their directory is.
    pub is_symlink: bool,
    /// The entry's own metadata (a link's, not its target's) when `WalkOptions::metadata` asks
    /// for it and it could be read: taken through the directory's descriptor while it is being
    /// listed, which spares the kernel a lookup of the whole path per file.
    pub metadata: Option<std::fs::Metadata>,
}

/// Walks `start` in parallel, calling `visit` with a worker's own state for every file that is not
/// ignored. `ignore_root` is the project root: `.gitignore` files from there down to `start`
/// apply (when `start` is outside it, only those at and below `start`). Returns every worker's
/// state. A `start` that is a file is visited alone, without ignore checks (it was named
/// explicitly).
pub(crate) fn walk_parallel<S, M, V>(
    start: &Path,
    ignore_root: &Path,
    cancel: &CancelToken,
    make_state: M,
    visit: V,
) -> Vec<S>
where
    S: Send,
    M: Fn() -> S + Sync,
    V: Fn(&mut S, &WalkEntry) + Sync,
{
    let options = WalkOptions { start, ignore_root, all_links: false, metadata: false, prune: None };
    walk_with(&options, cancel, make_state, visit)
}

/// What a walk covers beyond `walk_parallel`'s fixed choices (grep and glob take those): the
/// checkpoints' scan records every link as a link and leaves heavy directories out.
pub(crate) struct WalkOptions<'a> {
    /// Where the walk starts.
    pub start: &'a Path,
    /// Where `.gitignore` files start to apply (see `walk_parallel`).
    pub ignore_root: &'a Path,
    /// Visit every symbolic link as an entry of its own (`is_symlink`), whatever it points to (a
    /// file, a directory, nothing), without following it. Off: only links to files, as files.
    pub all_links: bool,
    /// Fill `WalkEntry::metadata`.
    pub metadata: bool,
    /// Directories not entered besides ignored ones: true for (its path, its name) prunes it.
    pub prune: Option<&'a Prune<'a>>,
}

/// Decides from a directory's path and name that a walk does not enter it.
pub(crate) type Prune<'a> = dyn Fn(&Path, &str) -> bool + Sync + 'a;

/// `walk_parallel` with `options`.
pub(crate) fn walk_with<S, M, V>(options: &WalkOptions<'_>, cancel: &CancelToken, make_state: M, visit: V) -> Vec<S>
where
    S: Send,
    M: Fn() -> S + Sync,
    V: Fn(&mut S, &WalkEntry) + Sync,
{
    let WalkOptions { start, ignore_root, .. } = *options;
    if !start.is_dir() {
        let mut state = make_state();
        if start.is_file() {
            let rel = start.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
            let is_symlink = start.symlink_metadata().is_ok_and(|meta| meta.file_type().is_symlink());
            let metadata = options.metadata.then(|| start.symlink_metadata().ok()).flatten();
            visit(&mut state, &WalkEntry { path: start.to_path_buf(), rel, is_symlink, metadata });
        }
        return vec![state];
    }
    let threads = std::thread::available_parallelism().map_or(1, |count| count.get()).clamp(1, MAX_THREADS);
    let (ignores, rel_base) = preload_ignores(ignore_root, start);
    let first = DirJob { path: start.to_path_buf(), rel_base, rel_start: String::new(), ignores };
    // Unbounded: producers are the consumers, so a bound could deadlock every worker on send.
    let (jobs_tx, jobs_rx) = crossbeam_channel::unbounded();
    let shared = Shared { jobs_tx, jobs_rx, pending: AtomicUsize::new(1), threads, cancel, options };
    let _ = shared.jobs_tx.send(Job::Dir(first));
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for index in 0..threads {
            let worker = || run_worker(&shared, &make_state, &visit);
            if let Ok(handle) = std::thread::Builder::new().name(format!("walk-{index}")).spawn_scoped(scope, worker) {
                handles.push(handle);
            }
        }
        if handles.is_empty() {
            // No thread could be spawned: walk on the caller's thread instead.
            return vec![run_worker(&shared, &make_state, &visit)];
        }
        let mut states = Vec::with_capacity(handles.len());
        for handle in handles {
            match handle.join() {
                Ok(state) => states.push(state),
                Err(payload) => std::panic::resume_unwind(payload),
            }
        }
        states
    })
}

/// The compiled patterns of one `.gitignore` file.
#[derive(Debug)]
pub(crate) struct Gitignore {
    set: RegexSet,
    rules: Vec<Rule>,
}

#[derive(Clone, Copy, Debug)]
struct Rule {
    negated: bool,
    dir_only: bool,
}

impl Gitignore {
    /// Compiles the text of a `.gitignore`; lines that cannot be compiled are skipped.
    pub(crate) fn parse(text: &str) -> Gitignore {
        let mut patterns = Vec::new();
        let mut rules = Vec::new();
        for line in text.lines() {
            if let Some((regex, rule)) = compile_line(line) {
                patterns.push(regex);
                rules.push(rule);
            }
        }
        match RegexSet::new(&patterns) {
            Ok(set) => Gitignore { set, rules },
            Err(_) => {
                // Some line produced an invalid regex (should not happen, we escape everything);
                // keep the lines that compile on their own.
                let keep: Vec<usize> =
                    (0..patterns.len()).filter(|&i| regex::Regex::new(&patterns[i]).is_ok()).collect();
                let set = RegexSet::new(keep.iter().map(|&i| &patterns[i])).unwrap_or_else(|_| RegexSet::empty());
                Gitignore { set, rules: keep.iter().map(|&i| rules[i]).collect() }
            }
        }
    }

    /// The decision of the last matching line for `rel` (relative to this file's directory,
    /// `/`-separated): `Some(true)` ignored, `Some(false)` re-included by `!`, `None` no match.
    pub(crate) fn decide(&self, rel: &str, is_dir: bool) -> Option<bool> {
        if self.rules.is_empty() {
            return None;
        }
        let matches = self.set.matches(rel);
        matches
            .iter()
            .rev()
            .map(|index| self.rules[index])
            .find(|rule| is_dir || !rule.dir_only)
            .map(|rule| !rule.negated)
    }
}

/// One line of a `.gitignore` as an anchored regex over the relative path, or `None` for blank
/// lines and comments.
fn compile_line(line: &str) -> Option<(String, Rule)> {
    let mut pattern = line.strip_suffix('\r').unwrap_or(line);
    while pattern.ends_with(' ') && !pattern.ends_with("\\ ") {
        pattern = &pattern[..pattern.len() - 1];
    }
    if pattern.is_empty() || pattern.starts_with('#') {
        return None;
    }
    let negated = pattern.starts_with('!');
    if negated {
        pattern = &pattern[1..];
    }
    let dir_only = pattern.ends_with('/') && !pattern.ends_with("\\/");
    if dir_only {
        pattern = &pattern[..pattern.len() - 1];
    }
    let anchored = pattern.contains('/');
    let pattern = pattern.strip_prefix('/').unwrap_or(pattern);
    if pattern.is_empty() {
        return None;
    }
    let body = translate_glob(pattern);
    let regex = if anchored { format!("^{body}$") } else { format!("^(?:.*/)?{body}$") };
    Some((regex, Rule { negated, dir_only }))
}

/// Translates gitignore glob syntax into regex syntax (without anchors).
fn translate_glob(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::new();
    let mut index = 0;
    while index < chars.len() {
        let current = chars[index];
        match current {
            '*' if chars.get(index + 1) == Some(&'*') => {
                let at_start = index == 0 || chars[index - 1] == '/';
                let after = chars.get(index + 2).copied();
                if at_start && after == Some('/') {
                    out.push_str("(?:.*/)?"); // `**/` : zero or more directories
                    index += 3;
                    continue;
                }
                if at_start && after.is_none() {
                    out.push_str(".*"); // trailing `/**` : everything inside
                    index += 2;
                    continue;
                }
                out.push_str("[^/]*"); // `**` elsewhere is an ordinary `*`
                index += 2;
            }
            '*' => {
                out.push_str("[^/]*");
                index += 1;
            }
            '?' => {
                out.push_str("[^/]");
                index += 1;
            }
            '[' => match translate_class(&chars[index..]) {
                Some((class, used)) => {
                    out.push_str(&class);
                    index += used;
                }
                None => {
                    out.push_str("\\[");
                    index += 1;
                }
            },
            '\\' if index + 1 < chars.len() => {
                out.push_str(&regex::escape(&chars[index + 1].to_string()));
                index += 2;
            }
            other => {
                out.push_str(&regex::escape(&other.to_string()));
                index += 1;
            }
        }
    }
    out
}

/// `[...]` at the start of `chars` as a regex class and the number of chars it used; `None` when
/// there is no closing `]` (then `[` is literal, as in git).
fn translate_class(chars: &[char]) -> Option<(String, usize)> {
    let mut index = 1;
    let mut class = String::from("[");
    if matches!(chars.get(index), Some('!') | Some('^')) {
        class.push_str("^/");
        index += 1;
    }
    let first_member = index;
    loop {
        let current = *chars.get(index)?;
        if current == ']' && index > first_member {
            class.push(']');
            return Some((class, index + 1));
        }
        if current == '\\' {
            index += 1;
            let escaped = *chars.get(index)?;
            push_class_char(&mut class, escaped);
        } else if current == '-' && index > first_member && chars.get(index + 1).is_some_and(|&next| next != ']') {
            class.push('-');
        } else {
            push_class_char(&mut class, current);
        }
        index += 1;
    }
}

fn push_class_char(class: &mut String, member: char) {
    if !member.is_alphanumeric() {
        class.push('\\');
    }
    class.push(member);
}

/// The `.gitignore` files in force in one directory, deepest first through `parent`.
struct IgnoreNode {
    /// The directory of this `.gitignore`, relative to the ignore base ("" for the base).
    base: String,
    matcher: Gitignore,
    parent: Option<Arc<IgnoreNode>>,
}

fn is_ignored(mut node: Option<&Arc<IgnoreNode>>, rel_base: &str, is_dir: bool) -> bool {
    while let Some(current) = node {
        let local = if current.base.is_empty() {
            Some(rel_base)
        } else {
            rel_base.strip_prefix(current.base.as_str()).and_then(|rest| rest.strip_prefix('/'))
        };
        if let Some(local) = local
            && let Some(decision) = current.matcher.decide(local, is_dir)
        {
            return decision;
        }
        node = current.parent.as_ref();
    }
    false
}

fn with_gitignore_of(dir: &Path, rel_base: &str, parent: Option<Arc<IgnoreNode>>) -> Option<Arc<IgnoreNode>> {
    match std::fs::read(dir.join(".gitignore")) {
        Ok(bytes) => {
            let matcher = Gitignore::parse(&String::from_utf8_lossy(&bytes));
            Some(Arc::new(IgnoreNode { base: rel_base.to_string(), matcher, parent }))
        }
        Err(_) => parent,
    }
}

/// The ignore chain of the directories above `start` (from `ignore_root` down, excluding `start`
/// itself, whose file is read when it is walked) and `start`'s path relative to the ignore base.
fn preload_ignores(ignore_root: &Path, start: &Path) -> (Option<Arc<IgnoreNode>>, String) {
    let Ok(below) = start.strip_prefix(ignore_root) else {
        return (None, String::new());
    };
    let mut node = None;
    let mut dir = ignore_root.to_path_buf();
    let mut rel = String::new();
    for component in below.components() {
        node = with_gitignore_of(&dir, &rel, node);
        let name = component.as_os_str().to_string_lossy();
        rel = join_rel(&rel, &name);
        dir.push(component);
    }
    (node, rel)
}

fn join_rel(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        return name.to_string();
    }
    // Twice per entry of every walk: plain pushes, not the formatting machinery.
    let mut joined = String::with_capacity(prefix.len() + 1 + name.len());
    joined.push_str(prefix);
    joined.push('/');
    joined.push_str(name);
    joined
}

struct DirJob {
    path: PathBuf,
    /// Relative to the ignore base: what `.gitignore` patterns match against.
    rel_base: String,
    /// Relative to the start directory: what callers see in `WalkEntry::rel`.
    rel_start: String,
    ignores: Option<Arc<IgnoreNode>>,
}

enum Job {
    Dir(DirJob),
    Files(Vec<WalkEntry>),
    Quit,
}

struct Shared<'a> {
    jobs_tx: Sender<Job>,
    jobs_rx: Receiver<Job>,
    /// Jobs sent and not yet finished; the walk is over when it drops to zero.
    pending: AtomicUsize,
    threads: usize,
    cancel: &'a CancelToken,
    options: &'a WalkOptions<'a>,
}

impl Shared<'_> {
    fn send(&self, job: Job) {
        self.pending.fetch_add(1, Ordering::SeqCst);
        // Cannot fail: `self` holds the receiver, so the channel is never disconnected.
        let _ = self.jobs_tx.send(job);
    }

    fn finish_job(&self) {
        if self.pending.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.quit_all();
        }
    }

    fn quit_all(&self) {
        for _ in 0..self.threads {
            let _ = self.jobs_tx.send(Job::Quit);
        }
    }
}

/// Tells the other workers to stop when this one unwinds, so they do not wait forever for a
/// pending count the panicking worker will never decrement.
struct QuitOnPanic<'a, 'b>(&'a Shared<'b>);

impl Drop for QuitOnPanic<'_, '_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.quit_all();
        }
    }
}

fn run_worker<S, M, V>(shared: &Shared<'_>, make_state: &M, visit: &V) -> S
where
    M: Fn() -> S,
    V: Fn(&mut S, &WalkEntry),
{
    let _guard = QuitOnPanic(shared);
    let mut state = make_state();
    while let Ok(job) = shared.jobs_rx.recv() {
        match job {
            Job::Quit => break,
            Job::Dir(dir) => {
                if !shared.cancel.is_cancelled() {
                    read_dir_job(shared, dir, &mut state, visit);
                }
            }
            Job::Files(batch) => {
                for entry in &batch {
                    if shared.cancel.is_cancelled() {
                        break;
                    }
                    visit(&mut state, entry);
                }
            }
        }
        shared.finish_job();
    }
    state
}

/// Lists one directory: subdirectories become jobs first (so idle workers get them early), then
/// the files are visited here or, for a large directory, handed out in batches.
fn read_dir_job<S, V>(shared: &Shared<'_>, dir: DirJob, state: &mut S, visit: &V)
where
    V: Fn(&mut S, &WalkEntry),
{
    let Ok(entries) = std::fs::read_dir(&dir.path) else {
        return; // unreadable directory (permissions, raced deletion): nothing to visit
    };
    let ignores = with_gitignore_of(&dir.path, &dir.rel_base, dir.ignores.clone());
    let mut files = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name == ".git" {
            continue;
        }
        let Ok(file_type) = entry.file_type() else { continue };
        let path = entry.path();
        let is_dir = file_type.is_dir();
        let is_symlink = file_type.is_symlink();
        // A link is visited only when it leads to a file (dangling links and loops fail
        // `is_file`), unless every link is wanted: then it is not even resolved.
        let is_file = file_type.is_file() || (is_symlink && (shared.options.all_links || path.is_file()));
        if !is_dir && !is_file {
            continue;
        }
        let name = name.to_string_lossy();
        if is_dir && shared.options.prune.is_some_and(|prune| prune(&path, &name)) {
            continue;
        }
        let rel_base = join_rel(&dir.rel_base, &name);
        if is_ignored(ignores.as_ref(), &rel_base, is_dir) {
            continue;
        }
        let rel_start = join_rel(&dir.rel_start, &name);
        if is_dir {
            shared.send(Job::Dir(DirJob { path, rel_base, rel_start, ignores: ignores.clone() }));
        } else {
            let metadata = shared.options.metadata.then(|| entry.metadata().ok()).flatten();
            files.push(WalkEntry { path, rel: rel_start, is_symlink, metadata });
        }
    }
    if files.len() <= FILE_BATCH {
        for entry in &files {
            visit(state, entry);
        }
        return;
    }
    let mut files = files.into_iter().peekable();
    while files.peek().is_some() {
        shared.send(Job::Files(files.by_ref().take(FILE_BATCH).collect()));
    }
}

#[cfg(test)]
#[path = "walk_tests.rs"]
mod tests;
