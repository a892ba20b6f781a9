//! Unit tests of `images.rs`: what a pasted path looks like.

use super::*;

#[test]
fn a_pasted_path_is_unquoted_and_unescaped_and_a_sentence_is_none() {
    assert_eq!(pasted_path("'/tmp/with space.png'").as_deref(), Some("/tmp/with space.png"));
    assert_eq!(pasted_path("\"/tmp/with space.png\"  ").as_deref(), Some("/tmp/with space.png"));
    assert_eq!(pasted_path("/tmp/with\\ space.png").as_deref(), Some("/tmp/with space.png"));
    assert_eq!(pasted_path("shot.png").as_deref(), Some("shot.png"));
    assert_eq!(pasted_path("what is in shot.png"), None);
    assert_eq!(pasted_path("''"), None);
    assert_eq!(pasted_path("'a' and 'b'"), None);
    assert_eq!(pasted_path("trailing\\"), None);
}
