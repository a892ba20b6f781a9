//! Golden files of the unit tests: an output compared byte for byte with `fixtures/golden/NAME`,
//! rewritten instead when `UPDATE_GOLDEN=1` is set (review the diff, then commit it). For outputs
//! whose every byte matters and that are long to spell in a test: encoded requests, rendering.

use std::path::Path;

/// Asserts that `actual` is the golden file `name`, or writes it under `UPDATE_GOLDEN=1`.
pub(crate) fn assert_golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/golden").join(name);
    if std::env::var("UPDATE_GOLDEN").is_ok_and(|value| value == "1") {
        let written =
            path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(&path, actual));
        if let Err(err) = written {
            panic!("golden file {}: cannot write it: {err}", path.display());
        }
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("golden file {}: {err} (UPDATE_GOLDEN=1 writes it)", path.display()));
    if expected == actual {
        return;
    }
    let (line, want, got) = expected
        .split('\n')
        .zip(actual.split('\n'))
        .enumerate()
        .find(|(_, (want, got))| want != got)
        .map_or((expected.lines().count().min(actual.lines().count()) + 1, "", ""), |(index, (want, got))| {
            (index + 1, want, got)
        });
    panic!(
        "{name} differs from {} at line {line}:\n  golden: {want:?}\n  actual: {got:?}\n\
         (if the change is intended, UPDATE_GOLDEN=1 cargo test rewrites the golden files; review the diff)",
        path.display()
    );
}
