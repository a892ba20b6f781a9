//! Unit tests of `rules.rs`: the Landlock ruleset's ancestors, ABIs and skipped entries.

use super::*;

fn paths(list: &[&str]) -> Vec<PathBuf> {
    list.iter().map(PathBuf::from).collect()
}

#[test]
fn ancestors_are_every_directory_on_the_way_to_a_hidden_path() {
    let hidden = paths(&["/home/u/.ssh", "/home/u/.config/gh", "/dev", "/tmp/h"]);
    assert_eq!(plan_ancestors(&hidden), paths(&["/", "/home", "/home/u", "/home/u/.config", "/tmp"]));
    // Nested hidden paths: nothing inside a hidden path is enumerated.
    assert_eq!(plan_ancestors(&paths(&["/a", "/a/b/c"])), paths(&["/"]));
    assert_eq!(plan_ancestors(&[]), Vec::<PathBuf>::new());
}

#[test]
fn each_abi_handles_what_it_knows() {
    assert_eq!(plan_handled(1, false), (0x1fff, 0, 0));
    assert_eq!(plan_handled(3, true), (0x7fff, 0, 0));
    assert_eq!(plan_handled(4, true), (0x7fff, 0, 0));
    assert_eq!(plan_handled(4, false), (0x7fff, 0b11, 0));
    assert_eq!(plan_handled(5, false), (0xffff, 0b11, 0));
    assert_eq!(plan_handled(6, true), (0xffff, 0, 0b11));
    assert_eq!(plan_handled(7, false), (0xffff, 0b11, 0b11));
}

#[test]
fn entries_leading_to_hidden_paths_are_skipped() {
    let hidden = paths(&["/home/u/.ssh", "/dev"]);
    for (entry, skipped) in [
        ("/home", true),
        ("/home/u", true),
        ("/home/u/.ssh", true),
        ("/dev", true),
        ("/home/u/.sshx", false),
        ("/home/v", false),
        ("/devices", false),
        ("/usr", false),
    ] {
        assert_eq!(skip_entry(Path::new(entry), &hidden), skipped, "{entry}");
    }
}
