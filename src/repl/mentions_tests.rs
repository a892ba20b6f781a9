//! Tests of `mentions.rs`.

use super::*;

#[test]
fn mentions_are_at_words_after_a_blank_and_lose_trailing_punctuation() {
    assert_eq!(mentioned("look at @src/main.rs, then @README.md."), vec!["src/main.rs", "README.md"]);
    assert_eq!(mentioned("@a and @a again"), vec!["a"]);
    assert_eq!(mentioned("mail me@example.com or ping @@x"), vec!["@x"]);
    assert_eq!(mentioned(r#"see @"my notes.txt" please"#), vec!["my notes.txt"]);
    assert_eq!(mentioned(r#"@"a b" @c and @"d""#), vec!["a b", "c", "d"]);
    assert_eq!(mentioned("(@paren) @ alone @\"unclosed"), Vec::<String>::new());
    assert_eq!(mentioned("line one\n@second/line"), vec!["second/line"]);
}

#[test]
fn completion_lists_a_directorys_entries_and_finds_names_anywhere() {
    let dir = crate::test_dir::TempDir::new("mention-complete");
    let root = dir.path();
    std::fs::create_dir_all(root.join("src/nested")).unwrap();
    std::fs::write(root.join("src/main.rs"), "").unwrap();
    std::fs::write(root.join("src/map.rs"), "").unwrap();
    std::fs::write(root.join("src/nested/manual.md"), "").unwrap();
    std::fs::write(root.join(".hidden"), "").unwrap();
    let (start, options) = complete(root, "explain @src/ma").unwrap();
    assert_eq!(start, "explain ".len());
    assert_eq!(options, vec!["@src/map.rs", "@src/main.rs"]);
    let (_, nested) = complete(root, "@src/n").unwrap();
    assert_eq!(nested, vec!["@src/nested/"]);
    let (_, anywhere) = complete(root, "@manu").unwrap();
    assert_eq!(anywhere, vec!["@src/nested/manual.md"]);
    std::fs::create_dir_all(root.join("docs/deep")).unwrap();
    std::fs::write(root.join("docs/manual-a.md"), "").unwrap();
    std::fs::write(root.join("docs/deep/manual-b.md"), "").unwrap();
    let (_, several) = complete(root, "@manual").unwrap();
    assert_eq!(several, vec!["@docs/manual-a.md", "@src/nested/manual.md", "@docs/deep/manual-b.md"]);
    let (_, top) = complete(root, "@").unwrap();
    assert_eq!(top, vec!["@src/", "@docs/"], "hidden entries need a dot typed");
    assert_eq!(complete(root, "no mention here"), None);
}

#[test]
fn a_directory_listing_is_sorted_and_bounded() {
    let dir = crate::test_dir::TempDir::new("mention-list");
    for n in 0..(LISTING_MAX + 5) {
        std::fs::write(dir.path().join(format!("f{n:04}")), "").unwrap();
    }
    std::fs::create_dir(dir.path().join("a-dir")).unwrap();
    let listing = list_directory(dir.path());
    assert!(listing.starts_with("a-dir/\nf0000\n"), "{listing}");
    assert!(listing.ends_with("(6 more entries)\n"), "{listing}");
    let exact = crate::test_dir::TempDir::new("mention-list-exact");
    for n in 0..LISTING_MAX {
        std::fs::write(exact.path().join(format!("f{n:04}")), "").unwrap();
    }
    let listing = list_directory(exact.path());
    assert_eq!(listing.lines().count(), LISTING_MAX, "no count line when nothing is left out");
}
