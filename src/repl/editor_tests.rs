//! Tests of the line editor's pure parts.

use super::*;

#[test]
fn continuations_lose_their_backslash_but_keep_the_newline() {
    assert_eq!(join_continuations("one\\\ntwo\\\nthree"), "one\ntwo\nthree");
    assert_eq!(join_continuations("a \\ b"), "a \\ b");
}
