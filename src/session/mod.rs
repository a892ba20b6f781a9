//! Sessions (SPEC §8): where conversations are logged, how they are named, listed, resumed and
//! cleaned up.
//!
//! Layout: `<root>/.mewcode/sessions/<id>/conversation.jsonl` (format in `record.rs`) and a
//! `tool-results/` directory created by whoever first needs it. Ids are `YYYYMMDD-HHMMSS-xxxx`
//! in local time (from `sys::local_utc_offset_s`; UTC when the zone is unknown) plus 4 hex
//! digits mixed from the clock's nanoseconds and the pid.
//!
//! Ownership: a session directory may come from anywhere (a cloned repository can ship one with
//! any id, header and file times), so each header carries this installation's mark
//! (`owner.rs`). `--continue` (`plan_latest`) only ever picks a session this installation
//! created whose id is not dated in the future; listings show the others last, flagged; an
//! explicit `--resume ID` of one still works, with `not_owned_note` shown to the user.
//!
//! Invariant: only directories whose names are ids are ever listed or removed; listing reads one
//! bounded header line per session, never a whole log. Nothing is written through a symbolic
//! link: `.mewcode`, `sessions`, a session's directory and its log are each refused when they are
//! one (a repository can ship any of them pointing anywhere; `fsx::create_dirs_beneath`), on
//! create and on resume alike. Decisions (`plan_cleanup`, `plan_latest`,
//! `parse_id`, `title_of`, `stale_note`) are pure and take "now" as a value.
//!
//! - `mod.rs` — ids, the sessions directory, listing, picking, creating, resuming, cleaning up
//! - `record.rs` — the log's on-disk record types (version 1) and their conversions to messages
//! - `writer.rs` — appending to a log, one fsynced JSON line per message
//! - `reader.rs` — loading a log back into a conversation, repairing what a crash left
//! - `owner.rs` — this installation's key and the mark it puts in each session's header
//! - tests: each `x.rs` has its `x_tests.rs`; `tests.rs` tests `mod.rs`

pub(crate) mod owner;
pub(crate) mod reader;
pub(crate) mod record;
pub(crate) mod writer;

pub(crate) use crate::clock::to_local;
use crate::clock::{civil_from_days, days_from_civil};
pub(crate) use owner::{Owner, load_owner};
pub(crate) use reader::load_log;
pub(crate) use record::Meta;
pub(crate) use writer::SessionWriter;

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Sessions older than this (by the time in their id) are removed at start-up.
const MAX_AGE_S: i64 = 30 * 86_400;
/// A resumed session idle for longer gets a note that files may have changed.
const STALE_AFTER_S: u64 = 6 * 3600;
/// Titles are the first user message cut to this many characters.
const TITLE_CHARS: usize = 50;
/// Listing reads at most this much of each log (the header line is far smaller).
const HEADER_LIMIT: u64 = 16 * 1024;
/// How far past "now" an id may be dated and still count as past: ids are in local time, and
/// moving to another time zone shifts "now" by at most 26 hours (UTC+14 to UTC-12).
const FUTURE_SLACK_S: i64 = 26 * 3600;

/// What can go wrong with sessions. Callers: a failed create/append becomes a notice and the
/// conversation continues; a failed resume is a usage error (exit 2) naming the session.
#[derive(Debug)]
pub enum SessionError {
    /// Reading or writing a session file or directory failed.
    Io { path: PathBuf, err: std::io::Error },
    /// `--resume ID` names no session of this project.
    NotFound { id: String },
    /// `--continue` in a project with no session this installation created; `not_owned` others
    /// (planted by a repository, or from an older build) were passed over.
    NoSessions { not_owned: usize },
    /// Removing expired sessions failed at `path` (`left` old directories could not be removed,
    /// 0 when the sessions directory itself could not be read): reported once as a warning;
    /// the run goes on and the next start tries again.
    Cleanup { path: PathBuf, err: std::io::Error, left: usize },
}

impl SessionError {
    /// An IO error with the path it happened on.
    pub fn io(path: &Path, err: std::io::Error) -> SessionError {
        SessionError::Io { path: path.to_path_buf(), err }
    }
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionError::Io { path, err } => write!(f, "session file {}: {err}", path.display()),
            SessionError::NotFound { id } => {
                write!(f, "no session {id} in this project (see `mewcode sessions`)")
            }
            SessionError::NoSessions { not_owned: 0 } => {
                write!(f, "no session to continue in this project (start one without -c)")
            }
            SessionError::NoSessions { not_owned } => write!(
                f,
                "no session to continue in this project (start one without -c); {not_owned} session(s) here were \
                 not created by this mewcode (from the repository or an older version) and are never continued \
                 automatically: see `mewcode sessions` and use --resume ID to open one anyway"
            ),
            SessionError::Cleanup { path, err, left: 0 | 1 } => {
                write!(f, "could not clean up old sessions: {}: {err} (tried again at the next start)", path.display())
            }
            SessionError::Cleanup { path, err, left } => write!(
                f,
                "could not clean up old sessions: {}: {err} ({left} old session directories left; tried again at \
                 the next start)",
                path.display()
            ),
        }
    }
}

impl std::error::Error for SessionError {}

/// One session as listing shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionInfo {
    pub id: String,
    /// Last write to the log, milliseconds since 1970 (sorting key: newest first; finer than
    /// seconds so two sessions of one minute still sort by activity).
    pub modified_ms: u64,
    pub title: String,
    pub model: String,
    /// Created by this installation (its header carries our mark for this id).
    pub owned: bool,
}

/// mewcode's directory in a project, relative to its root.
const MEWCODE_DIR: &str = ".mewcode";
/// The sessions directory relative to the project root: every directory on the way is
/// mewcode's own and is never written through when it is a symbolic link.
pub(crate) const SESSIONS_REL: &str = ".mewcode/sessions";
/// The log's name in a session's directory.
const LOG_NAME: &str = "conversation.jsonl";

/// `<root>/.mewcode/sessions`.
pub fn sessions_dir(root: &Path) -> PathBuf {
    root.join(SESSIONS_REL)
}

/// The project root of a sessions directory made by `sessions_dir`: what mewcode writes there is
/// created beneath it, checked component by component.
fn project_root(sessions_dir: &Path) -> std::io::Result<&Path> {
    match sessions_dir.ancestors().nth(2) {
        Some(root) if sessions_dir.ends_with(SESSIONS_REL) => {
            Ok(if root.as_os_str().is_empty() { Path::new(".") } else { root })
        }
        _ => {
            let message = format!("not a sessions directory (<project>/{SESSIONS_REL})");
            Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, message))
        }
    }
}

/// Session `id`'s log relative to the project root (what `SessionWriter` takes).
pub fn log_rel(id: &str) -> PathBuf {
    Path::new(SESSIONS_REL).join(id).join(LOG_NAME)
}

/// Makes sure the directory above `sessions_dir` (`<root>/.mewcode`) exists with mewcode's
/// `.gitignore`, so no transcript ever shows in `git status` (SPEC §1.2). Called before a log
/// is created or reopened: `.mewcode/` may predate it (a committed `settings.yaml`, an older
/// build), and a missing `.gitignore` is written then. A `.mewcode` that is a symbolic link (a
/// repository can ship one pointing anywhere) is refused: nothing is written through it.
fn keep_out_of_git(sessions_dir: &Path) -> Result<(), SessionError> {
    let root = project_root(sessions_dir).map_err(|err| SessionError::io(sessions_dir, err))?;
    crate::fsx::ensure_gitignored_dir(root, Path::new(MEWCODE_DIR))
        .map_err(|err| SessionError::io(&root.join(MEWCODE_DIR).join(".gitignore"), err))
}

/// The log of session `id`.
pub fn log_path(sessions_dir: &Path, id: &str) -> PathBuf {
    sessions_dir.join(id).join(LOG_NAME)
}

/// Seconds since 1970, now.
pub fn now_s() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_secs())
}

/// A fresh id for a session started now, in local time.
pub(crate) fn new_id() -> String {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let utc = i64::try_from(now.as_secs()).unwrap_or(0);
    let local = utc + crate::sys::local_utc_offset_s(utc);
    // Two runs started in the same second (scripts) differ by nanoseconds or by pid.
    let salt = (now.subsec_nanos() ^ std::process::id().wrapping_mul(0x9e37_79b9)) as u16;
    format_id(local, salt)
}

/// `YYYYMMDD-HHMMSS-xxxx` for a local time (seconds since 1970 in the local zone).
pub fn format_id(local_s: i64, salt: u16) -> String {
    let (year, month, day) = civil_from_days(local_s.div_euclid(86_400));
    let second_of_day = local_s.rem_euclid(86_400);
    let (hours, minutes, seconds) = (second_of_day / 3600, second_of_day / 60 % 60, second_of_day % 60);
    format!("{year:04}{month:02}{day:02}-{hours:02}{minutes:02}{seconds:02}-{salt:04x}")
}

/// The local time of an id, or `None` when the name is not an id.
fn parse_id(name: &str) -> Option<i64> {
    let bytes = name.as_bytes();
    let shape_ok = bytes.len() == 20
        && bytes[8] == b'-'
        && bytes[15] == b'-'
        && bytes[..8].iter().chain(&bytes[9..15]).all(u8::is_ascii_digit)
        && bytes[16..].iter().all(|byte| byte.is_ascii_hexdigit() && !byte.is_ascii_uppercase());
    if !shape_ok {
        return None;
    }
    let number = |range: std::ops::Range<usize>| name[range].parse::<i64>().ok();
    let (year, month, day) = (number(0..4)?, number(4..6)?, number(6..8)?);
    let (hours, minutes, seconds) = (number(9..11)?, number(11..13)?, number(13..15)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hours > 23 || minutes > 59 || seconds > 60 {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + hours * 3600 + minutes * 60 + seconds)
}

/// The session directories to remove: ids older than `MAX_AGE_S` at `now_local_s`, except
/// `keep` (the session this run resumes: it must not vanish while it is loaded). Names that are
/// not ids are never chosen.
fn plan_cleanup(names: &[String], now_local_s: i64, keep: Option<&str>) -> Vec<String> {
    names
        .iter()
        .filter(|name| Some(name.as_str()) != keep)
        .filter(|name| parse_id(name).is_some_and(|time| now_local_s - time > MAX_AGE_S))
        .cloned()
        .collect()
}

/// Removes old sessions (but `keep`) on a background thread named `session-cleanup`, then the
/// checkpoint objects only they referred to; the caller joins it and reports an error once (as
/// the seed printed its one cleanup failure line).
pub(crate) fn spawn_cleanup(
    sessions_dir: PathBuf,
    keep: Option<String>,
) -> Option<std::thread::JoinHandle<Result<usize, SessionError>>> {
    let utc = i64::try_from(now_s()).unwrap_or(0);
    let now_local = utc + crate::sys::local_utc_offset_s(utc);
    std::thread::Builder::new()
        .name("session-cleanup".into())
        .spawn(move || {
            let removed = clean_expired(&sessions_dir, now_local, keep.as_deref());
            // Only when sessions went (reading every log is not free); a failure waits for the
            // next cleanup that removes one: the objects are garbage, not damage.
            if matches!(removed, Ok(count) if count > 0)
                && let Ok(root) = project_root(&sessions_dir)
            {
                let _ = crate::checkpoint::collect_garbage(root);
            }
            removed
        })
        .ok()
}

/// Removes the session directories `plan_cleanup` picks and returns how many went. Only
/// directories: a file or symlink named like an id is left alone (the seed checked `IsDir`). No
/// sessions directory is nothing to do; a `.mewcode` or `sessions` that is a symbolic link (a
/// repository can ship one pointing at a directory elsewhere) is an error, and nothing there is
/// removed. Every failure is tried again at the next start; the first one, with the count, is the
/// error (one report, however many directories failed).
fn clean_expired(sessions_dir: &Path, now_local_s: i64, keep: Option<&str>) -> Result<usize, SessionError> {
    if let Err(err) = check_sessions_dir(sessions_dir) {
        return Err(SessionError::Cleanup { path: sessions_dir.to_path_buf(), err, left: 0 });
    }
    let entries = match std::fs::read_dir(sessions_dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(err) => return Err(SessionError::Cleanup { path: sessions_dir.to_path_buf(), err, left: 0 }),
    };
    let names: Vec<String> = entries
        .filter_map(|entry| {
            let entry = entry.ok()?;
            entry.file_type().ok()?.is_dir().then_some(())?;
            entry.file_name().into_string().ok()
        })
        .collect();
    let mut removed = 0;
    let mut first_failure = None;
    let mut left = 0;
    for name in plan_cleanup(&names, now_local_s, keep) {
        let path = sessions_dir.join(name);
        match std::fs::remove_dir_all(&path) {
            Ok(()) => removed += 1,
            Err(err) => {
                left += 1;
                first_failure.get_or_insert((path, err));
            }
        }
    }
    match first_failure {
        None => Ok(removed),
        Some((path, err)) => Err(SessionError::Cleanup { path, err, left }),
    }
}

/// This project's sessions: the ones `owner` created first, each group newest first (by last
/// write, then id). Directories that are not ids or hold no log are skipped; a log without a
/// readable header is listed with an empty title (and is not owned).
pub fn list_sessions(sessions_dir: &Path, owner: &Owner) -> Vec<SessionInfo> {
    if check_sessions_dir(sessions_dir).is_err() {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(sessions_dir) else { return Vec::new() };
    let mut sessions: Vec<SessionInfo> = entries
        .filter_map(|entry| {
            let id = entry.ok()?.file_name().into_string().ok()?;
            parse_id(&id)?;
            let file = std::fs::File::open(own_log_in(sessions_dir, &id)?).ok()?;
            let modified_ms = file
                .metadata()
                .ok()
                .and_then(|meta| meta.modified().ok())
                .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |elapsed| elapsed.as_millis() as u64);
            let meta = reader::read_meta(file, HEADER_LIMIT);
            let owned = owner.owns(&id, meta.as_ref().and_then(|meta| meta.owner.as_deref()));
            let (title, model) = meta.map(|meta| (meta.title, meta.model)).unwrap_or_default();
            Some(SessionInfo { id, modified_ms, title, model, owned })
        })
        .collect();
    sessions.sort_by(|a, b| {
        b.owned.cmp(&a.owned).then_with(|| b.modified_ms.cmp(&a.modified_ms)).then_with(|| b.id.cmp(&a.id))
    });
    sessions
}

/// The session `--continue` resumes: the most recently written one this installation created,
/// passing over ids dated more than `FUTURE_SLACK_S` after `now_local_s`; a write time after
/// `now_ms` counts as now, so a skewed clock cannot pin one session on top. File times and ids
/// are only compared among owned sessions: a planted session is never a candidate, whatever it
/// claims.
fn plan_latest(sessions: &[SessionInfo], now_ms: u64, now_local_s: i64) -> Option<&SessionInfo> {
    sessions
        .iter()
        .filter(|info| info.owned)
        .filter(|info| parse_id(&info.id).is_some_and(|time| time <= now_local_s + FUTURE_SLACK_S))
        .max_by(|a, b| a.modified_ms.min(now_ms).cmp(&b.modified_ms.min(now_ms)).then_with(|| a.id.cmp(&b.id)))
}

/// The session `--continue` resumes (`plan_latest` over the listing, now).
pub(crate) fn latest_session(sessions_dir: &Path, owner: &Owner) -> Result<SessionInfo, SessionError> {
    let sessions = list_sessions(sessions_dir, owner);
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let now_ms = u64::try_from(now.as_millis()).unwrap_or(u64::MAX);
    match plan_latest(&sessions, now_ms, to_local(now.as_secs())) {
        Some(info) => Ok(info.clone()),
        None => Err(SessionError::NoSessions { not_owned: sessions.iter().filter(|info| !info.owned).count() }),
    }
}

/// True when the log at `path` is session `id` created by `owner` (its header carries the mark).
fn is_owned(path: &Path, id: &str, owner: &Owner) -> bool {
    let meta = std::fs::File::open(path).ok().and_then(|file| reader::read_meta(file, HEADER_LIMIT));
    owner.owns(id, meta.as_ref().and_then(|meta| meta.owner.as_deref()))
}

/// What the user is told when resuming a session this installation did not create.
pub(crate) fn not_owned_note(id: &str) -> String {
    format!(
        "session {id} was not created by this mewcode (it may come from the repository or an older version); \
         its history goes to the model as written there"
    )
}

/// Checks that `id` is a session of this project.
pub(crate) fn find_session(sessions_dir: &Path, id: &str) -> Result<PathBuf, SessionError> {
    parse_id(id).and_then(|_| own_log(sessions_dir, id)).ok_or_else(|| SessionError::NotFound { id: id.to_string() })
}

/// The log of session `id` when it is this project's own: a regular file reached without a
/// symbolic link, neither on the way (`.mewcode`, `sessions`, the session's directory) nor at its
/// name. A repository can plant such a link to make another project's session (one this
/// installation created, so it carries our mark), or any file, pass for one of this project's;
/// so a session reached through one is not listed, not found, and never picked by `--continue`.
fn own_log(sessions_dir: &Path, id: &str) -> Option<PathBuf> {
    check_sessions_dir(sessions_dir).ok()?;
    own_log_in(sessions_dir, id)
}

/// `own_log` in a sessions directory already checked (a listing checks it once, not per entry):
/// the session's directory and its log, neither a link.
fn own_log_in(sessions_dir: &Path, id: &str) -> Option<PathBuf> {
    std::fs::symlink_metadata(sessions_dir.join(id)).ok()?.is_dir().then_some(())?;
    let path = log_path(sessions_dir, id);
    std::fs::symlink_metadata(&path).ok()?.file_type().is_file().then_some(path)
}

/// `.mewcode` and `sessions` are real directories of the project (where they exist), not links.
fn check_sessions_dir(sessions_dir: &Path) -> std::io::Result<()> {
    project_root(sessions_dir).and_then(|root| crate::fsx::check_dirs_beneath(root, Path::new(SESSIONS_REL)))
}

/// Starts the log of a new session whose first prompt is `first_prompt`, marked as `owner`'s.
pub(crate) fn create_session(
    sessions_dir: &Path,
    id: &str,
    first_prompt: &str,
    model: &str,
    owner: &Owner,
) -> Result<SessionWriter, SessionError> {
    let meta = Meta {
        version: record::VERSION,
        id: id.to_string(),
        created: now_s(),
        title: title_of(first_prompt),
        model: model.to_string(),
        owner: owner.mark(id),
    };
    keep_out_of_git(sessions_dir)?;
    let root = project_root(sessions_dir).map_err(|err| SessionError::io(sessions_dir, err))?;
    SessionWriter::create(root, &log_rel(id), &meta)
}

/// A session reopened for more turns.
#[derive(Debug)]
pub(crate) struct Resumed {
    /// Open for append: new messages land in the resumed log. An error when it cannot be
    /// reopened (a symbolic link on the way or at its name, a file we may not write): tell the
    /// user; the conversation goes on from `messages`, unsaved.
    pub writer: Result<SessionWriter, SessionError>,
    /// The repaired history to continue from.
    pub messages: Vec<crate::msg::Message>,
    /// Set when the session was idle long enough that files may have changed: tell the user and
    /// the model (`with_note`).
    pub stale_note: Option<String>,
    /// The compaction seam: true when the history is too big for `context_window` to go on
    /// without compacting first (see `context::should_compact_on_resume`).
    pub needs_compaction: bool,
    /// Set when this installation did not create the session (`not_owned_note`): tell the user.
    pub not_owned_note: Option<String>,
    /// Set when lines of the log did not parse and were skipped (`damaged_note`): tell the user,
    /// since what they held is missing from the history.
    pub damaged_note: Option<String>,
}

/// Loads session `id` and reopens its log for append, in that order (SPEC §8), before the caller
/// builds its conversation from `messages`. A session `owner` did not create still loads (the
/// user named it), with `not_owned_note` set. A log that cannot be reopened (never through a
/// symbolic link: append mode would follow one out of the project) is not an error of the
/// resume: it is `Resumed::writer`'s, and the history still loads.
pub(crate) fn resume_session(
    sessions_dir: &Path,
    id: &str,
    model: &str,
    context_window: u64,
    now_s: u64,
    owner: &Owner,
) -> Result<Resumed, SessionError> {
    let path = find_session(sessions_dir, id)?;
    let not_owned_note = (!is_owned(&path, id, owner)).then(|| not_owned_note(id));
    let loaded = load_log(&path)?;
    let writer = keep_out_of_git(sessions_dir).and_then(|()| {
        let root = project_root(sessions_dir).map_err(|err| SessionError::io(sessions_dir, err))?;
        SessionWriter::reopen(root, &log_rel(id), id, model)
    });
    let needs_compaction = crate::context::should_compact_on_resume(&loaded.messages, context_window);
    Ok(Resumed {
        writer,
        stale_note: stale_note(loaded.last_ts, now_s),
        needs_compaction,
        messages: loaded.messages,
        not_owned_note,
        damaged_note: damaged_note(loaded.skipped_lines),
    })
}

/// What the user is told when a resumed log had lines that did not parse (a torn last line after
/// a crash, or a file damaged by hand): how many, so a history that looks short is explained.
pub(crate) fn damaged_note(skipped_lines: usize) -> Option<String> {
    match skipped_lines {
        0 => None,
        1 => Some("resumed with 1 damaged line skipped (what it held is not in the history)".to_string()),
        count => Some(format!("resumed with {count} damaged lines skipped (what they held is not in the history)")),
    }
}

/// The user's prompt with a note for the model appended (the stale-files note of a resume).
pub(crate) fn with_note(prompt: &str, note: Option<&str>) -> String {
    match note {
        Some(note) => format!("{prompt}\n\n[mewcode: {note}]"),
        None => prompt.to_string(),
    }
}

/// The title of a session: its first user message on one line, cut to `TITLE_CHARS` characters.
pub fn title_of(first_prompt: &str) -> String {
    let one_line = first_prompt.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::text::truncate_chars(&one_line, TITLE_CHARS, "")
}

/// The note for a session resumed after more than `STALE_AFTER_S` of silence.
pub(crate) fn stale_note(last_ts: u64, now_s: u64) -> Option<String> {
    let idle_s = now_s.checked_sub(last_ts)?;
    (last_ts > 0 && idle_s > STALE_AFTER_S).then(|| {
        format!(
            "this session was idle for {} h: files may have changed since; re-read them before editing",
            idle_s / 3600
        )
    })
}

/// A date and time for listings: `YYYY-MM-DD HH:MM` of a time already in the wanted zone.
pub(crate) fn render_time(local_s: i64) -> String {
    let (year, month, day) = civil_from_days(local_s.div_euclid(86_400));
    let second_of_day = local_s.rem_euclid(86_400);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}", second_of_day / 3600, second_of_day / 60 % 60)
}

/// One listing line: id, local time of the last write, model, title (not neutralised). A session
/// this installation did not create says so before the fields its header chose.
pub(crate) fn render_line(info: &SessionInfo) -> String {
    let time = render_time(to_local(info.modified_ms / 1000));
    let flag = if info.owned { "" } else { "[not created here]  " };
    format!("{}  {time}  {flag}{:<20}  {}", info.id, info.model, info.title)
}

#[cfg(test)]
mod tests;
