//! Unit tests of the settings store: reading, writing and marking the local settings file.

use super::*;
use crate::test_dir::TempDir;

#[test]
fn parses_both_lists_and_reports_bad_shapes() {
    let texts =
        parse_rule_texts("permissions:\n  allow: [\"Bash(git *)\", \"Read(src/**)\"]\n  deny: [\"Read(.env)\"]\n")
            .unwrap();
    assert_eq!(texts.allow, ["Bash(git *)", "Read(src/**)"]);
    assert_eq!(texts.deny, ["Read(.env)"]);
    assert_eq!(parse_rule_texts("").unwrap(), RuleTexts::default());
    assert_eq!(parse_rule_texts("other: 1\n").unwrap(), RuleTexts::default());
    assert_eq!(
        parse_rule_texts("permissions:\n  allow: [1]\n").unwrap_err(),
        "permissions.allow[0]: expected a rule string like \"Bash(git *)\""
    );
    assert!(parse_rule_texts("permissions: [\n").unwrap_err().starts_with("invalid YAML"));
    assert_eq!(
        parse_rule_texts("permissions: yes\n").unwrap_err(),
        "permissions: expected a mapping with allow, ask and deny lists"
    );
}

#[test]
fn adding_rules_is_idempotent_and_keeps_other_keys() {
    let rule = vec!["Bash(=rm -rf build/*)".to_string()];
    let (first, added) = edit_rules("", RuleList::Allow, RuleEdit::Add(&rule)).unwrap();
    assert_eq!(added, 1);
    assert_eq!(parse_rule_texts(&first).unwrap().allow, rule);
    let (second, added) = edit_rules(&first, RuleList::Allow, RuleEdit::Add(&rule)).unwrap();
    assert_eq!((added, second.matches("rm -rf build").count()), (0, 1));
    let (kept, _) =
        edit_rules("permissions:\n  deny: [\"Read(.env)\"]\nnote: mine\n", RuleList::Allow, RuleEdit::Add(&rule))
            .unwrap();
    let texts = parse_rule_texts(&kept).unwrap();
    assert_eq!((texts.allow, texts.deny), (rule.clone(), vec!["Read(.env)".to_string()]));
    assert!(kept.contains("note: mine"));
    assert!(
        edit_rules("permissions: [\n", RuleList::Allow, RuleEdit::Add(&rule)).is_err(),
        "a broken file is never overwritten"
    );
}

fn owner(byte: u8) -> Owner {
    Owner::from_key([byte; 32])
}

/// `body` marked by `owner` for the local file under `root`.
fn marked(root: &Path, body: &str, owner: &Owner) -> String {
    render_marked(&root.join(LOCAL_SETTINGS), body, owner).unwrap()
}

#[test]
fn a_mark_holds_only_for_this_key_this_path_and_exactly_this_content() {
    let path = Path::new("/p/.mewcode/settings.local.yaml");
    let body = "permissions:\n  allow: [\"Bash(=ls)\"]\n";
    let text = render_marked(path, body, &owner(1)).unwrap();
    let mark = owner(1).file_mark(path, body.as_bytes()).unwrap();
    assert_eq!(text, format!("# mewcode-mark: {mark}\n{body}"));
    assert_eq!(check_mark(path, &text, &owner(1)), Mark::Ours);
    assert_eq!(split_mark(&text), Some((mark.as_str(), body)));
    let check = |text: &str| check_mark(path, text, &owner(1));
    assert_eq!(check(body), Mark::Missing, "never marked");
    assert_eq!(check(""), Mark::Missing);
    assert_eq!(check(&format!("\n{text}")), Mark::Missing, "the mark is the first line or nothing");
    assert_eq!(check(&text.replace("Bash(=ls)", "Bash(*)")), Mark::Wrong, "a rule changed after marking");
    assert_eq!(check(&format!("{text}  deny: []\n")), Mark::Wrong, "a line added after marking");
    assert_eq!(check(&text[..text.len() - 1]), Mark::Wrong, "one byte less");
    assert_eq!(check(&text.replacen("# mewcode-mark: ", "# mewcode-mark: 0", 1)), Mark::Wrong);
    assert_eq!(check(&format!("# mewcode-mark: {mark}")), Mark::Wrong, "a mark line alone covers nothing");
    assert_eq!(check_mark(path, &text, &owner(2)), Mark::Wrong, "another installation");
    assert_eq!(check_mark(path, &text, &Owner::none()), Mark::Wrong, "no key owns nothing");
    assert_eq!(check_mark(Path::new("/q/.mewcode/settings.local.yaml"), &text, &owner(1)), Mark::Wrong);
    assert_eq!(render_marked(path, body, &Owner::none()), None);
    // An empty body marks too (the mark line alone, with its newline).
    assert_eq!(check(&render_marked(path, "", &owner(1)).unwrap()), Mark::Ours);
    assert_eq!(split_mark("# mewcode-mark: abc"), Some(("abc", "")));
}

#[test]
fn each_unmarked_kind_says_why_it_is_not_mewcodes() {
    assert!(Mark::Missing.why().contains("no mewcode mark"), "{}", Mark::Missing.why());
    assert!(Mark::Wrong.why().contains("does not match"), "{}", Mark::Wrong.why());
    assert!(Mark::Ours.why().contains("mewcode wrote"), "{}", Mark::Ours.why());
}

#[test]
fn an_always_answer_builds_only_on_mewcodes_own_file() {
    let root = Path::new("/p");
    let path = root.join(LOCAL_SETTINGS);
    let (ls, pwd) = (vec!["Bash(=ls)".to_string()], vec!["Bash(=pwd)".to_string()]);
    let plan = |existing: &str, rules: &[String]| {
        plan_local_save(&path, existing, &owner(1), RuleList::Allow, RuleEdit::Add(rules)).unwrap()
    };
    let written = |plan: LocalSave| match plan {
        LocalSave::Write { text, changed, set_aside } => (text, changed, set_aside),
        LocalSave::Unchanged => panic!("nothing written"),
    };
    // A new file: only the rule, marked.
    let (first, added, set_aside) = written(plan("", &ls));
    assert_eq!((added, set_aside), (1, None));
    assert_eq!(check_mark(&path, &first, &owner(1)), Mark::Ours);
    assert_eq!(parse_rule_texts(&first).unwrap().allow, ls);
    assert_eq!(written(plan("\n  \n", &ls)).0, first, "a blank file is no file");
    // Mewcode's own file is built on, and a rule already there changes nothing.
    let (second, added, set_aside) = written(plan(&first, &pwd));
    assert_eq!((added, set_aside), (1, None));
    assert_eq!(check_mark(&path, &second, &owner(1)), Mark::Ours);
    assert_eq!(parse_rule_texts(&second).unwrap().allow, ["Bash(=ls)", "Bash(=pwd)"]);
    assert!(second.contains("# mewcode permission rules"), "the header survives re-encoding: {second}");
    assert_eq!(plan(&second, &pwd), LocalSave::Unchanged);
    // A planted file, unmarked or with a stale mark, is never built on, and must be kept
    // aside even when the rule is in it already.
    let planted = "permissions:\n  allow: [\"Bash(*)\", \"Bash(=pwd)\"]\n  deny: [\"Read(x)\"]\nnote: 1\n";
    let tampered = second.replace("Bash(=pwd)", "Bash(*)");
    for (existing, why) in [(planted.to_string(), Mark::Missing), (tampered, Mark::Wrong)] {
        let (text, added, set_aside) = written(plan(&existing, &pwd));
        assert_eq!((added, set_aside), (1, Some(why)));
        let texts = parse_rule_texts(&text).unwrap();
        assert_eq!((texts.allow, texts.deny), (pwd.clone(), Vec::new()), "{text}");
        assert!(!text.contains("note"), "{text}");
        assert_eq!(check_mark(&path, &text, &owner(1)), Mark::Ours);
    }
    // Another installation's file is not this one's.
    assert_eq!(
        written(plan_local_save(&path, &first, &owner(2), RuleList::Allow, RuleEdit::Add(&ls)).unwrap()).2,
        Some(Mark::Wrong)
    );
    // A broken file of mewcode's is never overwritten; without a key nothing is written.
    let broken = marked(root, "permissions: [\n", &owner(1));
    assert!(
        plan_local_save(&path, &broken, &owner(1), RuleList::Allow, RuleEdit::Add(&ls))
            .unwrap_err()
            .starts_with("invalid YAML")
    );
    assert!(
        plan_local_save(&path, "", &Owner::none(), RuleList::Allow, RuleEdit::Add(&ls)).unwrap_err().contains("no key")
    );
}

#[test]
fn save_creates_the_file_and_its_directory() {
    let temp = TempDir::new("store");
    let dir = temp.path().to_path_buf();
    let rel = LOCAL_SETTINGS;
    let rules = vec!["Write(=notes.md)".to_string()];
    let saved = |changed| Saved { changed, set_aside: None, backup: None };
    assert_eq!(save_local_rules(&dir, &owner(1), RuleList::Allow, RuleEdit::Add(&rules)).unwrap(), saved(1));
    assert_eq!(save_local_rules(&dir, &owner(1), RuleList::Allow, RuleEdit::Add(&rules)).unwrap(), saved(0));
    assert_eq!(
        load_local_rule_texts(&dir.join(rel), &owner(1)).unwrap(),
        (RuleTexts { allow: rules, ..RuleTexts::default() }, Mark::Ours)
    );
    // The local file is the user's own: kept out of git by mewcode's `.gitignore`.
    assert_eq!(std::fs::read_to_string(dir.join(".mewcode/.gitignore")).unwrap(), fsx::MEWCODE_DIR_GITIGNORE);
}

#[test]
fn a_planted_local_file_is_read_as_unmarked_and_kept_aside_by_the_next_always() {
    let temp = TempDir::new("store-planted");
    let dir = temp.path().to_path_buf();
    temp.mkdir(".mewcode");
    let path = dir.join(LOCAL_SETTINGS);
    assert_eq!(load_local_rule_texts(&path, &owner(1)).unwrap(), (RuleTexts::default(), Mark::Ours), "no file");
    // Only a missing file is empty: one that cannot be read is an error naming it.
    std::fs::create_dir(&path).unwrap();
    assert!(load_local_rule_texts(&path, &owner(1)).unwrap_err().starts_with(&path.display().to_string()));
    std::fs::remove_dir(&path).unwrap();
    let planted = "permissions:\n  allow: [\"Bash(*)\"]\n";
    std::fs::write(&path, planted).unwrap();
    let (texts, mark) = load_local_rule_texts(&path, &owner(1)).unwrap();
    assert_eq!((texts.allow, mark), (vec!["Bash(*)".to_string()], Mark::Missing));
    let rules = vec!["Bash(=ls)".to_string()];
    let saved = save_local_rules(&dir, &owner(1), RuleList::Allow, RuleEdit::Add(&rules)).unwrap();
    let rejected = dir.join(".mewcode/settings.local.yaml.rejected");
    assert_eq!(saved, Saved { changed: 1, set_aside: Some((rejected.clone(), Mark::Missing)), backup: None });
    assert_eq!(std::fs::read_to_string(&rejected).unwrap(), planted, "kept as it was, for the user to see");
    assert_eq!(
        load_local_rule_texts(&path, &owner(1)).unwrap(),
        (RuleTexts { allow: rules.clone(), ..RuleTexts::default() }, Mark::Ours)
    );
    // A second planted file does not overwrite the first rejected one.
    std::fs::write(&path, "permissions: {allow: [\"Read(**)\"]}\n").unwrap();
    let saved = save_local_rules(&dir, &owner(1), RuleList::Allow, RuleEdit::Add(&rules)).unwrap();
    let second = dir.join(".mewcode/settings.local.yaml.rejected-2");
    assert_eq!(saved, Saved { changed: 1, set_aside: Some((second.clone(), Mark::Missing)), backup: None });
    assert_eq!(std::fs::read_to_string(&rejected).unwrap(), planted);
    assert!(std::fs::read_to_string(&second).unwrap().contains("Read(**)"));
    // Without a key nothing is touched.
    std::fs::write(&path, planted).unwrap();
    assert!(
        save_local_rules(&dir, &Owner::none(), RuleList::Allow, RuleEdit::Add(&rules)).unwrap_err().contains("no key")
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), planted);
}

#[test]
fn save_never_writes_through_a_planted_symlink() {
    let base = TempDir::new("store-link");
    let (project, outside) = (base.mkdir("project/.mewcode").parent().unwrap().to_path_buf(), base.mkdir("outside"));
    std::fs::write(outside.join("victim.yaml"), "").unwrap();
    let rel = LOCAL_SETTINGS;
    let rules = vec!["Bash(=ls)".to_string()];
    // The file itself links out.
    std::os::unix::fs::symlink(outside.join("victim.yaml"), project.join(rel)).unwrap();
    assert!(
        save_local_rules(&project, &owner(1), RuleList::Allow, RuleEdit::Add(&rules))
            .unwrap_err()
            .contains("outside the project")
    );
    // The file links to another file inside the project.
    std::fs::remove_file(project.join(rel)).unwrap();
    std::fs::write(project.join("AGENTS.md"), "").unwrap();
    std::os::unix::fs::symlink("../AGENTS.md", project.join(rel)).unwrap();
    assert!(
        save_local_rules(&project, &owner(1), RuleList::Allow, RuleEdit::Add(&rules))
            .unwrap_err()
            .contains("symbolic link")
    );
    // The directory links out.
    std::fs::remove_dir_all(project.join(".mewcode")).unwrap();
    std::os::unix::fs::symlink(&outside, project.join(".mewcode")).unwrap();
    assert!(save_local_rules(&project, &owner(1), RuleList::Allow, RuleEdit::Add(&rules)).is_err());
    // The directory links to another directory inside the project: mewcode's own directory
    // is never a link, wherever it points.
    std::fs::remove_file(project.join(".mewcode")).unwrap();
    std::fs::create_dir_all(project.join("docs")).unwrap();
    std::os::unix::fs::symlink("docs", project.join(".mewcode")).unwrap();
    let err = save_local_rules(&project, &owner(1), RuleList::Allow, RuleEdit::Add(&rules)).unwrap_err();
    assert!(err.contains(".mewcode is a symbolic link; mewcode does not write through it"), "{err}");
    assert_eq!(std::fs::read_dir(project.join("docs")).unwrap().count(), 0);
    assert_eq!(std::fs::read_to_string(outside.join("victim.yaml")).unwrap(), "");
    assert_eq!(std::fs::read_to_string(project.join("AGENTS.md")).unwrap(), "");
    assert!(!outside.join("settings.local.yaml").exists());
    assert!(!outside.join(".gitignore").exists());
}

#[test]
fn removing_a_rule_keeps_the_others_and_a_missing_one_is_an_error() {
    let file = "permissions:\n  allow: [\"Bash(=ls)\", \"Read(src/**)\", \"Bash(=ls)\"]\n  ask: [\"Bash(npm publish *)\"]\n  deny: [\"Read(.env)\"]\nnote: mine\n";
    let (text, removed) = edit_rules(file, RuleList::Allow, RuleEdit::Remove("Bash(=ls)")).unwrap();
    assert_eq!(removed, 2, "every copy goes");
    let texts = parse_rule_texts(&text).unwrap();
    assert_eq!(
        texts,
        RuleTexts {
            allow: vec!["Read(src/**)".into()],
            ask: vec!["Bash(npm publish *)".into()],
            deny: vec!["Read(.env)".into()]
        }
    );
    assert!(text.contains("note: mine"), "{text}");
    let missing = edit_rules(file, RuleList::Deny, RuleEdit::Remove("Bash(=ls)")).unwrap_err();
    assert_eq!(missing, "permissions.deny does not hold \"Bash(=ls)\" (changed since start-up?)");
    // An ask list is a list like the others.
    let (text, added) = edit_rules(file, RuleList::Ask, RuleEdit::Add(&["Bash(git push *)".to_string()])).unwrap();
    assert_eq!((added, parse_rule_texts(&text).unwrap().ask.len()), (1, 2));
}

#[test]
fn a_rule_is_never_removed_from_a_local_file_mewcode_did_not_write() {
    let temp = TempDir::new("store-remove-planted");
    let dir = temp.path().to_path_buf();
    temp.mkdir(".mewcode");
    let planted = "permissions:\n  allow: [\"Bash(*)\"]\n  deny: [\"Bash(=pwd)\"]\n";
    std::fs::write(dir.join(LOCAL_SETTINGS), planted).unwrap();
    let refused = save_local_rules(&dir, &owner(1), RuleList::Deny, RuleEdit::Remove("Bash(=pwd)")).unwrap_err();
    assert!(refused.contains("not changed: the file is not mewcode's") && refused.contains("yourself"), "{refused}");
    assert_eq!(std::fs::read_to_string(dir.join(LOCAL_SETTINGS)).unwrap(), planted, "marking it would adopt Bash(*)");
    // Mewcode's own file loses the rule and stays marked.
    std::fs::remove_file(dir.join(LOCAL_SETTINGS)).unwrap();
    let rules = vec!["Bash(=ls)".to_string(), "Bash(=pwd)".to_string()];
    save_local_rules(&dir, &owner(1), RuleList::Allow, RuleEdit::Add(&rules)).unwrap();
    let saved = save_local_rules(&dir, &owner(1), RuleList::Allow, RuleEdit::Remove("Bash(=ls)")).unwrap();
    assert_eq!(saved, Saved { changed: 1, set_aside: None, backup: None });
    let (texts, mark) = load_local_rule_texts(&dir.join(LOCAL_SETTINGS), &owner(1)).unwrap();
    assert_eq!((texts.allow, mark), (vec!["Bash(=pwd)".to_string()], Mark::Ours));
}

#[test]
fn a_plain_settings_file_is_created_beneath_its_base_and_its_comments_kept_in_a_copy() {
    let temp = TempDir::new("store-plain");
    let root = temp.path().to_path_buf();
    let rules = vec!["Bash(git push *)".to_string()];
    let saved = save_plain_rules(&root, PROJECT_SETTINGS, RuleList::Deny, RuleEdit::Add(&rules)).unwrap();
    assert_eq!(saved, Saved { changed: 1, set_aside: None, backup: None });
    assert_eq!(load_rule_texts(&root.join(PROJECT_SETTINGS)).unwrap().deny, rules);
    assert!(root.join(".mewcode/.gitignore").exists());
    assert_eq!(save_plain_rules(&root, PROJECT_SETTINGS, RuleList::Deny, RuleEdit::Add(&rules)).unwrap().changed, 0);
    // A home that does not exist yet is made; a file with comments keeps them in a copy.
    let home = root.join("home/.mewcode");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join(USER_SETTINGS), "# my rules\npermissions:\n  allow: [\"Read\"]\n").unwrap();
    let saved = save_plain_rules(&home, USER_SETTINGS, RuleList::Allow, RuleEdit::Remove("Read")).unwrap();
    let backup = home.join("settings.yaml.bak");
    assert_eq!(
        saved,
        Saved {
            changed: 1,
            set_aside: None,
            backup: Some(std::fs::canonicalize(&home).unwrap().join("settings.yaml.bak"))
        }
    );
    assert!(std::fs::read_to_string(&backup).unwrap().starts_with("# my rules"));
    assert_eq!(load_rule_texts(&home.join(USER_SETTINGS)).unwrap(), RuleTexts::default());
    let fresh = root.join("fresh-home");
    save_plain_rules(&fresh, USER_SETTINGS, RuleList::Ask, RuleEdit::Add(&rules)).unwrap();
    assert_eq!(load_rule_texts(&fresh.join(USER_SETTINGS)).unwrap().ask, rules);
    // Never through a link.
    std::fs::remove_file(root.join(PROJECT_SETTINGS)).unwrap();
    std::os::unix::fs::symlink(home.join(USER_SETTINGS), root.join(PROJECT_SETTINGS)).unwrap();
    assert!(save_plain_rules(&root, PROJECT_SETTINGS, RuleList::Deny, RuleEdit::Add(&rules)).is_err());
}

fn host_names(hosts: &[AllowedHost]) -> Vec<String> {
    hosts.iter().map(|allowed| allowed.pattern.to_string()).collect()
}

#[test]
fn an_always_host_lands_in_the_marked_local_file_beside_its_rules() {
    let temp = TempDir::new("store-hosts");
    let dir = temp.path().to_path_buf();
    let path = dir.join(LOCAL_SETTINGS);
    assert_eq!(load_local_hosts(&path, &owner(1)).unwrap(), (Vec::new(), Mark::Ours), "no file");
    let api = HostPattern::parse("api.example.com").unwrap();
    assert_eq!(save_local_host(&dir, &owner(1), &api).unwrap().changed, 1);
    assert_eq!(save_local_host(&dir, &owner(1), &api).unwrap().changed, 0, "once");
    let rules = vec!["Bash(=ls)".to_string()];
    save_local_rules(&dir, &owner(1), RuleList::Allow, RuleEdit::Add(&rules)).unwrap();
    let wild = HostPattern::parse("*.example.org").unwrap();
    assert_eq!(save_local_host(&dir, &owner(1), &wild).unwrap().changed, 1);
    let (hosts, mark) = load_local_hosts(&path, &owner(1)).unwrap();
    assert_eq!(
        (host_names(&hosts), mark),
        (vec!["api.example.com".to_string(), "*.example.org".to_string()], Mark::Ours)
    );
    assert!(hosts.iter().all(|allowed| allowed.source == LOCAL_SETTINGS));
    // The rules survive the host edits, and the file is still mewcode's.
    assert_eq!(
        load_local_rule_texts(&path, &owner(1)).unwrap(),
        (RuleTexts { allow: rules, ..RuleTexts::default() }, Mark::Ours)
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.matches("# mewcode permission rules").count(), 1, "one header: {text}");
    // Another installation's key does not own it.
    assert_eq!(load_local_hosts(&path, &owner(2)).unwrap().1, Mark::Wrong);
}

#[test]
fn a_planted_local_host_list_is_unmarked_and_set_aside_by_the_next_always_host() {
    let temp = TempDir::new("store-hosts-planted");
    let dir = temp.path().to_path_buf();
    temp.mkdir(".mewcode");
    let path = dir.join(LOCAL_SETTINGS);
    let planted = "sandbox:\n  allow_hosts: [attacker.example]\n";
    std::fs::write(&path, planted).unwrap();
    let (hosts, mark) = load_local_hosts(&path, &owner(1)).unwrap();
    assert_eq!((host_names(&hosts), mark), (vec!["attacker.example".to_string()], Mark::Missing));
    let saved = save_local_host(&dir, &owner(1), &HostPattern::parse("ok.example").unwrap()).unwrap();
    assert_eq!(saved.set_aside, Some((dir.join(".mewcode/settings.local.yaml.rejected"), Mark::Missing)));
    let (hosts, mark) = load_local_hosts(&path, &owner(1)).unwrap();
    assert_eq!((host_names(&hosts), mark), (vec!["ok.example".to_string()], Mark::Ours));
    std::fs::write(&path, "sandbox:\n  allow_hosts: ['https://x.example/']\n").unwrap();
    let err = load_local_hosts(&path, &owner(1)).unwrap_err();
    assert!(err.contains("settings.local.yaml: sandbox.allow_hosts[0]: ") && err.contains("not a URL"), "{err}");
    std::fs::write(&path, "sandbox: off\n").unwrap();
    assert!(load_local_hosts(&path, &owner(1)).unwrap_err().contains("sandbox: expected a mapping"));
}
