//! Tests of the scan: what is covered, what a link and a large file become, what the stat cache
//! spares, and how extra roots are chosen and capped.

use super::*;
use crate::test_dir::TempDir;
use std::time::{Duration, SystemTime};

fn roots(project: &TempDir) -> Roots {
    Roots::new(&Coverage { project: project.path().to_path_buf(), extra: Vec::new() })
}

fn scan_of(roots: &Roots, cache: &StatCache) -> Scanned {
    scan(roots, &BTreeSet::new(), &Store::new(&roots.project), cache, &CancelToken::new()).unwrap()
}

fn keys(scanned: &Scanned) -> Vec<&str> {
    scanned.tree.entries.keys().map(String::as_str).collect()
}

/// Dates the file an hour back, as a checkout's files are: old enough for the stat cache.
fn age(path: &Path) {
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options().write(true).open(path).unwrap().set_modified(hour_ago).unwrap();
}

#[test]
fn heavy_directories_are_pruned_by_name_and_target_only_beside_a_cargo_toml() {
    for name in [
        ".mewcode",
        ".git",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".tox",
        ".mypy_cache",
        ".pytest_cache",
        ".gradle",
        ".next",
    ] {
        assert!(is_pruned(name, || false), "{name}");
    }
    for name in ["src", "targets", "Node_modules", "vendor", "build"] {
        assert!(!is_pruned(name, || true), "{name}");
    }
    assert!(is_pruned("target", || true));
    assert!(!is_pruned("target", || false));
}

#[test]
fn extra_roots_inside_the_project_or_another_root_are_dropped() {
    let project = Path::new("/p/project");
    let extra: Vec<PathBuf> =
        ["/w/b", "/p/project/sub", "/w", "/v/x", "/w/a", "/v/xy"].iter().map(PathBuf::from).collect();
    assert_eq!(plan_extra_roots(project, &extra), [PathBuf::from("/v/x"), PathBuf::from("/v/xy"), PathBuf::from("/w")]);
    assert_eq!(
        plan_extra_roots(project, &[PathBuf::from("/p")]),
        [PathBuf::from("/p")],
        "a root holding the project stays"
    );
}

#[test]
fn keys_are_project_relative_or_absolute_under_an_extra_root() {
    let roots = Roots { project: PathBuf::from("/p"), extra: vec![PathBuf::from("/w")], extra_cap: 3 };
    assert_eq!(roots.path_of("src/a.rs"), Path::new("/p/src/a.rs"));
    assert_eq!(roots.path_of("/w/x"), Path::new("/w/x"));
    assert_eq!(
        roots.locate(Path::new("/p/src/a.rs")),
        Some((Path::new("/p"), PathBuf::from("src/a.rs"), "src/a.rs".to_string()))
    );
    assert_eq!(
        roots.locate(Path::new("src/a.rs")),
        Some((Path::new("/p"), PathBuf::from("src/a.rs"), "src/a.rs".to_string()))
    );
    assert_eq!(roots.locate(Path::new("/w/d/x")), Some((Path::new("/w"), PathBuf::from("d/x"), "/w/d/x".to_string())));
    for outside in ["/p", "/w", "/wx/a", "/elsewhere"] {
        assert_eq!(roots.locate(Path::new(outside)), None, "{outside}");
    }
}

#[test]
fn a_scan_covers_files_and_links_but_not_what_is_ignored_pruned_or_too_large() {
    let project = TempDir::new("ck-scan");
    project.write(".gitignore", "*.log\nignored/\n");
    project.write("src/a.rs", "fn a() {}\n");
    project.write("debug.log", "log");
    project.write("ignored/x", "x");
    project.write("node_modules/m/index.js", "js");
    project.write("rust/Cargo.toml", "[package]");
    project.write("rust/target/debug/bin", "bin");
    project.write("target/kept.txt", "not a cargo target");
    project.write(".mewcode/sessions/s/log", "log");
    project.write(".git/HEAD", "ref");
    std::os::unix::fs::symlink("src", project.join("dir-link")).unwrap();
    std::os::unix::fs::symlink("missing", project.join("dangling")).unwrap();
    let big = project.join("big.bin");
    std::fs::File::create(&big).unwrap().set_len(MAX_FILE_BYTES + 1).unwrap();
    let exact = project.join("exact.bin");
    std::fs::File::create(&exact).unwrap().set_len(MAX_FILE_BYTES).unwrap();
    let roots = roots(&project);
    let scanned = scan_of(&roots, &StatCache::default());
    assert_eq!(
        keys(&scanned),
        [
            ".gitignore",
            "big.bin",
            "dangling",
            "dir-link",
            "exact.bin",
            "rust/Cargo.toml",
            "src/a.rs",
            "target/kept.txt"
        ]
    );
    let entries = &scanned.tree.entries;
    assert_eq!(entries["dir-link"], Entry::Link { target: "src".into() });
    assert_eq!(entries["dangling"], Entry::Link { target: "missing".into() });
    let big_stat = Stat::of(&std::fs::metadata(&big).unwrap());
    assert_eq!(entries["big.bin"], Entry::Unstored { size: MAX_FILE_BYTES + 1, mtime_ns: big_stat.mtime_ns });
    assert!(matches!(entries["exact.bin"], Entry::File { size: MAX_FILE_BYTES, .. }), "the cap itself is stored");
    let Entry::File { hash, mode, size } = entries["src/a.rs"].clone() else { panic!("{:?}", entries["src/a.rs"]) };
    assert_eq!((hash, mode, size), (Digest::of(b"fn a() {}\n"), 0o644, 10));
    assert_eq!(Store::new(project.path()).get(hash).unwrap(), b"fn a() {}\n");
    assert_eq!((scanned.cached.len(), scanned.notes.clone(), scanned.tree.extra.clone()), (5, Vec::new(), Vec::new()));
}

#[test]
fn a_file_the_cache_vouches_for_is_not_read_again_unless_it_changed_or_is_racy() {
    let project = TempDir::new("ck-scan-cache");
    let old = project.write("old.txt", "old");
    age(&old);
    project.write("fresh.txt", "fresh");
    let roots = roots(&project);
    let mut cache = StatCache::default();
    let first = scan_of(&roots, &cache);
    assert_eq!(first.cached.len(), 2);
    for (key, cached) in first.cached.clone() {
        cache.insert(key, cached);
    }
    let second = scan_of(&roots, &cache);
    let hashed: Vec<&str> = second.cached.iter().map(|(key, _)| key.as_str()).collect();
    assert_eq!(hashed, ["fresh.txt"], "the fresh file is within the racy window: read again");
    assert_eq!(second.tree, first.tree);
    std::fs::write(&old, "new").unwrap();
    age(&old);
    let third = scan_of(&roots, &cache);
    assert_eq!(third.tree.entries["old.txt"], Entry::File { hash: Digest::of(b"new"), mode: 0o644, size: 3 });
}

#[test]
fn an_extra_root_is_covered_by_absolute_keys_without_the_project_inside_it_and_skipped_over_its_cap() {
    let base = TempDir::new("ck-scan-extra");
    let project = base.mkdir("project");
    base.write("project/p.txt", "p");
    base.write("w/a.txt", "a");
    base.write("w/node_modules/m.js", "m");
    base.write("big/1", "1");
    base.write("big/2", "2");
    base.write("big/3", "3");
    let coverage =
        Coverage { project: project.clone(), extra: vec![base.path().to_path_buf(), base.join("w"), base.join("big")] };
    let mut roots = Roots::new(&coverage);
    assert_eq!(roots.extra, [base.path().to_path_buf()], "the others lie inside it");
    roots.extra = vec![base.join("big"), base.join("w")];
    roots.extra_cap = 2;
    let scanned = scan_of(&roots, &StatCache::default());
    let w = base.join("w/a.txt").to_string_lossy().into_owned();
    assert_eq!(keys(&scanned), [w.as_str(), "p.txt"]);
    let big = base.join("big").to_string_lossy().into_owned();
    assert_eq!(
        (scanned.skipped.clone(), scanned.tree.extra.clone()),
        (vec![big.clone()], vec![base.join("w").to_string_lossy().into_owned()])
    );
    assert_eq!(scanned.notes, [format!("{big} holds more than 2 files: checkpoints do not cover it in this session")]);
    roots.extra_cap = 3;
    let at_cap = scan_of(&roots, &StatCache::default());
    assert_eq!((at_cap.skipped.len(), at_cap.tree.extra.len()), (0, 2), "a root of exactly the cap is covered");
    roots.extra_cap = 2;
    let skipped = BTreeSet::from([big]);
    let again = scan(&roots, &skipped, &Store::new(&project), &StatCache::default(), &CancelToken::new()).unwrap();
    assert_eq!(
        (again.skipped.len(), again.notes.len(), again.tree.extra.len()),
        (0, 0, 1),
        "a skipped root is not walked again"
    );
    roots.extra = vec![base.path().to_path_buf()];
    roots.extra_cap = 100;
    let around = scan_of(&roots, &StatCache::default());
    assert!(around.tree.entries.keys().all(|key| !key.contains("/project/")), "{:?}", keys(&around));
    assert_eq!(stat_walk(&roots), keys(&around).len());
}

#[test]
fn names_that_are_not_utf8_are_left_out_with_a_note() {
    use std::os::unix::ffi::OsStrExt;
    let project = TempDir::new("ck-scan-utf8");
    project.write("ok.txt", "ok");
    std::fs::write(project.join(std::ffi::OsStr::from_bytes(b"bad-\xff.txt")), "bad").unwrap();
    let scanned = scan_of(&roots(&project), &StatCache::default());
    assert_eq!(keys(&scanned), ["ok.txt"]);
    assert_eq!(scanned.notes.len(), 1);
    assert!(scanned.notes[0].starts_with("1 files under"), "{:?}", scanned.notes);
}

#[test]
fn a_file_read_after_it_was_listed_is_recorded_as_read() {
    let project = TempDir::new("ck-scan-read");
    let path = project.write("f.txt", "first");
    let listed = std::fs::symlink_metadata(&path).unwrap();
    std::fs::write(&path, "second, longer").unwrap();
    let store = Store::new(project.path());
    let (entry, cached) = read_entry(&path, Some(&listed), "f.txt", &store, &StatCache::default()).unwrap().unwrap();
    assert_eq!(entry, Entry::File { hash: Digest::of(b"second, longer"), mode: 0o644, size: 14 });
    assert_eq!(cached.unwrap().stat.size, 14, "the cache keeps the stat of what was read");
    std::fs::remove_file(&path).unwrap();
    assert_eq!(read_entry(&path, None, "f.txt", &store, &StatCache::default()), Ok(None), "gone since it was listed");
}

#[test]
fn roots_reached_through_links_are_resolved_so_restores_can_refuse_every_link() {
    let base = TempDir::new("ck-scan-canonical");
    base.mkdir("real/project");
    base.mkdir("real/extra");
    std::os::unix::fs::symlink(base.join("real"), base.join("via")).unwrap();
    let coverage = Coverage {
        project: base.join("via/project"),
        extra: vec![base.join("via/extra"), base.join("via/missing/../later")],
    };
    let roots = Roots::new(&coverage);
    assert_eq!(roots.project, base.join("real/project"));
    assert_eq!(roots.extra, [base.join("real/extra"), base.join("via/later")]);
}

#[test]
fn a_file_that_grew_past_the_cap_after_it_was_listed_is_not_stored_cut() {
    let project = TempDir::new("ck-scan-grew");
    let path = project.join("grew.bin");
    std::fs::File::create(&path).unwrap().set_len(MAX_FILE_BYTES + 1).unwrap();
    let (bytes, stat) = read_capped(&path).unwrap();
    assert_eq!((bytes.map(|bytes| bytes.len()), stat.size), (None, MAX_FILE_BYTES + 1));
    std::fs::File::options().write(true).open(&path).unwrap().set_len(3).unwrap();
    assert_eq!(read_capped(&path).unwrap().0, Some(vec![0, 0, 0]));
}
