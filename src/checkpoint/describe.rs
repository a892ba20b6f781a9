//! What checkpoints look like to a person: a point of the timeline on one line, what a plan
//! will do and what a restore did — the same words in the REPL's `/rewind` and `/undo` and in
//! `mewcode rewind`.
//!
//! Invariant: pure (values in, lines out); paths are shown relative to the project where inside
//! it. The lines are not neutralised here: file names come from the repository, so every front
//! end neutralises what it prints.

use super::{Plan, Point, Report};
use crate::fsx::display_path;
use crate::session::{render_time, to_local};
use std::path::{Path, PathBuf};

/// Files of a list shown by name before the rest is counted.
const NAMES_SHOWN: usize = 8;

/// One line of the timeline: `#3  14:02  fix the parser  (2 files: src/a.rs, b.rs)`; a rewind
/// starts with `undo_mark` (one column: the front end's symbol for it) where a turn has `#`.
pub(crate) fn render_point(point: &Point, root: &Path, undo_mark: &str) -> String {
    let time = render_time(to_local(point.ts));
    let files = match point.changed.len() {
        0 => "no file changed".to_string(),
        count => format!("{count} {}: {}", if count == 1 { "file" } else { "files" }, name_list(&point.changed, root)),
    };
    if point.rewind {
        format!("{undo_mark}   {time}  rewind to before turn {}  ({files}; pick to undo it)", point.turn)
    } else {
        format!("#{:<3}{time}  {}  ({files})", point.turn, one_line(&point.prompt))
    }
}

/// `a, b, c and 4 more`: the first names of a list, relative to `root` where inside it.
pub(crate) fn name_list(paths: &[String], root: &Path) -> String {
    let shown: Vec<String> = paths.iter().map(|path| display_path(root, Path::new(path))).collect();
    crate::text::first_names(&shown, NAMES_SHOWN)
}

pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The point `/undo` goes back from: the newest rewind, or the newest turn that changed files.
pub(crate) fn undo_target(points: &[Point]) -> Option<&Point> {
    points.iter().find(|point| point.rewind || !point.changed.is_empty())
}

/// The lines `show_plan` prints.
pub(crate) fn plan_lines(plan: &Plan, root: &Path) -> Vec<String> {
    let names = |paths: &[PathBuf]| {
        let shown: Vec<String> = paths.iter().map(|path| display_path(root, path)).collect();
        name_list(&shown, Path::new(""))
    };
    let mut lines = Vec::new();
    if !plan.restore.is_empty() {
        lines.push(format!("  put back ({}): {}", plan.restore.len(), names(&plan.restore)));
    }
    if !plan.remove.is_empty() {
        lines.push(format!("  remove, created since ({}): {}", plan.remove.len(), names(&plan.remove)));
    }
    if !plan.not_covered.is_empty() {
        lines.push(format!(
            "  cannot put back, too large to record ({}): {}",
            plan.not_covered.len(),
            names(&plan.not_covered)
        ));
    }
    if !plan.unreached.is_empty() {
        let roots: Vec<String> = plan.unreached.iter().map(|root| root.display().to_string()).collect();
        lines.push(format!(
            "  cannot put back, outside what this run covers ({}): {} (add with --add-dir to restore there)",
            roots.len(),
            roots.join(", ")
        ));
    }
    if lines.is_empty() {
        lines.push("  no file differs from then".to_string());
    }
    lines
}

/// What a restore did, for the person.
pub(crate) fn report_lines(report: &Report, root: &Path) -> Vec<String> {
    let count = |paths: &[PathBuf], verb: &str| match paths.len() {
        0 => None,
        1 => Some(format!("{verb} 1 file: {}", display_path(root, &paths[0]))),
        n => Some(format!("{verb} {n} files")),
    };
    let mut lines: Vec<String> = [
        count(&report.restored, "put back"),
        count(&report.removed, "removed"),
        count(&report.kept, "kept as changed"),
    ]
    .into_iter()
    .flatten()
    .collect();
    for (path, why) in &report.failed {
        lines.push(format!("failed: {}: {why}", display_path(root, path)));
    }
    if lines.is_empty() {
        lines.push("no file needed restoring".to_string());
    }
    lines
}

#[cfg(test)]
#[path = "describe_tests.rs"]
mod tests;
