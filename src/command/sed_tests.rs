//! Unit tests of reading sed scripts for what runs or writes.

use super::*;

#[test]
fn sed_scripts_that_run_or_write_are_spotted() {
    let cases = [
        ("s/a/b/", false),
        ("s/hello/world/g", false),
        ("1,5p", false),
        ("/foo/d", false),
        ("s|/usr|/opt|g;/x/!d", false),
        ("y/abc/xyz/", false),
        ("$a\\\nappended text with e and w", false),
        ("s/x/y/e", true),
        ("s/x/y/w /tmp/out", true),
        ("1e id", true),
        ("e", true),
        ("/x/w out", true),
        ("s/a/b/;W file", true),
        ("s/a\\/b/c/gw x", true),
        ("s/a/b", true),
        ("k", true),
        ("1~2{p;e rm -rf ~\n}", true),
    ];
    for (script, expected) in cases {
        assert_eq!(script_runs_or_writes(script), expected, "{script:?}");
    }
}
