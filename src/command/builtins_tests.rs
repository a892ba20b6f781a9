//! Unit tests of the builtins that change what later commands run.

use super::*;

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

fn risk(text: &str) -> Option<String> {
    builtin_risk(&words(text))
}

#[test]
fn builtins_that_assign_dangerous_names_are_risky() {
    for command in [
        "printf -v HOME x",
        "printf -vPATH %s x",
        "printf -- -v",
        "declare PATH=/tmp",
        "declare -x PAGER",
        "declare -gx GIT_DIR",
        "typeset -g BASH_ENV=x",
        "local -n ref=PATH",
        "readonly LD_PRELOAD",
        "export GIT_SSH_COMMAND=x",
        "export -n HOME",
        "read PAGER",
        "read -r -p prompt EDITOR",
        "read -ra PATH",
        "read -a LD_PRELOAD",
        "read -d x -t 1 HOME",
        "mapfile LD_PRELOAD",
        "mapfile -t -n 3 GIT_DIR",
        "readarray -t PATH",
        "let HOME=1",
        "let x=1 PATH++",
        "getopts ab PATH",
        "unset GIT_CONFIG_COUNT",
        "unset -v PATH",
        "for PATH in /tmp",
        "select EDITOR in vi",
        "declare PATH[0]=/tmp",
        "declare PATH+=:/tmp",
    ] {
        let reason = risk(command);
        if command == "printf -- -v" {
            assert_eq!(reason, None, "{command}");
        } else {
            assert!(reason.as_deref().is_some_and(|r| r.contains(" sets ")), "{command}: {reason:?}");
        }
    }
}

#[test]
fn builtins_assigning_harmless_names_are_not_risky() {
    for command in [
        "printf %s x",
        "printf -v line %s x",
        "declare -p",
        "declare -i count=1",
        "export FOO=1",
        "read -r line",
        "read -p PATH line",
        "mapfile -t lines",
        "mapfile -d PATH lines",
        "let count=1+2",
        "let 0x1f+64#zz",
        "getopts ab opt",
        "unset tmp",
        "for file in a b",
        "for ((i=0;i<3;i++))",
        "echo HOME=1",
        "alias",
        "alias ll",
        "hash git",
        "hash -r",
        "trap",
        "trap -p",
        "trap - EXIT",
        "trap '' INT",
        "enable",
    ] {
        let words: Vec<String> =
            if command.contains("''") { vec!["trap".into(), String::new(), "INT".into()] } else { words(command) };
        assert_eq!(builtin_risk(&words), None, "{command}");
    }
}

#[test]
fn builtins_that_rebind_names_or_register_code_are_risky() {
    assert!(risk("alias git=id").unwrap().contains("alias"));
    assert!(risk("hash -p /tmp/evil git").unwrap().contains("hash"));
    assert!(risk("hash -dp /tmp/evil git").unwrap().contains("hash"));
    assert!(risk("enable -f ./x.so foo").unwrap().contains("enable"));
    assert!(risk("enable -n echo").unwrap().contains("enable"));
    assert!(risk("trap id EXIT").unwrap().contains("trap"));
    assert!(risk("trap -- id EXIT").unwrap().contains("trap"));
    assert!(risk("mapfile -C cb -c 1 lines").unwrap().contains("callback"));
    assert!(risk("readarray -Ccb lines").unwrap().contains("callback"));
}

#[test]
fn builtins_that_evaluate_subscripts_with_substitutions_are_risky() {
    for command in [
        "printf -v a[$(id)] x",
        "printf -va[`id`] x",
        "read a[$(id)]",
        "declare a[$(id)]=1",
        "declare -i i=a[$(id)]",
        "typeset -n r=a[$(id)]",
        "let a[$(id)]=1",
        "test -v a[$(id)]",
        "[ -v a[$(id)] ]",
        "[[ -v a[$(id)] ]]",
        "[[ a[$(id)] -eq 1 ]]",
        "unset a[$(id)]",
        "mapfile a[$(id)]",
        "wait -p a[$(id)]",
        "getopts a a[$(id)]",
        "let x=${|id;}",
    ] {
        let reason = risk(command);
        assert!(reason.as_deref().is_some_and(|r| r.contains("as code")), "{command}: {reason:?}");
    }
    for command in ["printf %s $(not-evaluated)", "echo a[$(id)]", "test -f a", "let i=1"] {
        assert_eq!(risk(command), None, "{command}");
    }
}

#[test]
fn arithmetic_reads_of_unassigned_names_are_reported() {
    assert_eq!(arithmetic_unknown_reads("i=0;i<3;i++"), Vec::<String>::new());
    assert_eq!(arithmetic_unknown_reads("x"), ["x"]);
    assert_eq!(arithmetic_unknown_reads("count = count + 1"), ["count"]);
    assert_eq!(arithmetic_unknown_reads("i == 1"), ["i"]);
    assert_eq!(arithmetic_unknown_reads("a[1]=2"), ["a"]);
    assert!(risk("let count=count+1").is_some_and(|r| r.contains("value of count")));
    assert_eq!(arithmetic_unknown_reads("j = 16#ff + 2"), Vec::<String>::new());
    assert!(risk("let x").is_some_and(|r| r.contains("value of x")));
    assert!(risk("let count=1+2").is_none());
    assert!(risk("(( n ))").is_some());
    assert!(risk("[[ x -eq 1 ]]").is_some_and(|r| r.contains("arithmetic")));
    assert!(risk("[[ 2 -eq 1 ]]").is_none());
    assert!(risk("[[ -f x ]]").is_none());
    assert!(risk("declare -i x=y").is_some_and(|r| r.contains("value of y")));
    assert!(risk("local -ri x=y+1").is_some());
    assert!(risk("declare -i x=1").is_none());
    assert!(risk("declare x=y").is_none());
}

#[test]
fn trap_actions_are_the_first_operand() {
    assert_eq!(trap_action(&words("id EXIT")), Some("id"));
    assert_eq!(trap_action(&words("-- id EXIT")), Some("id"));
    assert_eq!(trap_action(&words("- EXIT")), None);
    assert_eq!(trap_action(&words("-l")), None);
    assert_eq!(trap_action(&words("EXIT")), None);
}

#[test]
fn assigned_names_of_declarations_and_loops() {
    assert_eq!(assigned_names(&words("declare -n ref=PATH")), ["ref", "PATH"]);
    assert_eq!(assigned_names(&words("declare -x a=1 b")), ["a", "b"]);
    assert_eq!(assigned_names(&words("read -a arr x y")), ["arr", "x", "y", "REPLY"]);
    assert_eq!(assigned_names(&words("mapfile -u 3 arr")), ["arr", "MAPFILE"]);
    assert_eq!(assigned_names(&words("getopts ab opt")), ["opt", "OPTARG", "OPTIND"]);
    assert_eq!(assigned_names(&words("read -- x")), ["x", "REPLY"]);
    assert!(assigned_names(&words("ls -la")).is_empty());
    // A lone `-` is an operand, not an option cluster.
    assert_eq!(assigned_names(&words("export -")), ["-"]);
    // Options end at `--` and at the first operand.
    assert_eq!(risk("printf -- -v HOME x"), None);
    assert_eq!(risk("printf %s -v PATH"), None);
    assert_eq!(risk("printf - -v PATH"), None);
}
