//! Sessions at the wiring level: which session a run logs to (new, `--continue`, `--resume ID`),
//! and the `mewcode sessions` subcommand.
//!
//! Invariant: a resumed log is reopened for append and given to the conversation before it is
//! handed to the agent, which logs the prompt and everything after it, so every message of the
//! run reaches the log. A log that cannot be created is a notice, never a failed run; a session that cannot be found or
//! read is an error before anything runs.
#![expect(clippy::print_stdout, reason = "`mewcode sessions` prints the list on stdout")]

use super::{Exit, Launch, Workspace, say_warnings};
use crate::agent::Conversation;
use crate::cli::{Resume, UsageError};
use crate::config::ProviderConfig;
use crate::session::{self, SessionError};
use crate::text::neutralize;
use crate::warning::Warning;
use std::path::Path;

/// The conversation a -p run continues or starts, logged to its session.
pub(super) struct PrintSession {
    /// Its history, session id and log (none when the log could not be created); a resumed
    /// history that nearly fills the window is compacted before the first request (SPEC §8).
    pub conversation: Conversation,
    /// The prompt to submit: the user's, with a resumed session's stale-files note.
    pub prompt: String,
    pub notices: Vec<String>,
}

/// Opens the session of a -p run (the agent logs its prompt).
pub(super) fn open_print_session(
    launch: &Launch,
    prompt: &str,
    provider: &ProviderConfig,
    owner: &session::Owner,
) -> Result<PrintSession, Exit> {
    let dir = session::sessions_dir(&launch.workspace.root);
    let mut notices = Vec::new();
    let (conversation, note) = match resume_id(&dir, &launch.options.resume, owner)? {
        Some(id) => {
            let reopened = Conversation::reopen(&dir, &id, &provider.model, provider.context_window, owner)
                .map_err(session_exit)?;
            notices.extend(reopened.notes);
            notices.extend(reopened.stale_note.clone());
            notices.extend(reopened.unsaved.map(|err| format!("{err}; this run is not saved as a session")));
            (reopened.conversation, reopened.stale_note)
        }
        None => {
            let mut conversation = Conversation::new(session::new_id());
            if let Err(err) = conversation.create_log(&dir, prompt, &provider.model, owner) {
                notices.push(format!("{err}; this run is not saved as a session"));
            }
            (conversation, None)
        }
    };
    let prompt = session::with_note(prompt, note.as_deref());
    Ok(PrintSession { conversation, prompt, notices })
}

/// The session id a `--continue` / `--resume ID` names, checked to exist; `None` for a new one.
/// `--continue` only ever names a session `owner` created. The picker (`--resume` alone) needs
/// the REPL.
pub(super) fn resume_id(dir: &Path, resume: &Resume, owner: &session::Owner) -> Result<Option<String>, Exit> {
    match resume {
        Resume::No => Ok(None),
        Resume::Latest => session::latest_session(dir, owner).map(|info| Some(info.id)).map_err(session_exit),
        Resume::Id(id) => session::find_session(dir, id).map(|_| Some(id.clone())).map_err(session_exit),
        Resume::Picker => Err(Exit::Usage(UsageError(
            "--resume without an ID opens the picker, which needs the REPL; give the ID (see `mewcode sessions`)"
                .to_string(),
        ))),
    }
}

/// One boundary mapping: a missing session is the user's mistake (exit 2), IO is a failure (1).
/// The message already names its fix (`mewcode sessions`), so it is not a flag usage error with a
/// second "see mewcode --help" hint.
pub(super) fn session_exit(err: SessionError) -> Exit {
    match err {
        SessionError::NotFound { .. } | SessionError::NoSessions { .. } => Exit::Config(err.to_string()),
        SessionError::Io { .. } | SessionError::Cleanup { .. } => Exit::Runtime(err.to_string()),
    }
}

/// This installation's session key (created on first use). Without one, sessions are still
/// logged, but none counts as created here, so `--continue` finds none: say so.
pub(super) fn session_owner(workspace: &Workspace) -> (session::Owner, Option<Warning>) {
    match session::load_owner(&workspace.home) {
        Ok(owner) => (owner, None),
        Err(err) => {
            let message = format!("{err}; no session counts as created here, so --continue finds none");
            (session::Owner::none(), Some(Warning::new("sessions", message)))
        }
    }
}

/// `mewcode sessions [--json]`: this project's sessions, the ones created here first, newest
/// first.
pub(super) fn run_sessions(launch: &Launch, json: bool) -> Exit {
    let (owner, warning) = session_owner(&launch.workspace);
    say_warnings(warning.as_slice());
    let sessions = session::list_sessions(&session::sessions_dir(&launch.workspace.root), &owner);
    if json {
        let list: Vec<serde_json::Value> = sessions
            .iter()
            .map(|info| {
                serde_json::json!({
                    "id": info.id,
                    "time": session::render_time(session::to_local(info.modified_ms / 1000)),
                    "title": info.title,
                    "model": info.model,
                    "created_here": info.owned,
                })
            })
            .collect();
        println!("{}", serde_json::Value::Array(list));
    } else if sessions.is_empty() {
        println!("no sessions in this project yet");
    } else {
        for info in &sessions {
            println!("{}", neutralize(&session::render_line(info)));
        }
    }
    Exit::Ok
}
