//! `mewcode rewind`: a session's turns and the files each changed, and putting the files (and
//! the conversation) back as they were before a turn — the REPL's `/rewind` and `/undo` for
//! scripts, with the same checkpoints and the same semantics.
//!
//! Invariant: nothing changes unless a turn (or `undo`) is named; files changed by hand since
//! the point are never overwritten silently: with such files the run refuses unless
//! `--keep-changed` or `--overwrite-changed` says what to do. A restore is recorded like the
//! REPL's, so `mewcode rewind undo` (or `/undo`) takes it back.
#![expect(clippy::print_stdout, reason = "`mewcode rewind` prints its list and report on stdout")]

use super::sessions::{resume_id, session_owner};
use super::{Exit, Launch, say_warnings};
use crate::agent::Conversation;
use crate::checkpoint::describe::{plan_lines, render_point, report_lines, undo_target};
use crate::checkpoint::{Checkpoints, Coverage, Plan, Point, Report};
use crate::cli::{Resume, RewindRequest, RewindTarget};
use crate::fsx::display_path;
use crate::glyphs::Glyphs;
use crate::session;
use crate::text::neutralize;
use std::path::{Path, PathBuf};

/// `mewcode rewind [TURN|undo] ...` on the session `--resume ID` names (default: the latest one
/// created here).
pub(super) fn run_rewind(launch: &Launch, json: bool, request: &RewindRequest) -> Exit {
    let root = &launch.workspace.root;
    let (owner, warning) = session_owner(&launch.workspace);
    say_warnings(warning.as_slice());
    let dir = session::sessions_dir(root);
    let resume = if launch.options.resume == Resume::No { Resume::Latest } else { launch.options.resume.clone() };
    let id = match resume_id(&dir, &resume, &owner) {
        Ok(Some(id)) => id,
        Ok(None) => return Exit::Config("no session to rewind".to_string()),
        Err(exit) => return exit,
    };
    let extra = match launch.load_config() {
        Ok((config, warnings)) => {
            say_warnings(&warnings);
            // What the session's turns covered besides the project, as far as this run knows:
            // the configured writable paths and the writable added directories.
            let added = config.add_dirs.into_iter().filter(|dir| dir.writable).map(|dir| dir.path);
            config.sandbox.writable.into_iter().chain(added).collect()
        }
        Err(err) => return Exit::Config(err.to_string()),
    };
    let checkpoints = Checkpoints::open(Coverage { project: root.clone(), extra }, &id);
    let points = checkpoints.points();
    let Some(target) = request.target else {
        print_points(&points, root, &id, json, launch.env.glyphs());
        return Exit::Ok;
    };
    let point = match find_point(&points, target) {
        Ok(point) => point,
        Err(message) => return Exit::Config(message),
    };
    let plan = match checkpoints.plan(point.turn, point.rewind) {
        Ok(plan) => plan,
        Err(message) => return Exit::Runtime(message),
    };
    let keep = match (request.code, plan.hand_changed.is_empty(), request.keep_changed) {
        (true, false, None) => return Exit::Config(hand_changed_refusal(&plan, root)),
        (true, false, Some(true)) => plan.hand_changed.clone(),
        _ => Vec::new(),
    };
    let report = if request.code {
        match checkpoints.apply(&plan, &keep) {
            Ok(report) => Some(report),
            Err(message) => return Exit::Runtime(format!("restore failed: {message}")),
        }
    } else {
        None
    };
    let kept_messages = if request.conversation {
        match rewind_log(&dir, &id, point, &owner) {
            Ok(kept) => Some(kept),
            Err(message) => return Exit::Runtime(message),
        }
    } else {
        None
    };
    print_outcome(&Outcome { plan: &plan, report: report.as_ref(), kept_messages, root }, json);
    if report.is_some_and(|report| !report.failed.is_empty()) { Exit::Failed } else { Exit::Ok }
}

/// The point a target names: turn N itself, or what `undo` goes back from.
fn find_point(points: &[Point], target: RewindTarget) -> Result<&Point, String> {
    match target {
        RewindTarget::Undo => {
            undo_target(points).ok_or_else(|| "nothing to undo: no turn of this session changed a file".to_string())
        }
        RewindTarget::Turn(turn) => points.iter().find(|point| point.turn == turn && !point.rewind).ok_or_else(|| {
            let last = points.iter().filter(|point| !point.rewind).map(|point| point.turn).max().unwrap_or(0);
            format!("no turn {turn} in this session (its turns are 1 to {last}; mewcode rewind lists them)")
        }),
    }
}

/// The refusal when files changed by hand since the point and nobody said what to do.
fn hand_changed_refusal(plan: &Plan, root: &Path) -> String {
    let names: Vec<String> = plan.hand_changed.iter().map(|path| display_path(root, path)).collect();
    format!(
        "files changed outside mewcode since then: {}; add --keep-changed to leave them as they are, or \
         --overwrite-changed to put them back too",
        neutralize(&names.join(", "))
    )
}

/// Cuts the session's conversation back to before the point's prompt (its log gets the kept
/// messages after a compact marker, so a later `--continue` goes on from there). Returns how
/// many messages were kept.
fn rewind_log(dir: &Path, id: &str, point: &Point, owner: &session::Owner) -> Result<usize, String> {
    let Some(recorded) = point.history_len else {
        return Err("this point has no conversation to go back to; use --code".to_string());
    };
    let model = session::list_sessions(dir, owner).into_iter().find(|info| info.id == id).map(|info| info.model);
    // No window: a rewind never compacts; the next run decides about that.
    let reopened = Conversation::reopen(dir, id, &model.unwrap_or_default(), u64::MAX, owner)
        .map_err(|err| format!("cannot open the session's conversation: {err}"))?;
    if let Some(err) = reopened.unsaved {
        return Err(format!("cannot write the session's conversation: {err}"));
    }
    let mut conversation = reopened.conversation;
    let Some(start) = conversation.turn_start(recorded, &point.prompt) else {
        return Err(format!(
            "the conversation before turn {} was summarised by a compaction; only --code can go back",
            point.turn
        ));
    };
    match conversation.rewind_to(start) {
        Some(notice) => Err(notice),
        None => Ok(start),
    }
}

/// The timeline, newest first: one line per point, or a JSON array.
fn print_points(points: &[Point], root: &Path, id: &str, json: bool, glyphs: &Glyphs) {
    if json {
        let list: Vec<serde_json::Value> = points
            .iter()
            .map(|point| {
                serde_json::json!({
                    "turn": point.turn,
                    "rewind": point.rewind,
                    "prompt": point.prompt,
                    "time": session::render_time(session::to_local(point.ts)),
                    "changed": point.changed.iter().map(|path| display_path(root, Path::new(path))).collect::<Vec<_>>(),
                })
            })
            .collect();
        println!("{}", serde_json::json!({"session": id, "points": list}));
        return;
    }
    if points.is_empty() {
        println!("session {id}: no turn recorded");
        return;
    }
    println!("session {id} (newest first):");
    for point in points {
        println!("{}", neutralize(&render_point(point, root, glyphs.undo)));
    }
}

/// What a restore did, for `print_outcome`.
struct Outcome<'a> {
    plan: &'a Plan,
    report: Option<&'a Report>,
    kept_messages: Option<usize>,
    root: &'a Path,
}

fn print_outcome(outcome: &Outcome<'_>, json: bool) {
    let shown = |paths: &[PathBuf]| paths.iter().map(|path| display_path(outcome.root, path)).collect::<Vec<_>>();
    if json {
        let files = outcome.report.map(|report| {
            serde_json::json!({
                "restored": shown(&report.restored),
                "removed": shown(&report.removed),
                "kept": shown(&report.kept),
                "failed": report.failed.iter().map(|(path, why)| serde_json::json!({"path": display_path(outcome.root, path), "error": why})).collect::<Vec<_>>(),
                "not_covered": shown(&outcome.plan.not_covered),
                "not_reached": shown(&outcome.plan.unreached),
            })
        });
        println!("{}", serde_json::json!({"files": files, "conversation_messages": outcome.kept_messages}));
        return;
    }
    if let Some(report) = outcome.report {
        for line in plan_lines(outcome.plan, outcome.root).iter().filter(|line| line.starts_with("  cannot")) {
            println!("{}", neutralize(line.trim_start()));
        }
        for line in report_lines(report, outcome.root) {
            println!("{}", neutralize(&line));
        }
    }
    if let Some(kept) = outcome.kept_messages {
        println!("conversation rewound: {kept} messages kept");
    }
}

#[cfg(test)]
#[path = "rewind_tests.rs"]
mod tests;
