//! Unit tests of `git_remotes.rs`: every URL form, config syntax, and `.git` files.

use super::*;
use crate::test_dir::TempDir;

fn host(url: &str) -> Option<String> {
    url_host(url).map(|host| host.to_string())
}

#[test]
fn every_url_form_gives_its_host() {
    let cases = [
        ("https://github.com/owner/repo.git", "github.com"),
        ("http://git.example.com:8080/repo", "git.example.com"),
        ("https://user:token@GitLab.com/group/repo", "gitlab.com"),
        ("ssh://git@ssh.example.com:2222/srv/repo.git", "ssh.example.com"),
        ("ssh://example.org/repo", "example.org"),
        ("git+ssh://git@host.example/repo", "host.example"),
        ("git://git.kernel.org/pub/scm/git/git.git", "git.kernel.org"),
        ("git@github.com:owner/repo.git", "github.com"),
        ("github.com:owner/repo.git", "github.com"),
        ("me@bitbucket.org:team/repo", "bitbucket.org"),
        ("ssh://[2001:db8::1]:22/repo", "2001:db8::1"),
        ("git@[2001:db8::2]:repo", "2001:db8::2"),
        ("https://10.0.0.7/repo", "10.0.0.7"),
        ("https://example.com?x=1", "example.com"),
        ("HTTPS://Example.COM./repo", "example.com"),
    ];
    for (url, expected) in cases {
        assert_eq!(host(url).as_deref(), Some(expected), "{url}");
    }
}

#[test]
fn paths_files_and_helpers_have_no_host() {
    for url in [
        "/srv/git/repo.git",
        "../sibling",
        "./a:b",
        "file:///srv/git/repo.git",
        "persistent-https::https://example.com/repo",
        "codecommit::us-east-1://repo",
        "",
        "https:///nohost",
        "://x",
    ] {
        assert_eq!(host(url), None, "{url}");
    }
}

#[test]
fn a_config_gives_the_hosts_of_every_remote_url_and_pushurl_once() {
    let config = r#"
[core]
	repositoryformatversion = 0
	url = https://not-a-remote.example/ignored
[remote "origin"]
	url = git@github.com:owner/repo.git
	fetch = +refs/heads/*:refs/remotes/origin/*
	pushurl = "ssh://git@push.example.com/repo" # where pushes go
[Remote "Upstream"]
	URL = https://GitLab.com/upstream/repo ; a comment
[remote "mirror"]
	url = https://github.com/owner/mirror.git
[remote.old]
	url = git://old.example.net/repo
[branch "main"]
	remote = origin
	url = https://branch.example/not-a-remote
[url "https://rewritten.example/"]
	insteadOf = https://github.com/
[remote "local"]
	url = /srv/git/repo.git
[remote "long"] url = https://one-line.example/repo
[remote "continued"]
	url = https://cont\
inued.example/repo
"#;
    let hosts: Vec<String> = remote_hosts(config).iter().map(ToString::to_string).collect();
    assert_eq!(
        hosts,
        ["continued.example", "github.com", "gitlab.com", "old.example.net", "one-line.example", "push.example.com"]
    );
    assert!(remote_hosts("").is_empty());
    assert!(remote_hosts("[remote \"x\"]\n\tfetch = +refs/*:refs/*\n").is_empty());
    assert!(remote_hosts("not a config at all [\n=").is_empty());
}

#[test]
fn a_git_file_points_to_the_git_dir() {
    assert_eq!(gitdir_of("gitdir: /repo/.git/worktrees/wt\n"), Some(PathBuf::from("/repo/.git/worktrees/wt")));
    assert_eq!(gitdir_of("gitdir: ../.git/modules/sub"), Some(PathBuf::from("../.git/modules/sub")));
    assert_eq!(gitdir_of("gitdir:   \n"), None);
    assert_eq!(gitdir_of("something else"), None);
}

#[test]
fn the_hosts_are_read_from_a_repository_a_worktree_and_a_submodule() {
    let dir = TempDir::new("git-remotes");
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join(".git/worktrees/wt")).unwrap();
    std::fs::write(repo.join(".git/config"), "[remote \"origin\"]\n\turl = https://github.com/o/r\n").unwrap();
    let names = |hosts: Vec<Host>| hosts.iter().map(ToString::to_string).collect::<Vec<_>>();
    assert_eq!(names(read_remote_hosts(&repo)), ["github.com"]);
    // A worktree: `.git` is a file naming its git dir, whose `commondir` leads to the config.
    let worktree = dir.join("wt");
    std::fs::create_dir_all(&worktree).unwrap();
    std::fs::write(worktree.join(".git"), format!("gitdir: {}\n", repo.join(".git/worktrees/wt").display())).unwrap();
    std::fs::write(repo.join(".git/worktrees/wt/commondir"), "../..\n").unwrap();
    assert_eq!(names(read_remote_hosts(&worktree)), ["github.com"]);
    // A submodule: a relative gitdir with its own config.
    let sub = repo.join("sub");
    std::fs::create_dir_all(repo.join(".git/modules/sub")).unwrap();
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join(".git"), "gitdir: ../.git/modules/sub\n").unwrap();
    std::fs::write(repo.join(".git/modules/sub/config"), "[remote \"origin\"]\n\turl = git@gitlab.com:x/y\n").unwrap();
    assert_eq!(names(read_remote_hosts(&sub)), ["gitlab.com"]);
    assert!(read_remote_hosts(&dir.join("nothing")).is_empty());
}
