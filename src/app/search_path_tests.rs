//! PATH as children get it: absolute entries only, in order, or the fallback.

use super::*;

fn check(path: Option<&str>, value: &str, dropped: &[&str]) {
    let dropped = dropped.iter().map(|entry| entry.to_string()).collect();
    let expected = SearchPath { value: value.to_string(), dropped, fell_back: value == FALLBACK };
    assert_eq!(plan_search_path(path), expected, "{path:?}");
}

#[test]
fn empty_and_relative_entries_are_left_out_in_order() {
    check(Some("/usr/local/bin:/usr/bin:/bin"), "/usr/local/bin:/usr/bin:/bin", &[]);
    check(Some(":/usr/bin"), "/usr/bin", &[""]);
    check(Some("/usr/bin:"), "/usr/bin", &[""]);
    check(Some("/usr/bin::/bin"), "/usr/bin:/bin", &[""]);
    check(Some(".:/usr/bin"), "/usr/bin", &["."]);
    check(
        Some("bin:/usr/bin:./node_modules/.bin:../tools:~/bin"),
        "/usr/bin",
        &["bin", "./node_modules/.bin", "../tools", "~/bin"],
    );
    // Absolute entries are kept as they are, even odd ones: they do not depend on the cwd.
    check(Some("/opt/x/../y:/usr/bin/"), "/opt/x/../y:/usr/bin/", &[]);
}

#[test]
fn nothing_left_or_no_path_at_all_gives_the_fallback_never_an_empty_path() {
    check(None, FALLBACK, &[]);
    check(Some(""), FALLBACK, &[""]);
    check(Some(".:bin"), FALLBACK, &[".", "bin"]);
    // The user's own PATH equal to the fallback is not a fallback.
    let same = plan_search_path(Some(&format!("bin:{FALLBACK}")));
    assert!(!same.fell_back && same.value == FALLBACK, "{same:?}");
    assert!(same.warning().unwrap().message.ends_with("they search only the absolute entries"));
}

#[test]
fn the_warning_names_what_was_left_out() {
    assert_eq!(plan_search_path(Some("/usr/bin")).warning(), None);
    assert_eq!(plan_search_path(None).warning(), None);
    let one = plan_search_path(Some("bin:/usr/bin")).warning().unwrap();
    assert_eq!(
        one.to_string(),
        "PATH: left out \"bin\" for commands, hooks and MCP servers: an empty or relative entry finds \
         programs in whatever directory a command runs in, such as the project's own; they search only the \
         absolute entries"
    );
    let all = plan_search_path(Some(":.")).warning().unwrap();
    assert_eq!(
        all.to_string(),
        format!(
            "PATH: left out \"\", \".\" for commands, hooks and MCP servers: an empty or relative entry finds \
             programs in whatever directory a command runs in, such as the project's own; no absolute entry \
             is left, so they get PATH={FALLBACK}"
        )
    );
}
