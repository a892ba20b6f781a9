//! Table tests for wrapper peeling and program-running flags.

use super::*;

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

#[test]
fn wrappers_are_peeled_repeatedly() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("rm -rf /", "rm -rf /", &[]),
        ("sudo rm -rf /", "rm -rf /", &["sudo"]),
        ("sudo -u root -E rm x", "rm x", &["sudo"]),
        ("sudo -uroot --preserve-env rm x", "rm x", &["sudo"]),
        ("sudo --user=root -- rm x", "rm x", &["sudo"]),
        ("/usr/bin/sudo -n rm x", "rm x", &["sudo"]),
        ("env FOO=1 BAR=2 rm x", "rm x", &["env"]),
        ("env -i -u HOME PATH=/x rm x", "rm x", &["env"]),
        ("timeout 10 rm x", "rm x", &["timeout"]),
        ("timeout -s KILL -k 5 10s rm x", "rm x", &["timeout"]),
        ("timeout --signal=KILL 10 rm x", "rm x", &["timeout"]),
        ("nice -n 10 rm x", "rm x", &["nice"]),
        ("nice -10 rm x", "rm x", &["nice"]),
        ("nohup rm x", "rm x", &["nohup"]),
        ("xargs -0 -n 1 -I {} rm {}", "rm {}", &["xargs"]),
        ("xargs rm -rf", "rm -rf", &["xargs"]),
        ("command -p rm x", "rm x", &["command"]),
        ("exec -a name rm x", "rm x", &["exec"]),
        ("time -p rm x", "rm x", &["time"]),
        ("stdbuf -oL -e 0 rm x", "rm x", &["stdbuf"]),
        ("busybox rm -rf /", "rm -rf /", &["busybox"]),
        ("sudo env A=1 timeout 5 nice -n 5 nohup rm x", "rm x", &["sudo", "env", "timeout", "nice", "nohup"]),
        ("then rm x", "rm x", &[]),
        ("! sudo rm x", "rm x", &["sudo"]),
        ("sudo", "", &["sudo"]),
        ("env", "", &["env"]),
        ("git status", "git status", &[]),
    ];
    for (input, expected, wrappers) in cases {
        let effective = unwrap_command(&words(input));
        assert_eq!(effective.words.join(" "), *expected, "{input:?}");
        assert_eq!(effective.wrappers, *wrappers, "{input:?}");
    }
    let split = unwrap_command(&["env".into(), "-S".into(), "rm -rf /".into()]);
    assert_eq!(split.scripts, vec!["rm -rf /".to_string()]);
    assert_eq!(program_name("/bin/rm"), "rm");
}

#[test]
fn program_running_flags_are_risky() {
    let cases: &[(&str, bool)] = &[
        ("find . -name x", false),
        ("find . -exec rm {} ;", true),
        ("find . -execdir sh ;", true),
        ("find . -delete", true),
        ("find . -okdir x", true),
        ("find . -fprint /tmp/x", true),
        ("git status", false),
        ("git log --oneline", false),
        ("git -c core.pager=sh log", true),
        ("git -ccore.pager=sh log", true),
        ("git --config-env=core.pager=X log", true),
        ("git --exec-path=/tmp log", true),
        ("git -C sub status", true),
        ("git -C . status", false),
        ("git -C /tmp/evil status", true),
        ("git -C ../other status", true),
        ("git --git-dir=/tmp/x/.git status", true),
        ("git --work-tree /tmp status", true),
        ("git -C sub -c x=y status", true),
        ("git config alias.x !sh", true),
        ("git config --get user.name", false),
        ("git diff --output=/tmp/x", true),
        ("git diff --ext-diff", true),
        ("git rebase -x make", true),
        ("git submodule foreach rm", true),
        ("git add -u", false),
        ("git grep -Osh x", true),
        ("git grep --open-files-in-pager=sh x", true),
        ("git rebase -xmake", true),
        ("git clone -u evil url", true),
        ("git clone --config core.fsmonitor=x url", true),
        ("git clone -c core.fsmonitor=x url", true),
        ("git clone url", false),
        ("git send-email --sendmail-cmd=x", true),
        ("rg foo", false),
        ("rg --pre cat foo", true),
        ("rg --pre=cat foo", true),
        ("rg -z foo", true),
        ("rg -uz foo", true),
        ("sed -n 1,5p f", false),
        ("sed s/a/b/ f", false),
        ("sed -i s/a/b/ f", false),
        ("sed 1e f", true),
        ("sed -e s/a/b/e f", true),
        ("sed -f script f", true),
        ("awk {print} f", false),
        ("awk -F: {print$1} f", false),
        ("awk BEGIN{system(\"id\")}", true),
        ("awk {print|\"sh\"}", true),
        ("awk -f prog f", true),
        ("bash -c ls", true),
        ("sh -ec ls", true),
        ("bash script.sh", false),
        ("bash", true),
        ("eval ls", true),
        (". ./env.sh", true),
        ("python3 -c print(1)", true),
        ("python3 script.py", false),
        ("node -e 1", true),
        ("perl -pe s/a/b/", true),
        ("tar --to-command=sh -xf a.tar", true),
        ("tar -xf a.tar", false),
        ("rsync -e ssh a b", true),
        ("ls -la", false),
        ("node --require ./x.js app.js", true),
        ("node --import=./x.mjs app.js", true),
        ("pwsh -c x", true),
        ("npm test --node-options=x", true),
        ("npm test", false),
        ("cargo test --config x", true),
        ("cargo test", false),
        ("zip -TT ./check.sh a.zip f", true),
        ("zip -r a.zip src", false),
        ("grep -r -e foo -c src", false),
        ("cp -r -p a b", false),
    ];
    for (input, risky) in cases {
        let effective = unwrap_command(&words(input));
        assert_eq!(exec_risk(&effective, &|dir| dir == ".").is_some(), *risky, "{input:?}");
    }
    for wrapped in ["sudo ls", "xargs ls", "env -S ls x"] {
        assert!(exec_risk(&unwrap_command(&words(wrapped)), &|dir| dir == ".").is_some(), "{wrapped:?}");
    }
    assert_eq!(exec_risk(&unwrap_command(&words("timeout 5 ls")), &|dir| dir == "."), None);
}

#[test]
fn git_credential_helper_programs_are_exec_class() {
    for helper in
        ["git-credential-store get", "/usr/lib/git-core/git-credential-cache get", "sudo git-credential-libsecret get"]
    {
        assert!(exec_risk(&unwrap_command(&words(helper)), &|dir| dir == ".").is_some(), "{helper:?}");
    }
    for harmless in ["git-lfs ls-files", "git-credentials-report", "credential-store get"] {
        assert_eq!(exec_risk(&unwrap_command(&words(harmless)), &|dir| dir == "."), None, "{harmless:?}");
    }
}
