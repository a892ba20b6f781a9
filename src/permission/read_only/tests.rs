//! Read-only command tests: what only reads and the near misses next to it, in a real temp project.

use super::*;
use crate::test_dir::TempDir;

struct Project {
    root: PathBuf,
    _dir: TempDir,
}

/// `src/` and `docs/` hold only code; `.env`, `certs/server.key` and a session log are sensitive;
/// `secrets/` holds a `.env` (hidden) only; `links/out` points out of the project.
fn project() -> Project {
    let dir = TempDir::new("read-only");
    let root = dir.path().to_path_buf();
    for (path, text) in [
        ("src/main.rs", "fn main() {}\n"),
        ("src/lib/mod.rs", "pub fn x() {}\n"),
        ("docs/guide.md", "# guide\n"),
        ("README.md", "hello\n"),
        ("a.txt", "a\n"),
        ("b.txt", "b\n"),
        (".env", "TOKEN=secret\n"),
        ("certs/server.key", "KEY\n"),
        ("secrets/.env", "TOKEN=secret\n"),
        ("secrets/notes.txt", "nothing\n"),
        (".mewcode/sessions/s1/log.jsonl", "{}\n"),
        (".git/config", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote \"origin\"]\n\turl = x\n"),
    ] {
        dir.write(path, text);
    }
    dir.mkdir("links");
    std::os::unix::fs::symlink("/etc", root.join("links/out")).unwrap();
    Project { root, _dir: dir }
}

/// Each command against its expected verdict; all failures reported at once.
fn check_all(root: &Path, cases: &[(&str, bool)]) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(command, read_only)| {
            let verdict = check(command, root);
            (verdict.is_ok() != *read_only)
                .then(|| format!("{command:?}: expected read-only {read_only}, got {verdict:?}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn reviewed_readers_in_plain_forms_are_read_only() {
    let project = project();
    let cases: Vec<(&str, bool)> = [
        "ls",
        "ls -la src",
        "pwd",
        "cat README.md",
        "cat src/*.rs",
        "head -n 5 a.txt b.txt",
        "tail -f a.txt",
        "wc -l src/main.rs",
        "file README.md",
        "stat a.txt",
        "du -sh src",
        "df -h",
        "grep -n main src/main.rs",
        "grep -rn main src",
        "grep -r -e main -- src docs",
        "rg -n main src",
        "rg --files docs",
        "echo $((1+2))",
        "find . -name '*.rs'",
        "find src -type f -newer a.txt -print",
        "tree src",
        "tree -a -L 2",
        "sort a.txt",
        "sort -u -t, -k2 a.txt | uniq -c",
        "uniq a.txt",
        "cut -d: -f1 a.txt",
        "tr a-z A-Z < a.txt",
        "diff a.txt b.txt",
        "diff -ru src docs",
        "cmp a.txt b.txt",
        "echo hi",
        "printf '%s\\n' x",
        "which cargo",
        "type ls",
        "date +%Y",
        "env",
        "true && : || false",
        "ls src; pwd && cat a.txt | head -1",
        "cat a.txt 2>/dev/null",
        "ls &>/dev/null",
        "cat a.txt 2>&1 | sort",
        "cat <<EOF\nplain text\nEOF",
        "grep x <<< word",
        "grep x <<< /etc/passwd",
        "cat <<EOF\n/etc/passwd ~/.ssh/id_rsa *\nEOF",
        "timeout 5 grep -rn main src",
        "nice -n 5 stdbuf -oL ls",
        "command ls",
        "if test -f a.txt; then cat a.txt; else echo none; fi",
        "for name in a b; do echo hi; done",
        "(( j = 7 % 4 )); ls",
        "for ((k=0; k<2; k++)); do ls; done",
        "echo $((1+(2))) $[1<<2] $'\\x41'",
        "( ls; pwd )",
        "LANG=C sort a.txt",
        "LANG=C; ls",
        "LC_ALL=en_US.UTF-8 LC_COLLATE=C ls",
        "{ ls; }",
        "ls &",
        "[[ -f a.txt ]] && cat a.txt",
        "cat links/../a.txt",
        "git status",
        "git status --porcelain -uall",
        "git diff",
        "git diff --stat HEAD~1 -- src",
        "git diff --no-ext-diff --text",
        "git log --oneline -n 5",
        "git log -p --follow src/main.rs",
        "git show HEAD",
        "git --no-pager log --format=%h%x09%s",
        "git branch",
        "git branch -a -vv",
        "git branch --list 'feat*'",
        "git branch --merged main",
        "git rev-parse --show-toplevel",
        "git ls-files -m",
        "git blame src/main.rs",
        "git grep -n main",
        "git ls-tree HEAD",
        "git describe --tags",
    ]
    .into_iter()
    .map(|command| (command, true))
    .collect();
    check_all(&project.root, &cases);
}

#[test]
fn writes_substitutions_assignments_and_other_programs_are_not() {
    let project = project();
    let cases: Vec<(&str, bool)> = [
        // Writes, by redirection or option.
        "cat a.txt > b.txt",
        "echo hi >> f",
        "echo hi >| f",
        "ls &> f",
        "ls >&f",
        "cat <> a.txt",
        "cat a.txt <> /dev/null",
        "sort -o out a.txt",
        "sort -ro out a.txt",
        "sort --output=out a.txt",
        "sort --out out a.txt",
        "sort --compress-program=sh a.txt",
        "uniq a.txt out",
        "tree -o out",
        "tree -R",
        "file -C -m magic",
        "date -s 2020-01-01",
        "date --set=now",
        "printf -v PATH x",
        "tee f",
        "ls | tee f",
        // Programs run by the reader.
        "find . -delete",
        "find . -exec rm {} ;",
        "find . -execdir ls ;",
        "find . -ok ls ;",
        "find . -fprint out",
        "find . -fls out",
        "rg --pre sh main",
        "rg -z main",
        "grep -r x . | sh",
        "ls | xargs rm",
        "sort --files0-from=list",
        "wc --files0-from=list",
        "file -f list",
        "grep -f patterns.txt a.txt",
        "date -f dates",
        // Substitutions and expansions.
        "ls $(rm -rf ~)",
        "ls `id`",
        "head $(cat list)",
        "cat <(ls)",
        "diff <(ls) <(ls src)",
        "echo \"$(id)\"",
        "echo $HOME",
        "cat $FILE",
        "echo $((x))",
        "(( PATH = 1 )); ls",
        "for PATH in .; do ls; done",
        "(( x )); ls",
        "[[ $x == y ]]",
        "cat < $FILE",
        "wc -l < ~/.bashrc",
        "wc -l < /etc/passwd",
        "wc -l < *.txt",
        "find . -files0-from list",
        "printf -v x hi",
        "uniq - out",
        "env -i",
        // Assignments and wrappers.
        "FOO=1 ls",
        "LD_PRELOAD=x ls",
        "PATH=. ls",
        "LANG=../x ls",
        "LANG=C FOO=1 ls",
        "X=1",
        "env FOO=1 ls",
        "env ls",
        "sudo ls",
        "xargs cat",
        "time -o out ls",
        "command time -o out ls",
        "nohup ls",
        "exec ls",
        "bash -c ls",
        "sh -c 'cat a.txt'",
        "eval ls",
        "./ls",
        "/bin/ls",
        "cd src && ls",
        "f() { ls; }; f",
        "rm a.txt",
        "cp a.txt b.txt",
        "python3 -c 'print(1)'",
        // Sensitive files, session logs, outside the project.
        "cat .env",
        "cat ~/.ssh/id_rsa",
        "cat /etc/shadow",
        "head -c 10 certs/server.key",
        "cat .e*",
        "cat {.env,a.txt}",
        "wc -l < .env",
        "cat .mewcode/sessions/s1/log.jsonl",
        "cat ../x",
        "cat links/out/passwd",
        "ls /",
        "grep -r TOKEN .",
        "grep -R x src links",
        "grep -rn TOKEN secrets",
        "grep -d recurse TOKEN secrets",
        "grep --directories=recurse TOKEN secrets",
        "grep --recur TOKEN secrets",
        "grep -r TOKEN",
        "rg -uu TOKEN",
        "rg --hidden TOKEN secrets",
        "rg -L x links",
        "rg TOKEN",
        "rg --files",
        "rg TOKEN certs",
        "rg -t rust certs",
        "diff -r secrets docs",
        "diff --recursive secrets docs",
        // git options and subcommands that run programs, write, or bring other configuration.
        "git diff --output=x",
        "git diff --out=x",
        "git log --output x",
        "git diff --ext-diff",
        "git diff --ext",
        "git show --textconv HEAD",
        "git log --show-signature",
        "git log --format=%G?",
        "git show --remerge-diff HEAD",
        "git diff --no-index a.txt b.txt",
        "git grep --untracked TOKEN",
        "git grep -Oless main",
        "git grep --open-files-in-pager main",
        "git status --recurse-submodules",
        "git -c core.pager=sh status",
        "git -ccore.fsmonitor=x status",
        "git --config-env=core.pager=X status",
        "git --exec-path=/tmp status",
        "git -p log",
        "git --paginate log",
        "git --git-dir=/tmp/x status",
        "git --work-tree=/tmp status",
        "git --bare log",
        "git -C sub status",
        "GIT_DIR=/tmp/x git status",
        "GIT_CONFIG_COUNT=1 git status",
        "git",
        "git --no-pager",
        "git commit -m x",
        "git push",
        "git checkout main",
        "git config core.pager sh",
        "git branch new",
        "git branch -D old",
        "git branch -m a b",
        "git branch --set-upstream-to=origin/x",
        "git branch -u origin/x",
        "git show HEAD:.env",
        "git diff -- /etc/passwd",
        // Unreadable text.
        "cat 'unterminated",
    ]
    .into_iter()
    .map(|command| (command, false))
    .collect();
    check_all(&project.root, &cases);
}

#[test]
fn a_search_names_the_trees_it_reads() {
    let project = project();
    let searches = |command: &str| classify(command, &project.root).unwrap().searches;
    let tree = |dir: &str, hidden: bool, follow: bool| Search { dir: dir.to_string(), hidden, follow };
    assert_eq!(searches("grep -n x a.txt"), vec![]);
    assert_eq!(searches("grep -rn x src"), vec![tree("src", true, false)]);
    assert_eq!(searches("grep -rn x"), vec![tree(".", true, false)]);
    assert_eq!(searches("grep -R -e src"), vec![tree("src", true, true), tree(".", true, true)]);
    assert_eq!(searches("rg x src"), vec![tree("src", false, false)]);
    assert_eq!(searches("rg src"), vec![tree("src", false, false), tree(".", false, false)]);
    assert_eq!(searches("rg -g src x"), vec![tree("src", false, false), tree(".", false, false)]);
    assert_eq!(searches("rg --unknown-option x src"), vec![tree("src", false, false), tree(".", false, false)]);
    assert_eq!(searches("rg -. -L x -- src"), vec![tree("src", true, true)]);
    assert_eq!(searches("diff -r src docs"), vec![tree("src", true, true), tree("docs", true, true)]);
    assert_eq!(searches("diff src/main.rs docs/guide.md"), vec![]);
    assert!(!classify("ls", &project.root).unwrap().git);
    assert!(classify("ls && git status", &project.root).unwrap().git);
}

#[test]
fn a_walk_stops_at_secrets_logs_followed_links_and_size() {
    let project = project();
    let root = &project.root;
    let walk_of = |dir: &str, hidden: bool, follow: bool| {
        confirm(&Needs { searches: vec![Search { dir: dir.to_string(), hidden, follow }], git: false }, root)
    };
    assert_eq!(walk_of("src", true, true), Ok(()));
    assert_eq!(walk_of("secrets", true, false), Err("the search would read secrets/.env".to_string()));
    // rg skips hidden files: `secrets/.env` is not read, `certs/server.key` is.
    assert_eq!(walk_of("secrets", false, false), Ok(()));
    assert_eq!(walk_of("certs", false, false), Err("the search would read certs/server.key".to_string()));
    assert_eq!(
        walk_of(".mewcode", true, false),
        Err("the search would read .mewcode/sessions/s1/log.jsonl".to_string())
    );
    assert_eq!(walk_of("links", true, false), Ok(()));
    assert_eq!(walk_of("links", true, true), Err("links/out is a symbolic link the search would follow".to_string()));
    assert!(walk_of("../", true, false).is_err());
    let many = root.join("many");
    std::fs::create_dir_all(&many).unwrap();
    for index in 0..=MAX_WALK {
        std::fs::write(many.join(index.to_string()), "").unwrap();
    }
    assert_eq!(walk_of("many", false, false), Err("many holds too many files to check".to_string()));
}

#[test]
fn git_runs_only_over_a_repository_configuration_that_names_no_program() {
    let project = project();
    let root = &project.root;
    let git = || confirm(&Needs { searches: Vec::new(), git: true }, root);
    assert_eq!(git(), Ok(()));
    std::fs::write(root.join(".git/config.worktree"), "[diff]\n\texternal = x\n").unwrap();
    assert!(git().unwrap_err().ends_with("config.worktree has a [diff] section (it can name programs git runs)"));
    std::fs::remove_file(root.join(".git/config.worktree")).unwrap();
    std::fs::create_dir_all(root.join(".git/modules/sub")).unwrap();
    std::fs::write(root.join(".git/modules/sub/config"), "[filter \"x\"]\n\tclean = y\n").unwrap();
    assert!(git().unwrap_err().contains("modules/sub/config has a [filter] section"));
    std::fs::remove_dir_all(root.join(".git/modules")).unwrap();
    // Absorbed submodules (a `.git` file) are read above; one with its own directory is not.
    std::fs::write(
        root.join(".gitmodules"),
        "[submodule \"a\"]\n\tpath = vendor/a\n[submodule \"b\"]\n\tpath = vendor/b\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("vendor/a")).unwrap();
    std::fs::write(root.join("vendor/a/.git"), "gitdir: ../../.git/modules/a\n").unwrap();
    assert_eq!(git(), Ok(()));
    std::fs::create_dir_all(root.join("vendor/b/.git")).unwrap();
    assert_eq!(git(), Err("the submodule vendor/b keeps its own git directory, which was not checked".to_string()));
    std::fs::remove_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".git"), "gitdir: /elsewhere\n").unwrap();
    assert!(git().unwrap_err().ends_with(".git is not a directory: its git directory was not checked"));
    // The engine reads the whole command's verdict: a refused configuration refuses the command.
    assert!(check("git status", root).is_err());
    assert_eq!(check("ls", root), Ok(()));
}

#[test]
fn auto_allowed_commands_run_git_without_fsmonitor_hooks_or_bare_repositories() {
    // The git readers rely on the hardening the bash tool gives every call no person approved;
    // the repository configuration check above does not cover these keys.
    for setting in [("core.fsmonitor", "false"), ("core.hooksPath", "/dev/null"), ("safe.bareRepository", "explicit")] {
        assert!(crate::tools::HARDENED_GIT.contains(&setting), "{setting:?}");
    }
}
