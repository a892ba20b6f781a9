//! Unit tests of `secrets.rs`: the shape and coverage of the list of secret stores.

use super::*;
use std::path::Component;

/// Directories toolchains read and write in ordinary work: no entry may be one of them or a
/// parent of one (hiding `.cargo` would break every build).
const TOOLCHAIN_DIRS: &[&str] = &[
    ".cargo",
    ".cargo/bin",
    ".cargo/registry",
    ".cargo/git",
    ".rustup",
    ".npm",
    ".nvm",
    ".bun",
    ".deno",
    ".yarn",
    ".cache",
    ".cache/pip",
    ".cache/go-build",
    ".cache/huggingface/hub",
    ".config",
    ".config/git",
    ".config/containers",
    ".config/dart",
    ".config/nushell",
    ".config/helm",
    ".config/composer",
    ".local",
    ".local/bin",
    ".local/share",
    ".local/state",
    ".local/share/gem",
    ".local/share/containers",
    ".m2",
    ".m2/repository",
    ".gradle",
    ".gradle/caches",
    ".gradle/wrapper",
    ".gem",
    ".bundle",
    ".pub-cache",
    ".nuget",
    ".nuget/packages",
    ".composer",
    ".docker",
    ".terraform.d",
    ".pulumi",
    ".sbt",
    ".ivy2",
    ".pyenv",
    ".sdkman",
    ".android",
    ".ipython/profile_default",
    ".codex",
    ".claude",
    ".gemini",
    ".vscode-server",
    "go",
    "go/pkg/mod",
    "snap",
];

/// The 17 stores of the first list (src/confine/mod.rs before issue 27): none may go.
const FIRST_LIST: [&str; 17] = [
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".config/gh",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".password-store",
    ".local/share/keyrings",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
];

fn all() -> impl Iterator<Item = &'static Secret> {
    HOME_SECRETS.iter().chain(SYSTEM_SECRETS)
}

/// The path rebuilt from its normal components: equal to the path only when it has no `.`,
/// `..`, doubled or trailing slash.
fn rebuilt(path: &str) -> Option<String> {
    let mut parts = Vec::new();
    for component in Path::new(path).components() {
        match component {
            Component::RootDir => parts.push(String::new()),
            Component::Normal(part) => parts.push(part.to_str()?.to_string()),
            Component::CurDir | Component::ParentDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.join("/"))
}

#[test]
fn home_secrets_are_relative_and_normalised() {
    for secret in HOME_SECRETS {
        let path = secret.path;
        assert!(!path.is_empty() && !path.starts_with('/') && !path.starts_with('~'), "{path}");
        assert_eq!(rebuilt(path).as_deref(), Some(path), "not normalised: {path}");
        assert!(!path.contains('*') && !path.contains('$'), "not literal: {path}");
    }
}

#[test]
fn system_secrets_are_absolute_and_normalised() {
    for secret in SYSTEM_SECRETS {
        let path = secret.path;
        assert!(path.starts_with('/') && path.len() > 1, "{path}");
        assert_eq!(rebuilt(path).as_deref(), Some(path), "not normalised: {path}");
        assert!(!path.contains('*') && !path.contains('$'), "not literal: {path}");
        // Other homes are hidden whole by other_homes; listing inside them would be redundant.
        assert!(!path.starts_with("/root/") && !path.starts_with("/home/"), "{path}");
    }
}

#[test]
fn no_entry_is_listed_twice_or_inside_another() {
    let paths: Vec<&Path> = all().map(|secret| Path::new(secret.path)).collect();
    for (index, path) in paths.iter().enumerate() {
        for (other_index, other) in paths.iter().enumerate() {
            if index != other_index {
                assert!(!path.starts_with(other), "{} is {} or inside it", path.display(), other.display());
            }
        }
    }
}

#[test]
fn no_entry_hides_a_toolchain_directory() {
    for secret in HOME_SECRETS {
        for toolchain in TOOLCHAIN_DIRS {
            assert!(
                !Path::new(toolchain).starts_with(secret.path),
                "{} would hide the toolchain directory {toolchain}",
                secret.path
            );
        }
    }
}

#[test]
fn mewcode_home_is_not_listed() {
    // `$MEWCODE_HOME` (default ~/.mewcode) is hidden through Paths::mewcode_home.
    assert!(HOME_SECRETS.iter().all(|secret| !Path::new(secret.path).starts_with(".mewcode")));
}

#[test]
fn the_first_list_stays_hidden() {
    for path in FIRST_LIST {
        assert!(HOME_SECRETS.iter().any(|secret| secret.path == path), "{path} was dropped");
    }
}

#[test]
fn every_kind_has_an_entry_and_every_entry_a_listed_kind() {
    for kind in Kind::ALL {
        assert!(all().any(|secret| secret.kind == kind), "no entry of kind {kind:?}");
    }
    for secret in all() {
        assert!(Kind::ALL.contains(&secret.kind), "{:?} of {} is not in Kind::ALL", secret.kind, secret.path);
    }
    let mut names: Vec<&str> = Kind::ALL.iter().map(|kind| kind.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), Kind::ALL.len(), "two kinds share a name");
}

#[test]
fn the_list_is_much_wider_than_the_first() {
    assert!(HOME_SECRETS.len() >= 60, "{}", HOME_SECRETS.len());
}

#[test]
fn every_entry_says_what_it_holds_in_a_short_phrase() {
    for secret in all() {
        let holds = secret.holds;
        assert!(!holds.is_empty() && holds.len() <= 80, "{}: {holds:?}", secret.path);
        assert_eq!(holds.trim(), holds, "{}", secret.path);
        assert!(!holds.ends_with('.') && !holds.contains('\n'), "{}: {holds:?}", secret.path);
    }
}

#[test]
fn home_secrets_joins_each_entry_to_the_home() {
    let paths: Vec<PathBuf> = home_secrets(Path::new("/home/u")).collect();
    assert_eq!(paths.len(), HOME_SECRETS.len());
    assert_eq!(paths[0], PathBuf::from("/home/u/.ssh"));
    assert!(paths.contains(&PathBuf::from("/home/u/.cargo/credentials.toml")));
    assert!(paths.iter().all(|path| path.starts_with("/home/u") && path != Path::new("/home/u")));
}

fn check_other_homes(home: Option<&str>, homes: &[&str], keep: &[&str], expected: &[&str]) {
    let homes: Vec<PathBuf> = homes.iter().map(PathBuf::from).collect();
    let keep: Vec<PathBuf> = keep.iter().map(PathBuf::from).collect();
    let expected: Vec<PathBuf> = expected.iter().map(PathBuf::from).collect();
    assert_eq!(other_homes(home.map(Path::new), &homes, &keep), expected, "home {home:?}, homes {homes:?}");
}

#[test]
fn other_homes_keeps_the_own_home_and_hides_root() {
    check_other_homes(
        Some("/home/alice"),
        &["/home/alice", "/home/bob", "/home/carol", "/root"],
        &["/home/alice/project"],
        &["/home/bob", "/home/carol", "/root"],
    );
}

#[test]
fn other_homes_keeps_a_home_that_holds_the_project() {
    check_other_homes(
        Some("/home/alice"),
        &["/home/alice", "/home/bob", "/root"],
        &["/home/bob/shared/project", "/tmp/mewcode-tmp-1"],
        &["/root"],
    );
}

#[test]
fn other_homes_keeps_a_home_that_holds_a_writable_path() {
    check_other_homes(
        Some("/home/alice"),
        &["/home/bob", "/home/carol", "/root"],
        &["/home/carol/out"],
        &["/home/bob", "/root"],
    );
}

#[test]
fn other_homes_leaves_out_root_when_it_is_the_home() {
    check_other_homes(Some("/root"), &["/home/bob", "/root"], &["/root/project"], &["/home/bob"]);
}

#[test]
fn other_homes_leaves_out_root_when_it_holds_the_project() {
    check_other_homes(Some("/home/alice"), &["/root"], &["/root/project"], &[]);
}

#[test]
fn other_homes_keeps_a_directory_that_contains_the_own_home() {
    // Homes under /home/users: hiding /home/users would hide the user's own home.
    check_other_homes(Some("/home/users/alice"), &["/home/users", "/home/bob", "/root"], &[], &["/home/bob", "/root"]);
}

#[test]
fn other_homes_without_a_home_hides_every_home_and_no_duplicates() {
    check_other_homes(None, &["/home/bob", "/root", "/home/bob"], &["/srv/project"], &["/home/bob", "/root"]);
}

#[test]
fn other_homes_compares_whole_components() {
    // /home/al is not a parent of /home/alice: it is hidden.
    check_other_homes(
        Some("/home/alice"),
        &["/home/al", "/home/alice", "/root"],
        &["/home/alice/p"],
        &["/home/al", "/root"],
    );
}

#[test]
fn summary_counts_every_kind() {
    let summary = summary();
    for kind in Kind::ALL {
        let count = all().filter(|secret| secret.kind == kind).count();
        assert!(summary.contains(&format!("{} {count}", kind.name())), "{kind:?} missing from {summary}");
    }
    assert!(summary.starts_with("ssh "), "{summary}");
    assert_eq!(summary.matches(", ").count(), Kind::ALL.len() - 1, "{summary}");
}
