//! The rule book of a session (`/permissions`): every rule in force with where it comes from —
//! the user's, the project's and the local settings file, the invocation (`--allowedTools`,
//! `--disallowedTools`, a `--config` file's `permissions:`), the session itself, the fixed
//! policies built into the engine — numbered in one listing, and the session's grant of file
//! edits (an "always" answered to an edit). Adding and removing rules are planned here and
//! applied to the texts the engine is built from.
//!
//! Invariant: pure. It reads and writes no file: the caller saves a change (`store`) and only
//! then applies it here, so the rules in force never run ahead of the files. The allow rules of a
//! level that does not apply (a project not trusted, a local file that is not mewcode's) are
//! never in force, whatever is added to its file. Built-in policies are listed so the person sees
//! them, and can never be removed.

use super::rules::{Level, RuleList, RuleSet, RuleTexts, parse_rule};
use super::store::{self, Mark, RuleEdit};
use std::path::PathBuf;

/// Where the settings files are, and which of their allow rules apply.
#[derive(Clone, Debug)]
pub(crate) struct RuleFiles {
    /// The project root: the local and the project file live under it.
    pub root: PathBuf,
    /// `$MEWCODE_HOME`, where the user's file lives; `None` when not known (`mewcode check`).
    pub user_home: Option<PathBuf>,
    /// The project is trusted: its file's allow rules apply.
    pub project_trusted: bool,
    /// Whether the local file is mewcode's own: only then do its allow rules apply.
    pub local_mark: Mark,
}

impl RuleFiles {
    /// Files under `root`, trusted and marked: what a gate without the wiring's knowledge assumes
    /// (its allow rules were filtered by whoever loaded them).
    pub(crate) fn under(root: PathBuf) -> RuleFiles {
        RuleFiles { root, user_home: None, project_trusted: true, local_mark: Mark::Ours }
    }

    /// The settings file of a level: the directory it is written beneath and its name there;
    /// `None` for the session and the invocation (this run's flags), and for the user's file when `$MEWCODE_HOME` is not known.
    pub(crate) fn file(&self, level: Level) -> Option<(PathBuf, &'static str)> {
        match level {
            Level::Local => Some((self.root.clone(), store::LOCAL_SETTINGS)),
            Level::Project => Some((self.root.clone(), store::PROJECT_SETTINGS)),
            Level::User => self.user_home.clone().map(|home| (home, store::USER_SETTINGS)),
            Level::Session | Level::Invocation => None,
        }
    }

    /// The full path of a level's settings file.
    pub(crate) fn path(&self, level: Level) -> Option<PathBuf> {
        self.file(level).map(|(base, rel)| base.join(rel))
    }

    /// Why the allow rules of a level do not apply, when they do not.
    pub(crate) fn allow_ignored(&self, level: Level) -> Option<String> {
        match level {
            Level::Project if !self.project_trusted => Some("ignored until you trust this project".to_string()),
            Level::Local if self.local_mark != Mark::Ours => Some(format!("ignored: {}", self.local_mark.why())),
            Level::Project | Level::Local | Level::User | Level::Session | Level::Invocation => None,
        }
    }
}

/// Where a listed entry comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// A rule of a settings file, or of the session.
    Rule(Level),
    /// The session's grant of file edits ("always" to an edit).
    EditsGrant,
    /// A policy built into the engine.
    BuiltIn,
}

/// One numbered line of `/permissions`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// From 1, in listing order.
    pub number: usize,
    pub list: RuleList,
    /// The rule as written, or what a grant or built-in policy does.
    pub text: String,
    pub source: Source,
}

/// Which entry `/permissions remove` names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Which {
    Number(usize),
    Rule(String),
}

/// The policies built into the engine, listed under their effect. They are layers of `check`,
/// not rules: nothing in a settings file lifts them.
const BUILT_IN: &[(RuleList, &str)] = &[
    (
        RuleList::Deny,
        "catastrophic commands (recursive deletes of / or home, disk wipes, downloads run by a shell...), in every mode",
    ),
    (RuleList::Deny, "file tools outside the project (the sandbox), in every mode"),
    (RuleList::Ask, "writes to control files (.mewcode/, .mewcode.yaml, .git/, AGENTS.md...), outside bypass mode"),
    (
        RuleList::Ask,
        "sensitive files (.env, .env.*, *.pem, *.key, id_rsa*, .netrc...) unless an allow rule names them, outside bypass mode",
    ),
];

/// What the session's edits grant does, as listed.
const EDITS_GRANT: &str = "file edits (Edit, Write) without asking, as in acceptEdits mode";

/// The order of the effect groups in the listing: what refuses first.
const GROUPS: [RuleList; 3] = [RuleList::Deny, RuleList::Ask, RuleList::Allow];

/// The order of the levels within a group: the nearest first.
const LEVELS: [Level; 5] = [Level::Session, Level::Invocation, Level::Local, Level::Project, Level::User];

/// The rules in force, where they come from, and the session's grant of file edits.
#[derive(Clone, Debug)]
pub struct RuleBook {
    files: RuleFiles,
    /// The texts in force per level (ignored allow rules already left out).
    texts: Vec<(Level, RuleTexts)>,
    /// File edits run without asking for the rest of the session.
    edits_granted: bool,
}

impl RuleBook {
    /// The book over the texts loaded at start-up (`texts`: allow rules that do not apply
    /// already removed).
    pub(crate) fn new(files: RuleFiles, texts: Vec<(Level, RuleTexts)>) -> RuleBook {
        RuleBook { files, texts, edits_granted: false }
    }

    /// The same book over other files' knowledge (the wiring knows the user's file, the trust).
    pub(crate) fn with_files(self, files: RuleFiles) -> RuleBook {
        RuleBook { files, ..self }
    }

    pub(crate) fn files(&self) -> &RuleFiles {
        &self.files
    }

    /// The rules the engine decides with.
    pub(crate) fn ruleset(&self) -> RuleSet {
        RuleSet::from_texts(self.texts.clone()).0
    }

    /// The rules the engine would decide with once `rules` were allowed too (what an "always"
    /// answer would change).
    pub(crate) fn ruleset_with_allowed(&self, rules: &[String]) -> RuleSet {
        let mut texts = self.texts.clone();
        texts.push((Level::Session, RuleTexts { allow: rules.to_vec(), ..RuleTexts::default() }));
        RuleSet::from_texts(texts).0
    }

    pub(crate) fn edits_granted(&self) -> bool {
        self.edits_granted
    }

    /// File edits run without asking from now on, for the rest of the session.
    pub(crate) fn grant_edits(&mut self) {
        self.edits_granted = true;
    }

    /// Every rule in force, the grant and the built-in policies, numbered: deny, then ask, then
    /// allow; within each the session's, the local, the project's and the user's rules, then the
    /// built-in policies.
    pub(crate) fn listing(&self) -> Vec<Entry> {
        let mut entries = Vec::new();
        let mut push = |list: RuleList, text: &str, source: Source| {
            entries.push(Entry { number: entries.len() + 1, list, text: text.to_string(), source });
        };
        for list in GROUPS {
            for level in LEVELS {
                if list == RuleList::Allow && level == Level::Session && self.edits_granted {
                    push(list, EDITS_GRANT, Source::EditsGrant);
                }
                for text in self.texts_of(level).map(|texts| texts.list(list).as_slice()).unwrap_or_default() {
                    push(list, text, Source::Rule(level));
                }
            }
            for (_, text) in BUILT_IN.iter().filter(|(built_in, _)| *built_in == list) {
                push(list, text, Source::BuiltIn);
            }
        }
        entries
    }

    /// The entry `which` names, when it can be removed: a number of the listing, or a rule's
    /// text listed exactly once.
    pub(crate) fn find_removable(&self, which: &Which) -> Result<Entry, String> {
        let listing = self.listing();
        let entry = match which {
            Which::Number(number) => {
                listing.iter().find(|entry| entry.number == *number).cloned().ok_or_else(|| {
                    format!("there is no entry {number}: /permissions lists {} entries", listing.len())
                })?
            }
            Which::Rule(text) => {
                let text = text.trim();
                let found: Vec<&Entry> = listing
                    .iter()
                    .filter(|entry| matches!(entry.source, Source::Rule(_)) && entry.text == text)
                    .collect();
                match found.as_slice() {
                    [] => return Err(format!("no rule {text} is in force; /permissions lists them")),
                    [entry] => (*entry).clone(),
                    several => {
                        let numbers: Vec<String> = several.iter().map(|entry| entry.number.to_string()).collect();
                        let numbers = numbers.join(", ");
                        return Err(format!(
                            "{text} is listed {} times ({numbers}): remove it by number",
                            several.len()
                        ));
                    }
                }
            }
        };
        if entry.source == Source::BuiltIn {
            return Err(format!(
                "entry {} is built into mewcode ({}): it cannot be removed; an allow rule lifts only the ask of \
                 sensitive files",
                entry.number, entry.text
            ));
        }
        Ok(entry)
    }

    /// Checks a rule to add to `list` at `level` with the engine's own parser, and says where it
    /// would go; `Err` says why it cannot be added.
    pub(crate) fn check_addition(&self, list: RuleList, level: Level, text: &str) -> Result<String, String> {
        let text = text.trim();
        if let Err(error) = parse_rule(text) {
            return Err(format!("{text:?} is not a rule: {error} (e.g. Bash(git *), Read(src/**), Edit(=notes.md))"));
        }
        if level != Level::Session && self.files.file(level).is_none() {
            return Err(format!("the {} settings file is not known in this session", level.as_str()));
        }
        if self.texts_of(level).is_some_and(|texts| texts.list(list).iter().any(|present| present == text)) {
            return Err(format!("{} {text} is already a {} rule", list.as_str(), level.as_str()));
        }
        Ok(text.to_string())
    }

    /// Applies a change that was saved (or that lives in the session only). `fresh_file` says the
    /// local file was started anew (the one there was not mewcode's and was set aside): the
    /// session then follows the new file, and its rules from the old one are gone.
    pub(crate) fn apply(&mut self, level: Level, list: RuleList, edit: RuleEdit<'_>, fresh_file: bool) {
        if level == Level::Local && (fresh_file || matches!(edit, RuleEdit::Add(_))) {
            // Whatever mewcode writes to the local file it marks as its own.
            self.files.local_mark = Mark::Ours;
        }
        if list == RuleList::Allow && self.files.allow_ignored(level).is_some() {
            return;
        }
        let texts = match self.texts.iter().position(|(present, _)| *present == level) {
            Some(index) => &mut self.texts[index].1,
            None => {
                self.texts.insert(0, (level, RuleTexts::default()));
                &mut self.texts[0].1
            }
        };
        if fresh_file {
            *texts = RuleTexts::default();
        }
        let rules = texts.list_mut(list);
        match edit {
            RuleEdit::Add(added) => {
                for rule in added {
                    if !rules.contains(rule) {
                        rules.push(rule.clone());
                    }
                }
            }
            RuleEdit::Remove(removed) => rules.retain(|rule| rule != removed),
        }
    }

    /// Takes the session's grant of file edits back.
    pub(crate) fn revoke_edits(&mut self) {
        self.edits_granted = false;
    }

    fn texts_of(&self, level: Level) -> Option<&RuleTexts> {
        self.texts.iter().find(|(present, _)| *present == level).map(|(_, texts)| texts)
    }
}

#[cfg(test)]
#[path = "book_tests.rs"]
mod tests;
