//! Rule syntax, matcher, level and compound-command tests.

use super::*;
use crate::test_dir::TempDir;
use std::path::Path;

/// A project root holding an empty `src/`, removed when the returned directory is dropped.
fn temp_root() -> TempDir {
    let project = TempDir::new("rules");
    project.mkdir("src");
    project
}

#[test]
fn rule_syntax_errors_are_precise() {
    let cases: &[(&str, Option<RuleError>)] = &[
        ("Bash", None),
        ("Bash(git *)", None),
        ("  Read(src/**)  ", None),
        ("mcp__github__*", None),
        ("mcp__github__search_issues", None),
        ("Task", None),
        ("Bash(echo (x))", None),
        ("Bash(=a(b)c)", None),
        ("Bash(!!rm *)", None),
        ("Bash(!~rm .*)", None),
        ("", Some(RuleError::Empty)),
        ("   ", Some(RuleError::Empty)),
        ("Bash(", Some(RuleError::UnbalancedParens)),
        ("Bash(git", Some(RuleError::UnbalancedParens)),
        ("Bash)", Some(RuleError::UnbalancedParens)),
        ("Bash(x) trailing", Some(RuleError::UnbalancedParens)),
        ("(git *)", Some(RuleError::EmptyTool)),
        ("Bash (git *)", Some(RuleError::BadToolName)),
        ("Ba sh", Some(RuleError::BadToolName)),
        ("Bash()", Some(RuleError::EmptyPattern)),
        ("mcp__github__x(foo)", Some(RuleError::NoTarget)),
        ("Task(x)", Some(RuleError::NoTarget)),
        ("Re*(src/**)", Some(RuleError::NoTarget)),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_rule(text).err(), *expected, "{text:?}");
    }
    assert!(matches!(parse_rule("Bash(~rm (x)"), Err(RuleError::BadRegex(_))));
    assert!(matches!(parse_rule("Read(!~[)"), Err(RuleError::BadRegex(_))));
}

#[test]
fn patterns_match_by_kind() {
    // (rule, target, matches) — Bash targets are commands, file tools' targets relative paths.
    let cases: &[(&str, &str, bool)] = &[
        ("Bash(git *)", "git status", true),
        ("Bash(git *)", "git log --oneline -n 5", true),
        ("Bash(git *)", "gitk", false),
        ("Bash(git *)", "git", true),
        ("Bash(git push *)", "git push", true),
        ("Bash(git push *)", "git pushx", false),
        ("Bash(git push *)", "git push origin", true),
        ("Bash(git*)", "git", true),
        ("Bash(git:*)", "git", true),
        ("Bash(git:*)", "git status", true),
        ("Bash(git:*)", "gitk", false),
        ("Bash(git:*)", "git:x", false),
        ("Bash(npm run test:*)", "npm run test -- -u", true),
        ("Bash(npm run test:*)", "npm run testx", false),
        ("Bash(echo \\:*)", "echo :*", true),
        ("Bash(npm run *)", "npm run build/x", true),
        ("Bash(*)", "anything at all", true),
        ("Bash(ls ?)", "ls a", true),
        ("Bash(ls ?)", "ls ab", false),
        ("Bash(ls [ab])", "ls b", true),
        ("Bash(ls [!ab])", "ls b", false),
        ("Bash(echo \\*)", "echo *", true),
        ("Bash(echo \\*)", "echo x", false),
        ("Bash(=git status)", "git status", true),
        ("Bash(=git status)", "git status -s", false),
        ("Bash(=git *)", "git status", false),
        ("Bash(~git (status|diff))", "git diff", true),
        // A regex matches anywhere in the target (the seed's semantics); `^…$` pins the whole.
        ("Bash(~git (status|diff))", "git diff; rm x", true),
        ("Bash(~^git (status|diff)$)", "git diff; rm x", false),
        ("Bash(~^git (status|diff)$)", "git status", true),
        ("Bash(~git)", "git status", true),
        ("Bash(~curl)", "curl http://x", true),
        ("Bash(~curl)", "wget http://x", false),
        ("Bash(~^curl)", "xcurl", false),
        ("Bash(~curl$)", "curl x", false),
        ("Bash(!~curl)", "curl http://x", false),
        ("Bash(!~curl)", "wget http://x", true),
        ("Bash(!rm *)", "ls", true),
        ("Bash(!rm *)", "rm x", false),
        ("Bash(!!rm *)", "rm x", true),
        ("Bash(!=ls)", "ls", false),
        ("Bash(!~l.)", "ls", false),
        ("Bash(a*b)", "a\nb", true),
        ("Read(src/**)", "src", true),
        ("Read(src/**)", "src/a/b/c.rs", true),
        ("Read(src/**)", "srcx/a", false),
        ("Read(src/*)", "src/a.rs", true),
        ("Read(src/*)", "src/a/b.rs", false),
        ("Read(**/*.rs)", "main.rs", true),
        ("Read(**/*.rs)", "a/b/main.rs", true),
        ("Read(**/*.rs)", "a/b/main.rs.bak", false),
        ("Read(./src/*.rs)", "src/x.rs", true),
        ("Read(*.env)", "a/.env", false),
        ("Read(.env)", ".env", true),
        ("Read(src/?.rs)", "src/a.rs", true),
        ("Read(src/?.rs)", "src//.rs", false),
        ("Read(=src/*.rs)", "src/*.rs", true),
        ("Read(=src/*.rs)", "src/a.rs", false),
        ("Read(a/**/b)", "a/b", true),
        ("Read(a/**/b)", "a/x/y/b", true),
        ("Read(~^[^/]+\\.rs$)", "x.rs", true),
        ("Read(~^[^/]+\\.rs$)", "a/x.rs", false),
        ("Read(~[^/]+\\.rs)", "a/x.rs", true),
        ("Read(~\\.env)", "config/.env.local", true),
    ];
    for (text, target, expected) in cases {
        let rule = parse_rule(text).unwrap();
        let pattern = rule.pattern.as_ref().unwrap();
        assert_eq!(pattern.matcher.matches(target), *expected, "{text} vs {target:?}");
    }
    assert!(cases.len() >= 40);
}

fn ruleset(levels: &[(Level, &[&str], &[&str])]) -> RuleSet {
    let texts = levels
        .iter()
        .map(|(level, allow, deny)| {
            let to_strings = |list: &[&str]| list.iter().map(|s| s.to_string()).collect();
            (*level, RuleTexts { allow: to_strings(allow), ask: Vec::new(), deny: to_strings(deny) })
        })
        .collect();
    let (set, problems) = RuleSet::from_texts(texts);
    assert!(problems.iter().all(|problem| !problem.is_fatal()), "{problems:?}");
    set
}

fn path_call<'a>(tool: &'a str, root: &Path, rel: &str) -> CallView<'a> {
    let path = root.join(rel);
    CallView {
        tool,
        target: CallTarget::Path(PathTarget {
            resolved: path.clone(),
            lexical: path,
            root: root.to_path_buf(),
            home: None,
        }),
    }
}

#[test]
fn deny_at_any_level_wins_and_levels_are_reported() {
    let project = temp_root();
    let root = project.path().to_path_buf();
    let set = ruleset(&[
        (Level::Local, &["Read(**)", "mcp__github__*"], &[]),
        (Level::Project, &["Write(src/**)"], &["Read(secrets/**)"]),
        (Level::User, &["Read(/etc/hosts)"], &["Write(src/generated/**)", "mcp__github__delete_*"]),
    ]);
    let decide = |view: CallView<'_>| check_rules(&set, &view);
    assert_eq!(
        decide(path_call("Read", &root, "src/a.rs")),
        RuleDecision::Allow { level: Level::Local, rule: "Read(**)".into() }
    );
    assert_eq!(
        decide(path_call("Read", &root, "secrets/key")),
        RuleDecision::Deny { level: Level::Project, rule: "Read(secrets/**)".into() }
    );
    assert_eq!(
        decide(path_call("Write", &root, "src/generated/x.rs")),
        RuleDecision::Deny { level: Level::User, rule: "Write(src/generated/**)".into() }
    );
    assert_eq!(
        decide(path_call("Write", &root, "src/x.rs")),
        RuleDecision::Allow { level: Level::Project, rule: "Write(src/**)".into() }
    );
    assert_eq!(decide(path_call("Write", &root, "README.md")), RuleDecision::NoMatch);
    assert_eq!(decide(path_call("Edit", &root, "src/x.rs")), RuleDecision::NoMatch);
    let hosts = CallView {
        tool: "Read",
        target: CallTarget::Path(PathTarget {
            resolved: "/etc/hosts".into(),
            lexical: "/etc/hosts".into(),
            root: root.clone(),
            home: None,
        }),
    };
    assert_eq!(decide(hosts), RuleDecision::Allow { level: Level::User, rule: "Read(/etc/hosts)".into() });
    let mcp = |tool| check_rules(&set, &CallView { tool, target: CallTarget::None });
    assert_eq!(mcp("mcp__github__search"), RuleDecision::Allow { level: Level::Local, rule: "mcp__github__*".into() });
    assert_eq!(
        mcp("mcp__github__delete_repo"),
        RuleDecision::Deny { level: Level::User, rule: "mcp__github__delete_*".into() }
    );
    assert_eq!(mcp("mcp__gitlab__search"), RuleDecision::NoMatch);
    // Deny rules also see the lexical spelling: a symlink's name cannot dodge them.
    let through_link = CallView {
        tool: "Read",
        target: CallTarget::Path(PathTarget {
            resolved: root.join("public/x"),
            lexical: root.join("secrets/x"),
            root: root.clone(),
            home: None,
        }),
    };
    assert!(matches!(decide(through_link), RuleDecision::Deny { .. }));
}

#[test]
fn an_ask_rule_beats_every_allow_and_a_deny_beats_it_in_every_sub_command() {
    let project = temp_root();
    let root = project.path().to_path_buf();
    let texts = |allow: &[&str], ask: &[&str], deny: &[&str]| {
        let to_strings = |list: &[&str]| list.iter().map(|s| s.to_string()).collect();
        RuleTexts { allow: to_strings(allow), ask: to_strings(ask), deny: to_strings(deny) }
    };
    let (set, problems) = RuleSet::from_texts(vec![
        (Level::Session, texts(&[], &["mcp__github__*"], &[])),
        (Level::Local, texts(&["Bash(npm *)", "Read(**)", "mcp__github__*"], &[], &[])),
        (Level::Project, texts(&[], &["Bash(npm publish *)", "Read(secrets/**)"], &["Bash(npm publish --force *)"])),
    ]);
    assert!(problems.is_empty(), "{problems:?}");
    let bash = |command: &'static str| {
        check_rules(&set, &CallView { tool: "Bash", target: CallTarget::Command { command, root: &root } })
    };
    let asked = |level, rule: &str| RuleDecision::Ask { level, rule: rule.to_string() };
    assert_eq!(bash("npm test"), RuleDecision::Allow { level: Level::Local, rule: "Bash(npm *)".into() });
    assert_eq!(bash("npm publish"), asked(Level::Project, "Bash(npm publish *)"));
    assert_eq!(bash("npm test && npm publish --tag x"), asked(Level::Project, "Bash(npm publish *)"));
    assert_eq!(
        bash("npm publish --force now"),
        RuleDecision::Deny { level: Level::Project, rule: "Bash(npm publish --force *)".into() }
    );
    assert_eq!(check_rules(&set, &path_call("Read", &root, "secrets/a")), asked(Level::Project, "Read(secrets/**)"));
    assert!(matches!(check_rules(&set, &path_call("Read", &root, "src/a")), RuleDecision::Allow { .. }));
    let mcp = CallView { tool: "mcp__github__search", target: CallTarget::None };
    assert_eq!(check_rules(&set, &mcp), asked(Level::Session, "mcp__github__*"));
}

#[test]
fn malformed_rules_are_reported_deny_and_ask_ones_as_fatal() {
    let (set, problems) = RuleSet::from_texts(vec![(
        Level::Project,
        RuleTexts {
            allow: vec!["Bash(".into(), "Bash(!rm *)".into()],
            ask: vec!["Bash(=a".into()],
            deny: vec!["Read(~[)".into(), "Read(.env)".into()],
        },
    )]);
    let summary: Vec<(RuleList, Effect)> = problems.iter().map(|problem| (problem.list, problem.effect)).collect();
    assert_eq!(
        summary,
        vec![
            (RuleList::Allow, Effect::Skipped),
            (RuleList::Allow, Effect::Applied),
            (RuleList::Ask, Effect::Fatal),
            (RuleList::Deny, Effect::Fatal)
        ]
    );
    assert!(problems[0].to_string().ends_with("; rule skipped"), "{}", problems[0]);
    assert!(problems[2].to_string().starts_with("project ask rule \"Bash(=a\": unbalanced"), "{}", problems[2]);
    assert!(problems[3].to_string().starts_with("project deny rule \"Read(~[)\": invalid regex"));
    assert!(problems[3].is_fatal() && problems[2].is_fatal() && !problems[1].is_fatal() && !problems[0].is_fatal());
    assert_eq!(set.levels[0].1.allow.len(), 1);
    assert_eq!(set.levels[0].1.deny.len(), 1);
}

#[test]
fn a_negated_allow_rule_is_reported_as_applied_and_is_applied() {
    // The seed (and SPEC) accept `!inner` in allow lists; the start-up report must say the rule
    // is in force, because it is.
    let (set, problems) = RuleSet::from_texts(vec![(
        Level::User,
        RuleTexts { allow: vec!["Bash(!rm *)".into()], ..RuleTexts::default() },
    )]);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].effect, Effect::Applied);
    let report = problems[0].to_string();
    assert!(report.ends_with("; the rule applies") && !report.contains("skipped"), "{report}");
    let project = temp_root();
    let root = project.path().to_path_buf();
    let bash =
        |command| check_rules(&set, &CallView { tool: "Bash", target: CallTarget::Command { command, root: &root } });
    assert_eq!(bash("ls"), RuleDecision::Allow { level: Level::User, rule: "Bash(!rm *)".into() });
    assert_eq!(bash("rm x"), RuleDecision::NoMatch);
}

#[test]
fn only_unanchored_allow_regexes_are_reported() {
    let allow = [
        "Bash(~git)",
        "Bash(~^git status$)",
        "Bash(~^git)",
        "Bash(~git$)",
        "Bash(~\\Agit\\z)",
        "Bash(~^a\\$)",
        "Bash(~^ls|pwd$)",
        "Bash(~^(ls|pwd)$)",
        "Bash(~^[|]$)",
        "Bash(~^\\|$)",
        "Bash(~(?i)^git status$)",
        "Bash(~(?i)git)",
    ];
    let deny = ["Bash(~curl)"];
    let to_strings = |list: &[&str]| list.iter().map(|s| s.to_string()).collect();
    let (set, problems) = RuleSet::from_texts(vec![(
        Level::Project,
        RuleTexts { allow: to_strings(&allow), ask: Vec::new(), deny: to_strings(&deny) },
    )]);
    let reported: Vec<&str> = problems.iter().map(|problem| problem.text.as_str()).collect();
    assert_eq!(
        reported,
        ["Bash(~git)", "Bash(~^git)", "Bash(~git$)", "Bash(~^a\\$)", "Bash(~^ls|pwd$)", "Bash(~(?i)git)"]
    );
    assert!(problems.iter().all(|problem| problem.effect == Effect::Applied && problem.list == RuleList::Allow));
    assert!(problems[0].message.contains("write ~^(?:git)$"), "{}", problems[0].message);
    assert_eq!(set.levels[0].1.allow.len(), allow.len(), "reported rules still apply");
}

#[test]
fn a_regex_deny_rule_matches_anywhere_in_every_sub_command() {
    let project = temp_root();
    let root = project.path().to_path_buf();
    let set = ruleset(&[(Level::User, &["Bash(~^(ls|git status)$)", "Bash(~git)"], &["Bash(~curl)"])]);
    let bash =
        |command| check_rules(&set, &CallView { tool: "Bash", target: CallTarget::Command { command, root: &root } });
    let denied = RuleDecision::Deny { level: Level::User, rule: "Bash(~curl)".into() };
    for command in ["curl http://x", "ls && curl x", "ls; echo ok | curl -d @- x", "sudo curl x", "bash -c 'curl x'"] {
        assert_eq!(bash(command), denied, "{command}");
    }
    let anchored = RuleDecision::Allow { level: Level::User, rule: "Bash(~^(ls|git status)$)".into() };
    assert_eq!(bash("ls && git status"), anchored);
    // Each sub-command is judged on its own: an allow regex must cover every one of them.
    assert_eq!(bash("ls && wget x"), RuleDecision::NoMatch);
    assert_eq!(bash("ls -la"), RuleDecision::NoMatch);
    let unanchored = RuleDecision::Allow { level: Level::User, rule: "Bash(~git)".into() };
    assert_eq!(bash("git log"), unanchored);
    assert_eq!(bash("echo legit"), unanchored, "an unanchored allow regex allows what merely contains it");
}

#[test]
fn exact_rules_match_only_their_target() {
    let rule_text = exact_rule_for("Bash", "rm -rf build/*");
    assert_eq!(rule_text, "Bash(=rm -rf build/*)");
    let rule = parse_rule(&rule_text).unwrap();
    let matcher = &rule.pattern.as_ref().unwrap().matcher;
    assert!(matcher.matches("rm -rf build/*"));
    for other in ["rm -rf src", "rm -rf build/x", "rm -rf build/*; rm -rf /", "rm -rf build/"] {
        assert!(!matcher.matches(other), "{other}");
    }
    for target in ["echo (a) [b] ? * \\ ! ~ =", "=x", "!x", "~x", "a)b", "multi\nline", "ünï"] {
        let rule = parse_rule(&exact_rule_for("Bash", target)).unwrap();
        let matcher = &rule.pattern.as_ref().unwrap().matcher;
        assert!(matcher.matches(target) && matcher.is_exact(), "{target:?}");
        let mut mutated = target.to_string();
        mutated.push('x');
        assert!(!matcher.matches(&mutated), "{target:?}");
    }
    assert_eq!(exact_rule_for("mcp__github__search", "ignored"), "mcp__github__search");
    assert_eq!(exact_rule_for("Write", "src/a b.rs"), "Write(=src/a b.rs)");
}

#[test]
fn compound_commands_need_every_part_allowed() {
    let project = temp_root();
    let root = project.path().to_path_buf();
    let set = ruleset(&[(
        Level::Project,
        &[
            "Bash(git *)",
            "Bash(echo *)",
            "Bash(ls*)",
            "Bash(cargo test*)",
            "Bash(cat *)",
            "Bash(grep *)",
            "Bash(find *)",
            "Bash(wc *)",
            "Bash(=find . -name x -delete)",
            "Bash(sed *)",
        ],
        &["Bash(git push *)", "Bash(rm *)", "Bash(curl *)"],
    )]);
    // 'A' allow, 'D' deny, 'N' no match (falls through to the mode: ask).
    let cases: &[(&str, char)] = &[
        ("git status", 'A'),
        ("X=1 git status", 'A'),
        ("git=1 id", 'N'),
        ("lsx=1 id", 'N'),
        ("git=1 ls", 'A'),
        ("git status; ls -la", 'A'),
        ("git status && git diff", 'A'),
        ("git log | grep fix | wc -l", 'A'),
        ("git status\nls", 'A'),
        ("echo hi > src/out.txt", 'A'),
        ("git status 2>/dev/null", 'A'),
        ("git status 2>&1", 'A'),
        ("timeout 60 cargo test", 'A'),
        ("nice -n 5 git status", 'A'),
        ("\"git\" 'status'", 'A'),
        ("find . -name x -delete", 'A'),
        ("git status; rm x", 'D'),
        ("git log && curl x | sh", 'D'),
        ("git push origin main", 'D'),
        ("git push", 'D'),
        ("git -C . --no-pager push origin", 'D'),
        ("git -c x=y push origin", 'D'),
        ("sudo rm x", 'D'),
        ("/bin/rm x", 'D'),
        ("env A=1 rm x", 'D'),
        ("bash -c 'rm x'", 'D'),
        ("sh -c \"git push --force x\"", 'D'),
        ("eval rm x", 'D'),
        ("{rm,x}", 'D'),
        ("rm${IFS}x", 'D'),
        ("find . -exec rm {} ;", 'D'),
        ("echo $(rm x)", 'D'),
        ("git $(rm x)", 'D'),
        ("echo hi; touch pwned", 'N'),
        ("echo hi && touch pwned", 'N'),
        ("echo hi | sh", 'N'),
        ("echo hi | xargs touch", 'N'),
        ("echo hi\ntouch pwned", 'N'),
        ("git `touch pwned`", 'N'),
        ("git status $(touch pwned)", 'N'),
        ("cat <(touch pwned)", 'N'),
        ("echo \"$(touch pwned)\"", 'N'),
        ("echo x > ~/.bashrc", 'N'),
        ("echo x >> /etc/profile", 'N'),
        ("echo x >| ../outside", 'N'),
        ("echo x > $HOME/.bashrc", 'N'),
        ("cd /tmp && echo x > y", 'N'),
        ("cat < /etc/shadow", 'N'),
        ("git -c core.pager=sh log", 'N'),
        ("git config alias.x '!sh'", 'N'),
        ("find . -exec touch {} ;", 'N'),
        ("find . -delete", 'N'),
        ("sed -n 1e src/x", 'N'),
        ("sudo git status", 'N'),
        ("PATH=. ls", 'N'),
        ("ls $SECRET", 'N'),
        ("git status 'unterminated", 'N'),
        ("if true; then ls; fi", 'N'),
        ("./ls", 'N'),
        ("echo hi & touch pwned", 'N'),
        ("(git status; touch x)", 'N'),
        ("git status # ; touch x", 'A'),
        ("cat /etc/shadow", 'N'),
        ("cat ~/.ssh/id_rsa", 'N'),
        ("grep -r secret ~", 'N'),
        ("cat .env", 'N'),
        ("cat ../other/x", 'N'),
        ("git log --output=../x", 'N'),
        ("cat src/../src/x", 'A'),
        ("ls /dev/null", 'A'),
        // The terminal is not a harmless target (issue 10).
        ("echo hi > /dev/tty", 'N'),
        ("echo hi 2>/dev/pts/0", 'N'),
        ("echo hi < /dev/tty", 'N'),
        ("ls /dev/tty", 'N'),
        // git cannot be pointed at another repository by a broad rule.
        ("git -C src status", 'N'),
        ("git init --template=t", 'N'),
    ];
    let mut failures = Vec::new();
    for (command, expected) in cases {
        let view = CallView { tool: "Bash", target: CallTarget::Command { command, root: &root } };
        let got = match check_rules(&set, &view) {
            RuleDecision::Allow { .. } => 'A',
            RuleDecision::Deny { .. } => 'D',
            RuleDecision::Ask { .. } => 'Q',
            RuleDecision::NoMatch => 'N',
        };
        if got != *expected {
            failures.push(format!("{command:?}: expected {expected}, got {got}"));
        }
    }
    assert!(cases.len() >= 30);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn many_subcommands_are_all_checked() {
    let project = temp_root();
    let root = project.path().to_path_buf();
    let set = ruleset(&[(Level::User, &["Bash(echo *)"], &["Bash(rm *)"])]);
    let long = "echo a; ".repeat(500) + "rm x";
    let view = CallView { tool: "Bash", target: CallTarget::Command { command: &long, root: &root } };
    assert!(matches!(check_rules(&set, &view), RuleDecision::Deny { .. }));
    let long_allowed = "echo a; ".repeat(500) + "touch x";
    let view = CallView { tool: "Bash", target: CallTarget::Command { command: &long_allowed, root: &root } };
    assert_eq!(check_rules(&set, &view), RuleDecision::NoMatch);
}

#[test]
fn a_rule_list_splits_at_commas_and_spaces_outside_parentheses() {
    assert_eq!(
        parse_rule_list("Bash(git log *), Edit Read(src/**)").unwrap(),
        ["Bash(git log *)", "Edit", "Read(src/**)"]
    );
    assert_eq!(parse_rule_list(" Bash(touch *) ").unwrap(), ["Bash(touch *)"]);
    assert!(parse_rule_list(" , ").unwrap_err().contains("expected one or more rules"));
    let error = parse_rule_list("Edit,Bash(git").unwrap_err();
    assert!(error.starts_with("\"Bash(git\" is not a rule: unbalanced parentheses"), "{error}");
}
