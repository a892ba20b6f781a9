//! Tests of the rule book: the numbered listing, finding what to remove, checking additions,
//! and applying saved changes.

use super::*;

fn strings(rules: &[&str]) -> Vec<String> {
    rules.iter().map(|rule| rule.to_string()).collect()
}

fn texts(allow: &[&str], ask: &[&str], deny: &[&str]) -> RuleTexts {
    RuleTexts { allow: strings(allow), ask: strings(ask), deny: strings(deny) }
}

fn files() -> RuleFiles {
    RuleFiles {
        root: PathBuf::from("/p"),
        user_home: Some(PathBuf::from("/home/me/.mewcode")),
        project_trusted: true,
        local_mark: Mark::Ours,
    }
}

fn book() -> RuleBook {
    RuleBook::new(
        files(),
        vec![
            (Level::Local, texts(&["Bash(=touch made)"], &[], &[])),
            (Level::Project, texts(&["Read(src/**)"], &["Bash(npm publish *)"], &["Bash(git push *)"])),
            (Level::User, texts(&["Bash(=touch made)"], &[], &["Read(.env)"])),
        ],
    )
}

/// The listing as (number, list, text, source) rows, without the built-ins' long texts.
fn rows(book: &RuleBook) -> Vec<(usize, RuleList, String, Source)> {
    book.listing()
        .into_iter()
        .map(|entry| {
            let text = if entry.source == Source::BuiltIn { "built-in".to_string() } else { entry.text };
            (entry.number, entry.list, text, entry.source)
        })
        .collect()
}

#[test]
fn the_listing_numbers_deny_then_ask_then_allow_nearest_level_first_built_ins_last() {
    let mut book = book();
    book.grant_edits();
    let row = |number, list, text: &str, source| (number, list, text.to_string(), source);
    let (deny, ask, allow) = (RuleList::Deny, RuleList::Ask, RuleList::Allow);
    assert_eq!(
        rows(&book),
        vec![
            row(1, deny, "Bash(git push *)", Source::Rule(Level::Project)),
            row(2, deny, "Read(.env)", Source::Rule(Level::User)),
            row(3, deny, "built-in", Source::BuiltIn),
            row(4, deny, "built-in", Source::BuiltIn),
            row(5, ask, "Bash(npm publish *)", Source::Rule(Level::Project)),
            row(6, ask, "built-in", Source::BuiltIn),
            row(7, ask, "built-in", Source::BuiltIn),
            row(8, allow, EDITS_GRANT, Source::EditsGrant),
            row(9, allow, "Bash(=touch made)", Source::Rule(Level::Local)),
            row(10, allow, "Read(src/**)", Source::Rule(Level::Project)),
            row(11, allow, "Bash(=touch made)", Source::Rule(Level::User)),
        ]
    );
}

#[test]
fn removal_finds_a_rule_by_number_or_by_its_only_listing_and_never_a_built_in() {
    let book = book();
    let found = book.find_removable(&Which::Number(5)).unwrap();
    assert_eq!(
        (found.list, found.text.as_str(), found.source),
        (RuleList::Ask, "Bash(npm publish *)", Source::Rule(Level::Project))
    );
    let by_text = book.find_removable(&Which::Rule("  Read(src/**) ".to_string())).unwrap();
    assert_eq!((by_text.number, by_text.source), (9, Source::Rule(Level::Project)));
    // The built-in policies are listed, not removable, and say so.
    for number in [3, 4, 6, 7] {
        let refusal = book.find_removable(&Which::Number(number)).unwrap_err();
        assert!(refusal.starts_with(&format!("entry {number} is built into mewcode")), "{refusal}");
        assert!(refusal.contains("cannot be removed"), "{refusal}");
    }
    assert_eq!(
        book.find_removable(&Which::Number(11)).unwrap_err(),
        "there is no entry 11: /permissions lists 10 entries"
    );
    assert_eq!(
        book.find_removable(&Which::Number(0)).unwrap_err(),
        "there is no entry 0: /permissions lists 10 entries"
    );
    assert_eq!(
        book.find_removable(&Which::Rule("Bash(=touch made)".to_string())).unwrap_err(),
        "Bash(=touch made) is listed 2 times (8, 10): remove it by number"
    );
    assert_eq!(
        book.find_removable(&Which::Rule("Bash(ls)".to_string())).unwrap_err(),
        "no rule Bash(ls) is in force; /permissions lists them"
    );
}

#[test]
fn an_addition_is_checked_with_the_engines_parser() {
    let mut book = book();
    assert_eq!(book.check_addition(RuleList::Deny, Level::Local, " Bash(rm *) "), Ok("Bash(rm *)".to_string()));
    let bad = book.check_addition(RuleList::Deny, Level::Local, "Bash(rm *").unwrap_err();
    assert!(bad.starts_with("\"Bash(rm *\" is not a rule: unbalanced parentheses"), "{bad}");
    assert!(book.check_addition(RuleList::Allow, Level::Session, "Task(x)").unwrap_err().contains("takes no pattern"));
    assert!(book.check_addition(RuleList::Allow, Level::User, "").unwrap_err().contains("empty rule"));
    assert_eq!(
        book.check_addition(RuleList::Deny, Level::Project, "Bash(git push *)"),
        Err("deny Bash(git push *) is already a project rule".to_string())
    );
    // The same rule in another list or level is another rule.
    assert!(book.check_addition(RuleList::Allow, Level::Project, "Bash(git push *)").is_ok());
    book = book.with_files(RuleFiles { user_home: None, ..files() });
    assert_eq!(
        book.check_addition(RuleList::Allow, Level::User, "Read"),
        Err("the user settings file is not known in this session".to_string())
    );
}

#[test]
fn applying_changes_keeps_the_other_rules_and_ignored_allow_rules_stay_out_of_force() {
    let mut book = book();
    let added = strings(&["Bash(rm *)"]);
    book.apply(Level::Session, RuleList::Deny, RuleEdit::Add(&added), false);
    book.apply(Level::Project, RuleList::Allow, RuleEdit::Remove("Read(src/**)"), false);
    let in_force: Vec<(RuleList, String)> = book
        .listing()
        .into_iter()
        .filter(|entry| entry.source != Source::BuiltIn)
        .map(|entry| (entry.list, entry.text))
        .collect();
    let expected = [
        (RuleList::Deny, "Bash(rm *)"),
        (RuleList::Deny, "Bash(git push *)"),
        (RuleList::Deny, "Read(.env)"),
        (RuleList::Ask, "Bash(npm publish *)"),
        (RuleList::Allow, "Bash(=touch made)"),
        (RuleList::Allow, "Bash(=touch made)"),
    ];
    assert_eq!(in_force, expected.map(|(list, text)| (list, text.to_string())));
    assert_eq!(book.listing()[0].source, Source::Rule(Level::Session));
    // The engine's rules follow: the session's deny is among them.
    let ruleset = book.ruleset();
    let (_, session) = ruleset.levels.iter().find(|(level, _)| *level == Level::Session).unwrap();
    assert_eq!(session.deny.len(), 1);
    // An untrusted project's file takes the allow rule, the session does not apply it; its deny
    // rules apply all the same.
    let mut untrusted = book.clone().with_files(RuleFiles { project_trusted: false, ..files() });
    untrusted.apply(Level::Project, RuleList::Allow, RuleEdit::Add(&strings(&["Bash(make)"])), false);
    untrusted.apply(Level::Project, RuleList::Deny, RuleEdit::Add(&strings(&["Bash(curl *)"])), false);
    let texts: Vec<String> = untrusted.listing().into_iter().map(|entry| entry.text).collect();
    assert!(!texts.contains(&"Bash(make)".to_string()) && texts.contains(&"Bash(curl *)".to_string()), "{texts:?}");
    assert_eq!(untrusted.files().allow_ignored(Level::Project).unwrap(), "ignored until you trust this project");
}

#[test]
fn a_fresh_local_file_replaces_the_sessions_local_rules_and_is_mewcodes_own() {
    let planted = RuleFiles { local_mark: Mark::Missing, ..files() };
    let mut book = RuleBook::new(planted, vec![(Level::Local, texts(&[], &[], &["Bash(=pwd)"]))]);
    assert!(book.files().allow_ignored(Level::Local).unwrap().contains("no mewcode mark"));
    book.apply(Level::Local, RuleList::Allow, RuleEdit::Add(&strings(&["Bash(=ls)"])), true);
    assert_eq!(book.files().local_mark, Mark::Ours);
    let local: Vec<(RuleList, String)> = book
        .listing()
        .into_iter()
        .filter(|entry| entry.source == Source::Rule(Level::Local))
        .map(|entry| (entry.list, entry.text))
        .collect();
    assert_eq!(local, [(RuleList::Allow, "Bash(=ls)".to_string())]);
}

#[test]
fn the_edits_grant_is_listed_while_granted_and_can_be_revoked() {
    let mut book = book();
    assert!(!book.edits_granted() && book.listing().iter().all(|entry| entry.source != Source::EditsGrant));
    book.grant_edits();
    let grant = book.find_removable(&Which::Number(8)).unwrap();
    assert_eq!((grant.source, grant.text.as_str()), (Source::EditsGrant, EDITS_GRANT));
    book.revoke_edits();
    assert!(!book.edits_granted() && book.listing().iter().all(|entry| entry.source != Source::EditsGrant));
}

#[test]
fn each_level_has_its_file_but_the_session() {
    let files = files();
    assert_eq!(files.path(Level::Local), Some(PathBuf::from("/p/.mewcode/settings.local.yaml")));
    assert_eq!(files.path(Level::Project), Some(PathBuf::from("/p/.mewcode/settings.yaml")));
    assert_eq!(files.path(Level::User), Some(PathBuf::from("/home/me/.mewcode/settings.yaml")));
    assert_eq!(files.path(Level::Session), None);
}
