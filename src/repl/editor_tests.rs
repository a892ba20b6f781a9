//! Tests of the line editor's pure parts.

use super::*;

#[test]
fn continuations_lose_their_backslash_but_keep_the_newline() {
    assert_eq!(join_continuations("one\\\ntwo\\\nthree"), "one\ntwo\nthree");
    assert_eq!(join_continuations("a \\ b"), "a \\ b");
}

#[test]
fn long_pastes_fold_into_numbered_placeholders_and_expand_back() {
    assert_eq!(fold_paste("one\ntwo\nthree", 1), None);
    assert_eq!(fold_paste("1\n2\n3\n4\n", 2).as_deref(), Some("[Pasted text #2 +4 lines]"));
    let wide = "x".repeat(PASTE_FOLD_CHARS + 1);
    assert_eq!(fold_paste(&wide, 1), Some(format!("[Pasted text #1 {} chars]", PASTE_FOLD_CHARS + 1)));
    let pastes = vec![("[Pasted text #1 +4 lines]".to_string(), "a\nb\nc\nd".to_string())];
    assert_eq!(expand_pastes("see [Pasted text #1 +4 lines] ok", &pastes), "see a\nb\nc\nd ok");
    // A placeholder the person edited is theirs now: left as it is.
    assert_eq!(expand_pastes("see [Pasted text #1 +4 line] ok", &pastes), "see [Pasted text #1 +4 line] ok");
}
