//! Tests of how points, plans and reports read.

use super::*;

fn point(turn: u32, rewind: bool, changed: &[&str]) -> Point {
    Point {
        turn,
        rewind,
        prompt: "fix the parser\nand more".to_string(),
        ts: 0,
        changed: changed.iter().map(|path| path.to_string()).collect(),
        history_len: (!rewind).then_some(4),
    }
}

#[test]
fn a_turn_reads_as_its_number_prompt_and_files_relative_to_the_project() {
    let line = render_point(&point(3, false, &["/p/src/a.rs", "/elsewhere/b"]), Path::new("/p"), "<");
    assert!(line.starts_with("#3  "), "{line}");
    assert!(line.contains("fix the parser and more"), "{line}");
    assert!(line.ends_with("(2 files: src/a.rs, /elsewhere/b)"), "{line}");
    let quiet = render_point(&point(1, false, &[]), Path::new("/p"), "<");
    assert!(quiet.ends_with("(no file changed)"), "{quiet}");
    let rewind = render_point(&point(2, true, &["/p/x"]), Path::new("/p"), "<");
    assert!(rewind.starts_with("<   "), "{rewind}");
    assert!(rewind.contains("rewind to before turn 2"), "{rewind}");
    assert!(rewind.contains("1 file: x; pick to undo it"), "{rewind}");
}

#[test]
fn long_lists_name_the_first_files_and_count_the_rest() {
    let paths: Vec<String> = (0..11).map(|index| format!("f{index}")).collect();
    assert_eq!(name_list(&paths, Path::new("/")), "f0, f1, f2, f3, f4, f5, f6, f7 and 3 more");
    assert_eq!(name_list(&paths[..8], Path::new("/")), "f0, f1, f2, f3, f4, f5, f6, f7");
}

#[test]
fn undo_goes_back_from_the_newest_rewind_or_turn_that_changed_something() {
    let points = vec![point(4, false, &[]), point(3, false, &["/p/a"]), point(2, true, &["/p/b"])];
    assert_eq!(undo_target(&points).map(|point| point.turn), Some(3));
    let points = vec![point(4, false, &[]), point(2, true, &[]), point(3, false, &["/p/a"])];
    assert_eq!(undo_target(&points).map(|point| (point.turn, point.rewind)), Some((2, true)));
    assert_eq!(undo_target(&[point(1, false, &[])]), None);
}

#[test]
fn a_plan_says_what_goes_back_what_goes_and_what_cannot() {
    let plan = Plan {
        turn: 1,
        rewind: false,
        restore: vec!["/p/a".into(), "/p/b".into()],
        remove: vec!["/p/new".into()],
        hand_changed: vec![],
        not_covered: vec!["/p/huge.bin".into()],
        unreached: vec!["/lib".into()],
    };
    assert_eq!(
        plan_lines(&plan, Path::new("/p")),
        vec![
            "  put back (2): a, b".to_string(),
            "  remove, created since (1): new".to_string(),
            "  cannot put back, too large to record (1): huge.bin".to_string(),
            "  cannot put back, outside what this run covers (1): /lib (add with --add-dir to restore there)"
                .to_string(),
        ]
    );
    let empty = Plan {
        turn: 1,
        rewind: false,
        restore: vec![],
        remove: vec![],
        hand_changed: vec![],
        not_covered: vec![],
        unreached: vec![],
    };
    assert_eq!(plan_lines(&empty, Path::new("/p")), vec!["  no file differs from then".to_string()]);
}

#[test]
fn a_report_counts_and_names_failures() {
    let report = Report {
        restored: vec!["/p/a".into()],
        removed: vec!["/p/b".into(), "/p/c".into()],
        kept: vec![],
        failed: vec![("/p/d".into(), "permission denied".into())],
    };
    assert_eq!(
        report_lines(&report, Path::new("/p")),
        vec![
            "put back 1 file: a".to_string(),
            "removed 2 files".to_string(),
            "failed: d: permission denied".to_string(),
        ]
    );
    assert_eq!(report_lines(&Report::default(), Path::new("/p")), vec!["no file needed restoring".to_string()]);
}
