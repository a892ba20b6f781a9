//! Sandbox tests on a real temp tree with real symlinks.

use super::*;
use crate::test_dir::TempDir;
use crate::test_rng::XorShift;
use std::os::unix::fs::symlink;

/// base/{proj, proj-evil, outside, home} with links of every kind inside proj.
fn build(base: &Path) {
    let proj = base.join("proj");
    for dir in ["proj/src", "proj/sub/dir", "proj/.git", "proj-evil", "outside/deep", "home/.ssh"] {
        std::fs::create_dir_all(base.join(dir)).unwrap();
    }
    for file in ["proj/src/main.rs", "outside/secret.txt", "proj-evil/x", "home/.ssh/id_rsa"] {
        std::fs::write(base.join(file), "x").unwrap();
    }
    symlink(base.join("outside"), proj.join("link_out")).unwrap();
    symlink(proj.join("src"), proj.join("link_in")).unwrap();
    symlink("src", proj.join("rel_in")).unwrap();
    symlink("../outside", proj.join("rel_out")).unwrap();
    symlink(base.join("outside/secret.txt"), proj.join("file_out")).unwrap();
    symlink(proj.join("src/main.rs"), proj.join("file_in")).unwrap();
    symlink(base.join("outside/new.txt"), proj.join("dangling_out")).unwrap();
    symlink(proj.join("new_in.txt"), proj.join("dangling_in")).unwrap();
    symlink("loop_b", proj.join("loop_a")).unwrap();
    symlink("loop_a", proj.join("loop_b")).unwrap();
    symlink("..", proj.join("up")).unwrap();
    symlink(base.join("outside/deep"), proj.join("sub/deep_out")).unwrap();
    symlink(base.join("proj-evil"), proj.join("evil")).unwrap();
    symlink("/", proj.join("slash")).unwrap();
    symlink(&proj, base.join("rootlink")).unwrap();
}

#[derive(Debug)]
enum Want {
    /// Allowed, resolving to this path relative to base.
    In(&'static str),
    Outside,
    Denied(SandboxDenial),
}

#[test]
fn paths_resolve_like_the_kernel_and_stay_inside() {
    let tree = TempDir::new("sandbox");
    let base = tree.path().to_path_buf();
    build(&base);
    let root = base.join("proj");
    let home = base.join("home");
    let abs = |rel: &str| base.join(rel).display().to_string();
    let cases: Vec<(String, Want)> = vec![
        ("src/main.rs".into(), Want::In("proj/src/main.rs")),
        ("./src/main.rs".into(), Want::In("proj/src/main.rs")),
        ("src//main.rs".into(), Want::In("proj/src/main.rs")),
        ("src/./main.rs".into(), Want::In("proj/src/main.rs")),
        ("src/".into(), Want::In("proj/src")),
        ("src///".into(), Want::In("proj/src")),
        (".".into(), Want::In("proj")),
        ("./".into(), Want::In("proj")),
        ("sub/dir/../../src".into(), Want::In("proj/src")),
        ("new_file.txt".into(), Want::In("proj/new_file.txt")),
        ("a/b/c/new.rs".into(), Want::In("proj/a/b/c/new.rs")),
        ("a/b/../c".into(), Want::In("proj/a/c")),
        ("nope/../src/main.rs".into(), Want::In("proj/src/main.rs")),
        (".git/config".into(), Want::In("proj/.git/config")),
        ("..".into(), Want::Outside),
        ("../outside/secret.txt".into(), Want::Outside),
        ("src/../../outside".into(), Want::Outside),
        ("../proj/src".into(), Want::In("proj/src")),
        ("../proj-evil/x".into(), Want::Outside),
        ("../proj-evil".into(), Want::Outside),
        ("new/../../outside".into(), Want::Outside),
        ("a/../../../../../../etc/passwd".into(), Want::Outside),
        (abs("proj/src/main.rs"), Want::In("proj/src/main.rs")),
        (abs("proj"), Want::In("proj")),
        (abs("proj/"), Want::In("proj")),
        (abs("proj-evil/x"), Want::Outside),
        (abs("proj-evil"), Want::Outside),
        (abs("outside/secret.txt"), Want::Outside),
        (abs("proj/../outside"), Want::Outside),
        (abs("rootlink/src/main.rs"), Want::In("proj/src/main.rs")),
        ("/etc/passwd".into(), Want::Outside),
        ("/".into(), Want::Outside),
        ("//etc".into(), Want::Outside),
        ("link_out".into(), Want::Outside),
        ("link_out/secret.txt".into(), Want::Outside),
        ("link_out/brand_new.txt".into(), Want::Outside),
        ("link_out/x/y/z.txt".into(), Want::Outside),
        ("rel_out/secret.txt".into(), Want::Outside),
        ("file_out".into(), Want::Outside),
        ("dangling_out".into(), Want::Outside),
        ("sub/deep_out/new.rs".into(), Want::Outside),
        ("evil/x".into(), Want::Outside),
        ("slash/etc/passwd".into(), Want::Outside),
        ("up/outside".into(), Want::Outside),
        ("up/proj/src".into(), Want::In("proj/src")),
        ("link_in/main.rs".into(), Want::In("proj/src/main.rs")),
        ("rel_in/main.rs".into(), Want::In("proj/src/main.rs")),
        ("rel_in/new.rs".into(), Want::In("proj/src/new.rs")),
        ("file_in".into(), Want::In("proj/src/main.rs")),
        ("dangling_in".into(), Want::In("proj/new_in.txt")),
        ("link_in/../Cargo.toml".into(), Want::In("proj/Cargo.toml")),
        // `..` after a link applies to where the link points, as in the kernel.
        ("link_out/../proj/src".into(), Want::In("proj/src")),
        ("link_out/deep/..".into(), Want::Outside),
        ("loop_a".into(), Want::Denied(SandboxDenial::Loop)),
        ("loop_a/x".into(), Want::Denied(SandboxDenial::Loop)),
        ("".into(), Want::Denied(SandboxDenial::Empty)),
        ("src/\0main.rs".into(), Want::Denied(SandboxDenial::Nul)),
        ("~".into(), Want::Outside),
        ("~/.ssh/id_rsa".into(), Want::Outside),
        ("~root/x".into(), Want::Denied(SandboxDenial::NoHome)),
        ("src/main.rs/x".into(), Want::Denied(SandboxDenial::Unresolvable(String::new()))),
    ];
    assert!(cases.len() >= 40);
    for (raw, want) in &cases {
        let got = check_path(&root, raw, Some(&home));
        let ok = match (want, &got) {
            (Want::In(rel), Ok(path)) => *path == base.join(rel),
            (Want::Outside, Err(SandboxDenial::Outside(_))) => true,
            (Want::Denied(SandboxDenial::Unresolvable(_)), Err(SandboxDenial::Unresolvable(_))) => true,
            (Want::Denied(expected), Err(error)) => expected == error,
            _ => false,
        };
        assert!(ok, "{raw:?}: wanted {want:?}, got {got:?}");
    }
}

#[test]
fn home_is_needed_for_tilde_and_can_be_inside() {
    let tree = TempDir::new("sandbox");
    let base = tree.path().to_path_buf();
    build(&base);
    let root = base.join("proj");
    assert_eq!(check_path(&root, "~/x", None), Err(SandboxDenial::NoHome));
    assert_eq!(check_path(&root, "~", None), Err(SandboxDenial::NoHome));
    // A home that is the project itself: ~/src is inside.
    assert_eq!(check_path(&root, "~/src", Some(&root)), Ok(root.join("src")));
    // The root may be given through a symlink; it is canonicalised first.
    assert_eq!(check_path(&base.join("rootlink"), "src", None), Ok(root.join("src")));
    assert_eq!(
        check_path(&base.join("rootlink"), "../outside", None),
        Err(SandboxDenial::Outside(base.join("outside")))
    );
    assert!(matches!(check_path(&base.join("missing-root"), "x", None), Err(SandboxDenial::BadRoot(_))));
}

/// SECURITY-NOTES §5.3: on random trees of dirs, files and links (relative, absolute, dangling,
/// looping, through `..`), every path that exists resolves exactly where the kernel says, and
/// is allowed exactly when the kernel's location is the root or beneath it.
#[test]
fn random_trees_agree_with_the_kernel() {
    let seed = 0x2545_f491_4f6c_dd1du64;
    println!("sandbox property seed: {seed:#x}");
    let mut rng = XorShift(seed);
    let names = ["a", "b", "c", "root", "..", ".", "x"];
    let (mut seen_inside, mut seen_outside) = (0, 0);
    for round in 0..30 {
        let tree = TempDir::new("sandbox");
        let base = tree.path().to_path_buf();
        let root = base.join("root");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(base.join("out")).unwrap();
        for _ in 0..25 {
            let dir = [rng.pick(&["root", "out", "root/a", "root/b", "out/a"]), rng.pick(&["a", "b", "c", "x"])];
            let path = base.join(dir[0]).join(dir[1]);
            let _ = match rng.next() % 4 {
                0 => std::fs::create_dir_all(&path),
                1 => std::fs::write(&path, "x"),
                2 => {
                    let target: Vec<&str> = (0..1 + rng.next() % 3).map(|_| rng.pick(&names)).collect();
                    symlink(target.join("/"), &path)
                }
                _ => symlink(base.join(rng.pick(&["root", "out", "root/a", "out/a", "nowhere"])), &path),
            };
        }
        for case in 0..60 {
            let raw: Vec<&str> = (0..1 + rng.next() % 5).map(|_| rng.pick(&names)).collect();
            let raw = raw.join("/");
            let decision = check_path(&root, &raw, None);
            let context = format!("seed {seed:#x} round {round} case {case}: {raw:?}");
            if let Ok(kernel) = std::fs::canonicalize(root.join(&raw)) {
                let inside = kernel == root || kernel.starts_with(&root);
                if inside {
                    seen_inside += 1;
                } else {
                    seen_outside += 1;
                }
                match &decision {
                    Ok(resolved) => {
                        assert!(inside && *resolved == kernel, "{context}: {resolved:?} vs kernel {kernel:?}")
                    }
                    Err(SandboxDenial::Outside(resolved)) => {
                        assert!(!inside && *resolved == kernel, "{context}: {resolved:?} vs kernel {kernel:?}")
                    }
                    Err(other) => panic!("{context}: {other:?} but the kernel resolved {kernel:?}"),
                }
            } else if let Ok(resolved) = &decision {
                assert!(resolved.starts_with(&root), "{context}");
            }
        }
    }
    assert!(seen_inside > 100 && seen_outside > 100, "weak generator: {seen_inside} inside, {seen_outside} outside");
}
